// ilp under a merge bonus (robinson): the fewest blocks among the legal
// partitions of a part that reach the weighted stage's optimum V, by a
// best-first (A*) search over the downsets of the dependency DAG, one block
// at a time. Internal to the ilp fuser: fusion/ilp_part.cpp runs it after the
// weighted stage, and CBC stays the fallback when it gives up.
//
// The weighted terms: a partition saves V exactly when the weighted pairs
// (saving above the bonus, units that may share a block) it separates weigh
// total - V, the "budget". A pair weighing more than the budget is never
// separated, so its units form a group; groups that reach each other both
// ways form one item (a cycle of groups is one block); pairs between items
// that may not share a block are lost anyway (the budget shrinks by them);
// to a fixpoint. The search tracks the weight lost so far.
// Legal partitions of the items are exactly the sequences of blocks B1, B2,
// ... whose prefix unions are downsets of the item DAG and whose items
// pairwise may share a block. The search state is (downset, weight lost);
// one step adds a block of one class (iteration shape, with the items of
// only free/sync, which may join any block), losing the weight between the
// block and the rest. Pruned, all without losing an optimum:
//  * weight lost plus a lower bound on what the rest must lose (per item:
//    its partners in groups no two of which may share a block; a pair counts
//    for both its items) above the budget;
//  * a block that a left-out item could join, predecessors placed or in the
//    block, that it may share with every item, without losing more weight
//    than it keeps: moving the item there from its later block keeps every
//    prefix a downset and loses no more;
//  * a block of only free/sync items while items of a shape are left (merged
//    into the next block it stays legal: one block less);
//  * a state whose downset another reached with no more blocks and no more
//    weight lost (Pareto).
// (While a block is enumerated, a candidate that the second rule would
// force into it whatever the later candidates do is not left out.)
// Lower bound on the blocks left (consistent, so the first complete state
// taken is optimal): per class, the longest chain of items each reaching the
// next and not allowed to share its block (then no two of the chain share
// one: the one between them would have to join), summed over classes (items
// of two shapes never share a block). The items left are an up-set, so that
// chain is the largest precomputed chain height among them.
// Gives up (not proven) at its deadline, after max_states expansions, or when
// a state has more blocks to choose from than it enumerates (256 per class).
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
  // With length classes (rule 9), by unit: the domains of its instructions
  // and the compresses among them (BlockSummary::domains, filters); empty
  // without.
  std::vector<std::vector<uint32_t>> domains, compresses;
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
