// ilp under a merge bonus (robinson): the fewest blocks among the legal
// partitions of a part that reach the weighted stage's optimum V, by a
// best-first (A*) search over the downsets of the dependency DAG, one block
// at a time. Internal to the ilp fuser (fusion/ilp_part.cpp calls it after
// the weighted stage; CBC stays the fallback when it gives up).
//
// Items: the weighted pairs (saving above the bonus) must all share blocks
// when V is their total (no legal partition then separates any of them), so
// the units linked by them form groups, and groups that reach each other
// both ways form one item (a cycle of groups is one block). Legal partitions
// of the items are exactly the sequences of blocks B1, B2, ... whose prefix
// unions are downsets of the item DAG and whose items pairwise may share a
// block. Some optimal sequence has only maximal blocks (no item whose
// predecessors are placed or in the block and that may join every item of
// it could be added: moving it from its later block keeps every prefix a
// downset and every block legal), so the search branches over the maximal
// blocks only: at most one per class of items (connected components of
// "may share a block") when a class is a clique of that relation,
// otherwise every maximal subset (capped).
// Lower bound (consistent): per class, the longest chain of items each
// reaching the next and not allowed to share its block (then no two of the
// chain share one: the one between them would have to join), summed over
// classes (items of different classes never share a block). The remaining
// items are an up-set, so the longest chain among them is the largest
// precomputed chain height among them.
// When V is less than the total of the weighted pairs (the weighted optimum
// must separate some of them), the search does not apply (not proven).
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "fusion/graph.hpp"

namespace arrvm::fusion::ilp {

// A square bit matrix (rows of 64-bit words).
class BitMatrix {
 public:
  explicit BitMatrix(std::size_t n = 0) : words_((n + 63) / 64), bits_(n * words_, 0) {}
  bool test(uint32_t a, uint32_t b) const { return (bits_[a * words_ + b / 64] >> (b % 64)) & 1; }
  void set(uint32_t a, uint32_t b) { bits_[a * words_ + b / 64] |= uint64_t{1} << (b % 64); }
  void reset(uint32_t a, uint32_t b) { bits_[a * words_ + b / 64] &= ~(uint64_t{1} << (b % 64)); }
  uint64_t* row(uint32_t a) { return bits_.data() + a * words_; }
  const uint64_t* row(uint32_t a) const { return bits_.data() + a * words_; }
  std::size_t words() const { return words_; }

 private:
  std::size_t words_;
  std::vector<uint64_t> bits_;
};

// The sets of a union-find `uf` over 0..m-1 (it is compressed), every group
// of them that reach each other both ways over `edges` merged into one, in
// topological order; each lists its members ascending. Tarjan's algorithm.
std::vector<std::vector<uint32_t>> condense(std::vector<uint32_t>& uf,
                                            const std::vector<std::pair<uint32_t, uint32_t>>& edges);

struct WeightedPair {
  uint32_t a, b;  // local units
  Cost weight;    // saving above the merge bonus, > 0
};

struct FewestBlocksProblem {
  uint32_t units = 0;
  const std::vector<std::pair<uint32_t, uint32_t>>* edges = nullptr;  // dependency edges between units
  const BitMatrix* may = nullptr;      // may(a, b): a and b may share a legal block
  std::vector<uint32_t> shape;         // by unit: iteration shape, kNone for only free/sync
  std::vector<WeightedPair> weighted;  // pairs that may share a block and save above the bonus
  Cost v = 0;                          // the proven largest weighted saving of a legal partition
};

struct FewestBlocksResult {
  std::vector<std::vector<uint32_t>> blocks;  // local units, topological order; empty if not proven
  bool proven = false;                        // blocks has the fewest blocks among the partitions saving v
  long states = 0;                            // states expanded
  std::string why;                            // why not proven
};

// Gives up (not proven) at `deadline` or after `max_states` expanded states.
FewestBlocksResult fewest_blocks(const FewestBlocksProblem& p, std::chrono::steady_clock::time_point deadline,
                                 long max_states);

}  // namespace arrvm::fusion::ilp
