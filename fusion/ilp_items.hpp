// The items of the searches over downsets of a part's units (fusion/
// ilp_blocks_search.hpp, fusion/ilp_cost_search.hpp): units joined by the
// pairs the search may not separate, in topological order, with their
// classes, chain heights and the candidates of each class. Internal to the
// ilp fuser.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "fusion/ilp_blocks_search.hpp"

namespace arrvm::fusion::ilp::search {

using Bits = std::vector<uint64_t>;

inline bool has(const Bits& b, uint32_t i) {
  return (b[i / 64] >> (i % 64)) & 1;
}
inline void put(Bits& b, uint32_t i) {
  b[i / 64] |= uint64_t{1} << (i % 64);
}

// The items (see the header) and what the search needs about them.
struct Items {
  uint32_t n = 0;
  std::vector<std::vector<uint32_t>> units;  // by item, in topological order of the items
  std::vector<Bits> preds;                   // direct predecessors (items)
  BitMatrix compat;                          // may share a block
  std::vector<Cost> weight;                  // n * n: weight of the pairs between two items
  std::vector<std::vector<std::pair<uint32_t, Cost>>> partners;  // by item: the positive weights
  std::vector<Bits> partner_bits;                                // by item: its partners
  // By item x: partners y, z that may not share a block, so that x loses
  // at least the smaller weight; largest first.
  std::vector<std::vector<std::tuple<Cost, uint32_t, uint32_t>>> conflicts;
  // By item x: its partners in groups no two of which may share a block
  // (first fit, heaviest first), so that x keeps at most one of each group.
  std::vector<std::vector<std::vector<std::pair<uint32_t, Cost>>>> exclusive;
  Cost budget = 0;                               // weight the search may lose (pairs between items)
  std::vector<uint32_t> cls;                     // class: iteration shape; kNone for only free/sync
  std::vector<std::vector<uint32_t>> members;    // by class, items in topological order
  std::vector<uint32_t> shapeless;               // items of only free/sync, topological order
  std::vector<uint32_t> height;                  // longest chain starting at the item, in its class
  std::vector<std::vector<uint32_t>> by_height;  // by class, items by decreasing height
  std::vector<std::vector<uint32_t>> cands;      // by class, its items and the shapeless ones, ascending
  std::string problem;                           // not empty: the items could not be formed
  bool filters = false;                          // length classes: blocks must be closed under rule 9
  std::vector<std::vector<uint32_t>> domains, compresses;  // by item, with filters (sorted)
};

// Rule 9 (fusion/README.md, the transducer rule) for the items `in` and x:
// of their domains at most one lacks its compress among them. Searches
// check it as items join a block in topological order: a block that is not
// closed cannot become so (a compress precedes its class).
bool closed_with(const Items& it, const std::vector<uint32_t>& in, uint32_t x);

// Values of type V by a key of `words` 64-bit words (a set of items): open
// addressing over a power-of-two table of entry numbers, the keys in one
// array. Lookups take the key as a pointer, so the searches need not build a
// vector to ask. References into it hold until the next insert.
template <typename V>
class BitsIndex {
 public:
  explicit BitsIndex(std::size_t words) : words_(words), slots_(1024, 0) {}

  static uint64_t hash(const uint64_t* key, std::size_t words) {
    uint64_t h = 0x9e3779b97f4a7c15ull;
    for (std::size_t k = 0; k < words; ++k) h = (h ^ key[k]) * 0xff51afd7ed558ccdull;
    return h ^ (h >> 29);
  }

  // The value of `key`, or nullptr.
  V* find(const uint64_t* key, uint64_t h) {
    for (std::size_t i = h & (slots_.size() - 1);; i = (i + 1) & (slots_.size() - 1)) {
      const uint32_t e = slots_[i];
      if (e == 0) return nullptr;
      if (hashes_[e - 1] == h && std::equal(key, key + words_, keys_.begin() + (e - 1) * words_))
        return &values_[e - 1];
    }
  }

  // Inserts `key` (not present) with `value`.
  V& insert(const uint64_t* key, uint64_t h, V value) {
    if (2 * (values_.size() + 1) > slots_.size()) grow();
    keys_.insert(keys_.end(), key, key + words_);
    hashes_.push_back(h);
    values_.push_back(std::move(value));
    place(static_cast<uint32_t>(values_.size()), h);
    return values_.back();
  }

 private:
  void place(uint32_t e, uint64_t h) {
    std::size_t i = h & (slots_.size() - 1);
    while (slots_[i] != 0) i = (i + 1) & (slots_.size() - 1);
    slots_[i] = e;
  }
  void grow() {
    slots_.assign(slots_.size() * 2, 0);
    for (uint32_t e = 1; e <= values_.size(); ++e) place(e, hashes_[e - 1]);
  }

  std::size_t words_;
  std::vector<uint32_t> slots_;  // entry number + 1; 0: empty
  std::vector<uint64_t> keys_, hashes_;
  std::vector<V> values_;
};

// The items of `p` (its weighted pairs summing to `total`); with no
// weighted pairs, the units themselves.
Items make_items(const FewestBlocksProblem& p, Cost total);

}  // namespace arrvm::fusion::ilp::search
