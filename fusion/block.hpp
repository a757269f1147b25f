// What a block (a set of instructions) accesses: the unions in[B], out[B],
// new[B], del[B] of seed 001 Def. 10, plus what block fusibility needs. Cost
// models and algorithms work on these summaries, never on member lists.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "fusion/graph.hpp"

namespace arrvm::fusion {

// Arrays are keyed by (base << 32 | array id), so the arrays of one base are
// a contiguous range of a sorted map.
inline uint64_t array_key(const Graph& g, ArrayId a) {
  return (uint64_t{g.array(a).base} << 32) | a;
}
inline ArrayId key_array(uint64_t key) {
  return static_cast<ArrayId>(key & 0xffffffffu);
}
inline uint32_t key_base(uint64_t key) {
  return static_cast<uint32_t>(key >> 32);
}

// A multiset of arrays: sorted (key, count) pairs. Lookups O(log n), merging
// two maps O(a + b).
class CountMap {
 public:
  using Item = std::pair<uint64_t, uint32_t>;
  uint32_t count(uint64_t key) const;
  bool contains(uint64_t key) const { return count(key) != 0; }
  void add(uint64_t key);
  void merge(const CountMap& o);
  const std::vector<Item>& items() const { return items_; }
  std::size_t size() const { return items_.size(); }
  // The items whose key has base `base`.
  std::pair<const Item*, const Item*> base_range(uint32_t base) const;

 private:
  std::vector<Item> items_;
};

struct BlockSummary {
  uint32_t size = 0;                 // member instructions
  uint32_t first = kNone;            // smallest member
  CountMap reads, writes, io;        // members reading / writing / doing either, per array
  std::vector<uint32_t> news, dels;  // sorted base indices
  uint32_t shape = kNone;            // iteration shape shared by the members (kNone: only free/sync)
  int axis = -1;                     // axis shared by reductions and scans (-1: none)
  bool scatter = false;              // a member is a scatter (rule 7)
  bool special = false;              // a member is not elementwise (rule 8)
  std::vector<ArrayId> reduce_outs, gather_srcs, scatter_targets;
  // Length classes: the members' domains (Access::domain, kNone for a fixed
  // length) and the compresses among the members, both sorted (the
  // transducer rule: one domain is the top, every other one's compress is a member).
  std::vector<uint32_t> domains, filters;

  static BlockSummary of(const Graph& g, uint32_t instr);
  void add(const Graph& g, uint32_t instr);
  void absorb(const BlockSummary& o);
  bool is_new(uint32_t base) const;
  bool is_deleted(uint32_t base) const;
};

// True if no member of `a` and member of `b` are fuse-preventing, i.e. every
// cross pair is Graph::fusible. Cost: O(s * v) where s is the number of
// arrays of the smaller block and v the arrays of one base in the larger.
// `sweeps_alone`: whether rule 8 applies (FusionRules::sweeps_alone; not
// within a row program's segment, which such a backend runs whole by rows).
bool blocks_fusible(const Graph& g, const BlockSummary& a, const BlockSummary& b, bool sweeps_alone);
inline bool blocks_fusible(const Graph& g, const BlockSummary& a, const BlockSummary& b) {
  return blocks_fusible(g, a, b, g.rules().sweeps_alone);
}

// blocks_fusible without the transducer rule: whether the union may be a
// legal block once the compresses it lacks join it (the ilp's pairs).
bool blocks_fusible_but_filters(const Graph& g, const BlockSummary& a, const BlockSummary& b,
                                bool sweeps_alone);
inline bool blocks_fusible_but_filters(const Graph& g, const BlockSummary& a, const BlockSummary& b) {
  return blocks_fusible_but_filters(g, a, b, g.rules().sweeps_alone);
}

// The transducer rule alone (rule 9, part of blocks_fusible): whether the
// union of the two blocks is closed under length classes.
bool transducers_closed(const BlockSummary& a, const BlockSummary& b);

}  // namespace arrvm::fusion
