// Row nests: the shapes and the legality proof are in vm/row_nest.hpp.
#include "vm/row_nest.hpp"

#include <algorithm>
#include <cstdlib>
#include <unordered_map>

namespace arrvm {

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

// x (rank 1, a row's) and y (the nest's) overlap only within rows.
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
  uint32_t instr;
};

// a and b (rank 1 or 2, `rows` rows) overlap only within rows: the same
// stride s != 0 from row to row, and at one row both lie within fewer than
// |s| consecutive elements.
bool rows_apart(const View& a, const View& b, int64_t rows) {
  if (rows <= 1) return true;
  const int64_t s = a.stride[0];
  if (s == 0 || b.stride[0] != s) return false;
  int64_t alo, ahi, blo, bhi;
  inner_window(a, &alo, &ahi);
  inner_window(b, &blo, &bhi);
  const int64_t first = std::min(a.offset + alo, b.offset + blo);
  const int64_t last = std::max(a.offset + ahi, b.offset + bhi);
  return last - first < std::llabs(s);
}

bool is_row_reduction(const Instruction& in) {
  return opcode_kind(in.op) == OpKind::Reduce && in.length_class < 0 && in.axis == 1 &&
         in.in[0].view.rank() == 2 && in.out.rank() == 1;
}

void touches(std::span<const Instruction> batch, std::span<const uint32_t> block, std::vector<Touch>* out) {
  for (uint32_t i : block) {
    const Instruction& in = batch[i];
    if (is_control(in.op)) continue;
    for (int k = 0; k < in.nin; ++k) {
      if (!in.in[k].is_const) out->push_back({&in.in[k].view, false, i});
    }
    out->push_back({&in.out, true, i});
  }
}

// One access of a segment (row_program): a view, written or read, and
// whether it is a reduction's output.
struct SegmentAccess {
  const View* view;
  bool written, reduced;
};

// The accesses of `in`, in order: its output first.
int accesses(const Instruction& in, SegmentAccess out[4]) {
  const bool reduces = opcode_kind(in.op) == OpKind::Reduce;
  int n = 0;
  out[n++] = {&in.out, true, reduces};
  for (int k = 0; k < in.nin; ++k) {
    if (!in.in[k].is_const) out[n++] = {&in.in[k].view, false, false};
  }
  return n;
}

// Whether `in` may share one loop with the segment whose accesses by base
// are `seg`: conflicting accesses are the same elements, none a
// reduction's output.
bool joins(const std::unordered_map<BaseId, std::vector<SegmentAccess>>& seg, const Instruction& in) {
  SegmentAccess mine[4];
  const int n = accesses(in, mine);
  for (int k = 0; k < n; ++k) {
    const auto it = seg.find(mine[k].view->base);
    if (it == seg.end()) continue;
    for (const SegmentAccess& a : it->second) {
      if (!a.written && !mine[k].written) continue;
      if (!may_overlap(*a.view, *mine[k].view)) continue;
      if (a.reduced || mine[k].reduced || !same_elements(*a.view, *mine[k].view)) return false;
    }
  }
  return true;
}

}  // namespace

bool row_nest_split(std::span<const Instruction> batch, std::span<const uint32_t> block,
                    std::vector<uint32_t>* rows, std::vector<uint32_t>* rest) {
  const Dims* xs = nullptr;
  const Dims* ys = nullptr;
  for (uint32_t i : block) {
    if (is_control(batch[i].op)) continue;
    const Dims* s = elementwise_shape(batch[i]);
    if (s == nullptr || s->size() == 0) return false;
    const Dims*& mine = s->size() == 1 ? xs : ys;
    if (mine == nullptr) {
      mine = s;
    } else if (*mine != *s) {
      return false;
    }
  }
  if (xs == nullptr || ys == nullptr || (*xs)[0] != (*ys)[0] || ys->product() == 0) return false;
  rows->clear();
  rest->clear();
  for (uint32_t i : block) {
    const bool row = !is_control(batch[i].op) && batch[i].out.shape.size() == 1;
    (row ? rows : rest)->push_back(i);
  }
  return true;
}

bool row_nest_legal(std::span<const Instruction> batch, std::span<const uint32_t> rows,
                    std::span<const uint32_t> rest) {
  std::vector<uint32_t> x, y;
  std::vector<uint32_t> both(rows.begin(), rows.end());
  both.insert(both.end(), rest.begin(), rest.end());
  if (!row_nest_split(batch, both, &x, &y) || !std::equal(x.begin(), x.end(), rows.begin(), rows.end()))
    return false;
  const int64_t m = batch[x[0]].out.shape[0];
  std::vector<Touch> tx, ty;
  touches(batch, rows, &tx);
  touches(batch, rest, &ty);
  for (const Touch& a : tx) {
    for (const Touch& b : ty) {
      if (!a.written && !b.written) continue;
      if (a.view->base != b.view->base || !may_overlap(*a.view, *b.view)) continue;
      if (a.instr > b.instr || !row_local(*a.view, *b.view, m)) return false;
    }
  }
  return true;
}

bool row_nest_order(std::span<const Instruction> batch, std::span<const uint32_t> block,
                    std::vector<uint32_t>* order) {
  thread_local std::vector<uint32_t> rest;
  if (!row_nest_split(batch, block, order, &rest)) return false;
  order->insert(order->end(), rest.begin(), rest.end());
  return true;
}

bool row_program(std::span<const Instruction> batch, std::span<const uint32_t> block, RowProgram* p) {
  return row_program_shapes(batch, block, p) && p->segments() >= 2;
}

bool row_program_shapes(std::span<const Instruction> batch, std::span<const uint32_t> block, RowProgram* p) {
  p->m = p->n = 0;
  p->segment.assign(block.size(), -1);
  p->row.clear();
  // The shape: a reduction's input, (m, n).
  for (uint32_t i : block) {
    const Instruction& in = batch[i];
    if (is_control(in.op)) continue;
    if (!is_row_reduction(in) && elementwise_shape(in) == nullptr) return false;
    if (is_row_reduction(in) && p->n == 0) {
      p->m = in.in[0].view.shape[0];
      p->n = in.in[0].view.shape[1];
    }
  }
  if (p->m < 1 || p->n < 1) return false;
  std::unordered_map<BaseId, std::vector<SegmentAccess>> current;  // the last segment's accesses by base
  for (std::size_t q = 0; q < block.size(); ++q) {
    const Instruction& in = batch[block[q]];
    if (is_control(in.op)) continue;
    const Dims& s = is_row_reduction(in) ? in.in[0].view.shape : in.out.shape;
    // A row's statement: over (m), or (m, 1) (NumPy's keepdims).
    const bool wide = s.size() == 2 && s[0] == p->m && s[1] == p->n;
    const bool row = !wide && s.size() >= 1 && s.size() <= 2 && s[0] == p->m && (s.size() == 1 || s[1] == 1);
    if (!wide && !row) return false;
    if (p->row.empty() || p->row.back() != row || !joins(current, in)) {
      p->row.push_back(row);
      current.clear();
    }
    SegmentAccess mine[4];
    const int n = accesses(in, mine);
    for (int k = 0; k < n; ++k) current[mine[k].view->base].push_back(mine[k]);
    p->segment[q] = p->segments() - 1;
  }
  return p->segments() >= 1;
}

bool row_program_legal(std::span<const Instruction> batch, std::span<const uint32_t> block,
                       const RowProgram& p) {
  std::vector<Touch> touched;
  std::vector<int> seg;
  for (std::size_t q = 0; q < block.size(); ++q) {
    if (p.segment[q] < 0) continue;
    touches(batch, block.subspan(q, 1), &touched);
    seg.resize(touched.size(), p.segment[q]);
  }
  std::unordered_map<BaseId, std::vector<std::size_t>> by_base;
  for (std::size_t a = 0; a < touched.size(); ++a) by_base[touched[a].view->base].push_back(a);
  for (const auto& [base, list] : by_base) {
    for (std::size_t x = 0; x < list.size(); ++x) {
      for (std::size_t y = x + 1; y < list.size(); ++y) {
        const Touch& a = touched[list[x]];
        const Touch& b = touched[list[y]];
        if (seg[list[x]] == seg[list[y]] || (!a.written && !b.written)) continue;
        if (may_overlap(*a.view, *b.view) && !rows_apart(*a.view, *b.view, p.m)) return false;
      }
    }
  }
  return true;
}

}  // namespace arrvm
