// Row fusion (backends/loop_ir.hpp): block X over (m) and the next block Y
// over (m, n1, ...) as one loop nest, X's statements once per row before
// the row's inner loops.
//
// Legality. The partition runs X over all rows, then Y over all rows. The
// nest runs, for each row i (rows in any order, or in parallel): X at i,
// then Y at (i, *). Within X and within Y nothing changes: X's statements
// at index i run in block order as in X's own loop, Y's at each (i, j...)
// as in Y's. So the nest is equal to the partition when no access of X at
// one row conflicts (one of the two writes, the elements overlap) with an
// access of Y at another row: then the only orderings that change are
// between accesses that do not conflict, and within a row X still runs
// before Y. Rows touched in parallel are independent for the same reason.
//
// A pair of views (x of X, y of Y) that may overlap, one written, passes
// when x has one element per row and y's elements of row i lie in a window
// that no other row's can reach: both step the same stride s != 0 from row
// to row, and x's element at row i and y's elements at row i all lie within
// fewer than |s| consecutive elements of the base. Rows i and i' then touch
// sets shifted by (i' - i) * s, a multiple of s, so they never meet.
// (Gauss: x = a[k+1:, k] read, y = a[k+1:, k:] written, s = n: the window
// is columns k..n-1 of one row, n - k < n elements.) With one row there is
// nothing to check.
//
// Only elementwise instructions (no generators, sweeps, indexing or length
// classes) and a non-empty nest: X's statements must run even where Y's
// inner extent is 0, and an empty nest launches nothing.
#include <algorithm>
#include <cstdlib>
#include <vector>

#include "backends/loop_ir.hpp"
#include "vm/error.hpp"

namespace arrvm::codegen {

namespace {

// The shape of `in` when it is an elementwise instruction of a fixed length
// (else nullptr).
const Dims* elementwise_shape(const Instruction& in) {
  if (opcode_kind(in.op) != OpKind::Elementwise || in.length_class >= 0) return nullptr;
  return &in.out.shape;
}

// The lowest and highest element offset of `v`'s axes 1.. (relative to its offset).
void inner_window(const View& v, int64_t* lo, int64_t* hi) {
  *lo = 0;
  *hi = 0;
  for (int d = 1; d < v.rank(); ++d) {
    const int64_t reach = (v.shape[d] - 1) * v.stride[d];
    *lo += std::min<int64_t>(0, reach);
    *hi += std::max<int64_t>(0, reach);
  }
}

// x (rank 1, X's) and y (Y's) overlap only within rows (see above).
bool row_local(const View& x, const View& y, int64_t rows) {
  if (rows <= 1) return true;
  const int64_t s = x.stride[0];
  if (s == 0 || y.stride[0] != s) return false;
  int64_t lo, hi;
  inner_window(y, &lo, &hi);
  const int64_t first = std::min(x.offset, y.offset + lo);
  const int64_t last = std::max(x.offset, y.offset + hi);
  return last - first < std::llabs(s);
}

struct Touch {
  const View* view;
  bool written;
};

void touches(std::span<const Instruction> batch, std::span<const uint32_t> block, std::vector<Touch>* out) {
  for (uint32_t i : block) {
    const Instruction& in = batch[i];
    if (is_control(in.op)) continue;
    for (int k = 0; k < in.nin; ++k) {
      if (!in.in[k].is_const) out->push_back({&in.in[k].view, false});
    }
    out->push_back({&in.out, true});
  }
}

// `v` with Y's inner axes appended at stride 0: X's operand seen from the nest.
View widened(const View& v, const Dims& shape) {
  View w = v;
  for (int d = 1; d < shape.size(); ++d) {
    w.shape.push_back(shape[d]);
    w.stride.push_back(0);
  }
  return w;
}

}  // namespace

bool rows_fusible(std::span<const Instruction> batch, std::span<const uint32_t> x,
                  std::span<const uint32_t> y) {
  const Dims* xs = nullptr;
  const Dims* ys = nullptr;
  for (uint32_t i : x) {
    if (is_control(batch[i].op)) continue;
    xs = elementwise_shape(batch[i]);
    if (xs == nullptr || xs->size() != 1) return false;
  }
  for (uint32_t i : y) {
    if (is_control(batch[i].op)) continue;
    ys = elementwise_shape(batch[i]);
    if (ys == nullptr || ys->size() < 2) return false;
  }
  if (xs == nullptr || ys == nullptr || (*xs)[0] != (*ys)[0] || ys->product() == 0) return false;
  std::vector<Touch> tx, ty;
  touches(batch, x, &tx);
  touches(batch, y, &ty);
  for (const Touch& a : tx) {
    for (const Touch& b : ty) {
      if (!a.written && !b.written) continue;
      if (a.view->base != b.view->base || !may_overlap(*a.view, *b.view)) continue;
      if (!row_local(*a.view, *b.view, (*xs)[0])) return false;
    }
  }
  return true;
}

LoweredBlock lower_rows(std::span<const Instruction> batch, std::span<const uint32_t> block, std::size_t nx) {
  ARRVM_ASSERT(nx > 0 && nx < block.size());
  if (!rows_fusible(batch, block.first(nx), block.subspan(nx)))
    throw InternalError("lower_rows: the blocks are not row-fusible");
  const Dims* shape = nullptr;
  for (std::size_t p = nx; p < block.size() && shape == nullptr; ++p) {
    if (!is_control(batch[block[p]].op)) shape = &batch[block[p]].out.shape;
  }
  // The block's instructions with X's operands widened to the nest's shape;
  // bases and constants are the block's, so binding_of and rebind see the
  // real batch the same way.
  std::vector<Instruction> shadow;
  std::vector<uint32_t> order;
  shadow.reserve(block.size());
  int x_statements = 0;
  for (std::size_t p = 0; p < block.size(); ++p) {
    Instruction in = batch[block[p]];
    if (p < nx && !is_control(in.op)) {
      in.out = widened(in.out, *shape);
      for (int k = 0; k < in.nin; ++k) {
        if (!in.in[k].is_const) in.in[k].view = widened(in.in[k].view, *shape);
      }
      ++x_statements;
    }
    shadow.push_back(std::move(in));
    order.push_back(static_cast<uint32_t>(p));
  }
  LoweredBlock b = build(shadow, order);
  ARRVM_ASSERT(static_cast<int>(b.kernel.body.size()) >= x_statements);
  for (int s = 0; s < x_statements; ++s) b.kernel.body[s].depth = 1;
  b = contract(std::move(b), shadow, order);
  b = schedule(std::move(b), Target::Cpu);
  ARRVM_ASSERT(!b.kernel.loops.empty() && b.kernel.loops[0].axis == 0);
  return stride_classes(std::move(b));
}

}  // namespace arrvm::codegen
