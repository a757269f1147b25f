// Per base, the positions of the batch's instructions that touch it, whether
// one instruction touches or writes a base, and a spare batch buffer: shared
// by the engine's batch rewrites (engine/*.cpp) and the runtime.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "vm/base_map.hpp"
#include "vm/error.hpp"
#include "vm/instruction.hpp"

namespace arrvm {

// Per base, the instructions touching it (any view, free and sync included),
// ascending: two passes over the batch into one flat array (no allocation
// per base: the rewrites build this on every flush of a loop's batches).
class BatchUsers {
 public:
  explicit BatchUsers(const std::vector<Instruction>& batch) {
    struct Count {
      uint32_t n = 0, last = 0, slot = 0;
    };
    BaseMap<Count> count;
    auto each_base = [&](auto f) {
      for (uint32_t i = 0; i < batch.size(); ++i) {
        const Instruction& in = batch[i];
        f(in.out.base, i);  // free and sync carry their base here too
        for (int k = 0; k < in.nin; ++k) {
          if (!in.in[k].is_const) f(in.in[k].view.base, i);
        }
      }
    };
    each_base([&](BaseId b, uint32_t i) {
      Count& c = count[b];
      if (c.n == 0) {
        c.slot = static_cast<uint32_t>(bases_.size());
        bases_.push_back(b);
      } else if (c.last == i) {
        return;
      }
      ++c.n;
      c.last = i;
    });
    begin_.resize(bases_.size() + 1, 0);
    for (std::size_t s = 0; s < bases_.size(); ++s) begin_[s + 1] = begin_[s] + count.find(bases_[s])->n;
    flat_.resize(begin_.back());
    std::vector<uint32_t> fill(begin_.begin(), begin_.end() - 1);
    each_base([&](BaseId b, uint32_t i) {
      const uint32_t s = count.find(b)->slot;
      if (fill[s] > begin_[s] && flat_[fill[s] - 1] == i) return;
      flat_[fill[s]++] = i;
    });
    for (BaseId b : bases_) slot_[b] = count.find(b)->slot;
  }

  // The positions touching `b`; `b` must be touched by the batch.
  std::span<const uint32_t> at(BaseId b) const {
    const uint32_t* s = slot_.find(b);
    ARRVM_ASSERT(s != nullptr);
    return {flat_.data() + begin_[*s], flat_.data() + begin_[*s + 1]};
  }
  bool contains(BaseId b) const { return slot_.contains(b); }
  // The bases the batch touches, in the order of their first touch.
  const std::vector<BaseId>& bases() const { return bases_; }

 private:
  BaseMap<uint32_t> slot_;
  std::vector<BaseId> bases_;
  std::vector<uint32_t> begin_;
  std::vector<uint32_t> flat_;
};

// A rewrite that builds a new batch takes a spare buffer for it and leaves
// the old batch's in its place (one per thread), so that neither is mapped
// and faulted in again on every flush: a 2000-instruction batch is 1.5 MB.
inline std::vector<Instruction>& spare_batch_buffer() {
  thread_local std::vector<Instruction> spare;
  return spare;
}
inline std::vector<Instruction> take_spare_batch(std::size_t capacity) {
  std::vector<Instruction> v = std::move(spare_batch_buffer());
  v.clear();
  v.reserve(capacity);
  return v;
}
inline void replace_batch(std::vector<Instruction>& batch, std::vector<Instruction>&& next) {
  spare_batch_buffer() = std::move(batch);
  batch = std::move(next);
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
