// Per base, the positions of the batch's instructions that touch it, and
// whether one instruction touches or writes a base: shared by the engine's
// batch rewrites (engine/gather_pull.cpp, engine/defer.cpp,
// engine/fill_fold.cpp) and the runtime.
#pragma once

#include <cstdint>
#include <unordered_map>
#include <vector>

#include "vm/instruction.hpp"

namespace arrvm {

// Per base, the instructions touching it (any view, free and sync included),
// ascending: one pass over the batch.
inline std::unordered_map<BaseId, std::vector<uint32_t>> users_by_base(
    const std::vector<Instruction>& batch) {
  std::unordered_map<BaseId, std::vector<uint32_t>> users;
  for (uint32_t i = 0; i < batch.size(); ++i) {
    const Instruction& in = batch[i];
    auto touch = [&](BaseId b) {
      std::vector<uint32_t>& u = users[b];
      if (u.empty() || u.back() != i) u.push_back(i);
    };
    touch(in.out.base);  // free and sync carry their base here too
    for (int k = 0; k < in.nin; ++k) {
      if (!in.in[k].is_const) touch(in.in[k].view.base);
    }
  }
  return users;
}

// Whether `in` reads or writes (part of) `base`, or frees or syncs it.
inline bool touches_base(const Instruction& in, BaseId base) {
  if (in.out.base == base) return true;  // free and sync carry their base here too
  for (int k = 0; k < in.nin; ++k) {
    if (!in.in[k].is_const && in.in[k].view.base == base) return true;
  }
  return false;
}

// Whether `in` writes (part of) `base`: free and sync write nothing.
inline bool writes_base(const Instruction& in, BaseId base) {
  return !is_control(in.op) && in.out.base == base;
}

}  // namespace arrvm
