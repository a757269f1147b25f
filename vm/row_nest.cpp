// Row nests: the shapes and the legality proof are in vm/row_nest.hpp.
#include "vm/row_nest.hpp"

#include <algorithm>
#include <cstdlib>

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

}  // namespace arrvm
