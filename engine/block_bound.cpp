#include "engine/block_bound.hpp"

#include <algorithm>
#include <unordered_set>
#include <vector>

#include "vm/opcode.hpp"
#include "vm/row_nest.hpp"

namespace arrvm {

namespace {

// A view's identity: its base, offset, shape and strides.
uint64_t view_key(const View& v) {
  uint64_t h = 1469598103934665603ull;
  auto mix = [&](uint64_t x) { h = (h ^ x) * 1099511628211ull; };
  mix(static_cast<uint64_t>(v.base));
  mix(static_cast<uint64_t>(v.offset));
  for (int d = 0; d < v.rank(); ++d) {
    mix(static_cast<uint64_t>(v.shape[d]));
    mix(static_cast<uint64_t>(v.stride[d]));
  }
  return h;
}

}  // namespace

std::size_t bound_blocks(std::span<const Instruction> batch, Partition* partition, std::size_t limit) {
  if (limit == 0) return 0;
  std::size_t split = 0;
  std::vector<Block> out;
  std::unordered_set<BaseId> freed;
  std::unordered_set<uint64_t> views;
  RowProgram program;
  for (Block& b : partition->blocks) {
    // (At most as many views as operands: most blocks are let through here.)
    std::size_t operands = 0;
    for (uint32_t i : b) operands += is_control(batch[i].op) ? 0 : 1 + static_cast<std::size_t>(batch[i].nin);
    // A row program's parts need not be kernels (a row's statements
    // without the reduction beside the loop that reads them): it stays
    // whole (vm/row_nest.hpp; the fusion engine makes them from a
    // reduction and its readers, a few blocks).
    if (operands <= limit || row_program(batch, b, &program)) {
      out.push_back(std::move(b));
      continue;
    }
    freed.clear();
    for (uint32_t i : b) {
      if (batch[i].op == Opcode::Free) freed.insert(batch[i].out.base);
    }
    std::sort(b.begin(), b.end());
    std::vector<Block> parts(1);
    views.clear();
    for (uint32_t i : b) {
      const Instruction& in = batch[i];
      if (!is_control(in.op)) {
        // The views this instruction adds; past the limit, a new part.
        std::size_t added = 0;
        uint64_t keys[4];
        int n = 0;
        auto note = [&](const View& v) {
          if (freed.count(v.base) != 0) return;
          const uint64_t k = view_key(v);
          keys[n++] = k;
          added += views.count(k) == 0;
        };
        note(in.out);
        for (int k = 0; k < in.nin; ++k) {
          if (!in.in[k].is_const) note(in.in[k].view);
        }
        if (views.size() + added > limit && !parts.back().empty()) {
          parts.emplace_back();
          views.clear();
        }
        for (int k = 0; k < n; ++k) views.insert(keys[k]);
      }
      parts.back().push_back(i);
    }
    if (parts.size() > 1) ++split;
    for (Block& p : parts) out.push_back(std::move(p));
  }
  partition->blocks = std::move(out);
  return split;
}

}  // namespace arrvm
