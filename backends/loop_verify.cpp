// Pass `verify_block` of codegen::lower (backends/loop_ir.hpp): the block
// must be one kernel. The fusion engine decides that (fusion/README.md,
// Graph::fusible); a backend never splits a block, so a block that breaks
// a rule is a bug upstream and raises InternalError naming the rule.
#include <algorithm>
#include <string>
#include <vector>

#include "backends/loop_ir.hpp"
#include "vm/error.hpp"

namespace arrvm::codegen {

namespace {

bool is_sweep(Opcode op) {
  const OpKind k = opcode_kind(op);
  return k == OpKind::Reduce || k == OpKind::Accumulate;
}

[[noreturn]] void not_one_kernel(const Instruction& a, const Instruction& b, const std::string& why) {
  throw InternalError("block is not one kernel (" + why + "): `" + to_string(a) + "` and `" + to_string(b) +
                      "`");
}

// The views an instruction touches, with whether it writes them and whether
// they are accessed at the loop's own index ("plain") or anywhere.
struct Touch {
  const View* view;
  bool written, plain;
  uint32_t instr;
};

void touches(const Instruction& in, uint32_t i, std::vector<Touch>* out) {
  const OpKind kind = opcode_kind(in.op);
  for (int k = 0; k < in.nin; ++k) {
    if (in.in[k].is_const) continue;
    out->push_back({&in.in[k].view, false, !(kind == OpKind::Gather && k == 0), i});
  }
  // A reduction writes its output after the sweep; a scatter anywhere.
  out->push_back({&in.out, true, kind != OpKind::Reduce && kind != OpKind::Scatter, i});
}

}  // namespace

void verify_block(std::span<const Instruction> batch, std::span<const uint32_t> block) {
  const Instruction* first = nullptr;
  const Instruction* sweep = nullptr;
  const Instruction* scatter = nullptr;
  std::vector<Touch> all;
  for (uint32_t i : block) {
    const Instruction& in = batch[i];
    if (is_control(in.op)) continue;
    if (first == nullptr) first = &in;
    if (iteration_shape(in) != iteration_shape(*first)) not_one_kernel(*first, in, "iteration shapes differ");
    if (is_sweep(in.op)) {
      if (sweep != nullptr && sweep->axis != in.axis) not_one_kernel(*sweep, in, "sweep axes differ");
      sweep = &in;
    }
    if (in.op == Opcode::Scatter) scatter = &in;
    touches(in, i, &all);
  }
  if (first == nullptr) return;
  const int last = iteration_shape(*first).size() - 1;
  if (scatter != nullptr && sweep != nullptr && sweep->axis != last) {
    not_one_kernel(*sweep, *scatter, "a scatter with a sweep along an axis other than the last");
  }
  // Two accesses of one base by different instructions, one a write: the
  // same plain view (one element per index), or no common element.
  std::stable_sort(all.begin(), all.end(),
                   [](const Touch& x, const Touch& y) { return x.view->base < y.view->base; });
  for (std::size_t i = 0; i < all.size(); ++i) {
    // The common case, in linear time: every access of the base is the same
    // plain view (an in-place chain like a = a * c repeated).
    std::size_t end = i + 1;
    bool uniform = all[i].plain;
    for (; end < all.size() && all[end].view->base == all[i].view->base; ++end) {
      uniform = uniform && all[end].plain && same_elements(*all[i].view, *all[end].view);
    }
    if (uniform) {
      i = end - 1;
      continue;
    }
    for (std::size_t j = i + 1; j < all.size() && all[j].view->base == all[i].view->base; ++j) {
      const Touch& x = all[i];
      const Touch& y = all[j];
      if (x.instr == y.instr || (!x.written && !y.written)) continue;
      if (x.plain && y.plain && same_elements(*x.view, *y.view)) continue;
      if (may_overlap(*x.view, *y.view))
        not_one_kernel(batch[x.instr], batch[y.instr], "overlapping accesses");
    }
  }
}

}  // namespace arrvm::codegen
