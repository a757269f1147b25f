// BaseMap<T>: BaseId -> T, the map of the per-base tables the VM touches on
// every instruction (the base registry, host backends' buffers). Open
// addressing with linear probing in one power-of-two array, deletion by
// backward shift (no tombstones): a base created and freed per NumPy
// operation costs no heap allocation once the table has grown, where
// std::unordered_map allocates and frees a node each time. Ids are
// non-negative (the VM numbers bases from 0); -1 marks an empty slot.
// Pointers and references to values are invalidated by insertion and erase.
// An empty slot always holds T{} (erase and clear reset the value).
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "vm/error.hpp"
#include "vm/view.hpp"

namespace arrvm {

template <class T>
class BaseMap {
 public:
  BaseMap() = default;

  std::size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }

  T* find(BaseId id) {
    if (slots_.empty() || id < 0) return nullptr;
    for (std::size_t i = home(id);; i = (i + 1) & mask_) {
      Slot& s = slots_[i];
      if (s.id == id) return &s.value;
      if (s.id == kEmpty) return nullptr;
    }
  }
  const T* find(BaseId id) const { return const_cast<BaseMap*>(this)->find(id); }
  bool contains(BaseId id) const { return find(id) != nullptr; }

  // The value of `id` (>= 0), value-initialized if it was not there.
  T& operator[](BaseId id) {
    ARRVM_ASSERT(id >= 0);
    if (T* v = find(id)) return *v;
    if ((size_ + 1) * 2 > slots_.size()) grow();
    std::size_t i = home(id);
    while (slots_[i].id != kEmpty) i = (i + 1) & mask_;
    slots_[i].id = id;  // (an empty slot's value is T{} already)
    ++size_;
    return slots_[i].value;
  }

  // Removes `id`; false if it was not there.
  bool erase(BaseId id) {
    if (slots_.empty() || id < 0) return false;
    std::size_t i = home(id);
    while (slots_[i].id != id) {
      if (slots_[i].id == kEmpty) return false;
      i = (i + 1) & mask_;
    }
    // The value dies on return, with the table consistent again (its
    // destructor may run user code, a deleter of adopted memory).
    [[maybe_unused]] T doomed = std::move(slots_[i].value);
    // Backward shift: move later entries of the probe run into the hole
    // when their home position allows it, so lookups never stop early.
    std::size_t hole = i;
    for (std::size_t j = (i + 1) & mask_; slots_[j].id != kEmpty; j = (j + 1) & mask_) {
      const std::size_t h = home(slots_[j].id);
      // Movable if h is not cyclically in (hole, j].
      const bool in_range = hole <= j ? (hole < h && h <= j) : (hole < h || h <= j);
      if (in_range) continue;
      slots_[hole].id = slots_[j].id;
      slots_[hole].value = std::move(slots_[j].value);
      hole = j;
    }
    slots_[hole].id = kEmpty;
    slots_[hole].value = T{};
    --size_;
    return true;
  }

  void clear() {
    for (Slot& s : slots_) {
      if (s.id != kEmpty) {
        s.id = kEmpty;
        s.value = T{};
      }
    }
    size_ = 0;
  }

 private:
  static constexpr BaseId kEmpty = -1;
  struct Slot {
    BaseId id = kEmpty;
    T value{};
  };

  std::size_t home(BaseId id) const {
    return static_cast<std::size_t>((static_cast<uint64_t>(id) * 0x9e3779b97f4a7c15ull) >> 32) & mask_;
  }

  void grow() {
    std::vector<Slot> old = std::move(slots_);
    const std::size_t n = old.empty() ? 64 : old.size() * 2;
    slots_ = std::vector<Slot>(n);
    mask_ = n - 1;
    for (Slot& s : old) {
      if (s.id == kEmpty) continue;
      std::size_t i = home(s.id);
      while (slots_[i].id != kEmpty) i = (i + 1) & mask_;
      slots_[i].id = s.id;
      slots_[i].value = std::move(s.value);
    }
  }

  std::vector<Slot> slots_;
  std::size_t mask_ = 0;
  std::size_t size_ = 0;
};

}  // namespace arrvm
