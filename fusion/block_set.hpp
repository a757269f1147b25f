// A partition under construction by block merges: the WSP state of seed 001
// Def. 15 (blocks, block dependency graph, fusibility, savings), with Lemma 1
// as the legality test of a merge. Shared by the graph-based algorithms.
//
// A block is named by its smallest instruction. The blocks are kept in a
// topological order (positions) that each merge repairs locally (in the
// style of Pearce and Kelly's dynamic topological sort), so a path search
// between two blocks visits only the blocks positioned between them.
#pragma once

#include <cstdint>
#include <vector>

#include "fusion/block.hpp"
#include "fusion/cost.hpp"
#include "fusion/graph.hpp"
#include "vm/partition.hpp"

namespace arrvm::fusion {

class BlockSet {
 public:
  // Every instruction its own block. O(n + edges).
  BlockSet(const Graph& g, const CostModel& cost);

  const Graph& graph() const { return *g_; }
  const CostModel& cost_model() const { return *cost_; }

  uint32_t find(uint32_t instr) const;  // the block holding `instr`
  bool is_block(uint32_t b) const { return parent_[b] == b; }
  std::vector<uint32_t> blocks() const;  // ascending
  std::size_t block_count() const { return nblocks_; }
  const BlockSummary& summary(uint32_t b) const { return sum_[b]; }
  const std::vector<uint32_t>& members(uint32_t b) const { return members_[b]; }
  uint32_t version(uint32_t b) const { return version_[b]; }

  bool fusible(uint32_t a, uint32_t b) const { return blocks_fusible(*g_, sum_[a], sum_[b]); }
  // fusible() but for the transducer rule (blocks_fusible_but_filters).
  bool fusible_but_filters(uint32_t a, uint32_t b) const {
    return blocks_fusible_but_filters(*g_, sum_[a], sum_[b]);
  }
  Cost saving(uint32_t a, uint32_t b) const { return cost_->saving(*g_, sum_[a], sum_[b]); }
  // saving() minus the model's merge bonus: > 0 iff the blocks share something.
  Cost related_saving(uint32_t a, uint32_t b) const { return saving(a, b) - bonus_; }
  Cost merge_bonus() const { return bonus_; }
  Cost cost() const;

  // Lemma 1 (2): no path of length >= 2 between a and b in the block
  // dependency graph, so merging them creates no cycle. O(blocks and edges
  // positioned between a and b), or O(n / 64) when the reach filter rejects
  // the merge.
  bool acyclic_merge(uint32_t a, uint32_t b) const;
  // Lemma 1: fusible and acyclic.
  bool legal_merge(uint32_t a, uint32_t b) const { return fusible(a, b) && acyclic_merge(a, b); }
  // Merges two blocks (the merge must be legal); returns the merged block.
  uint32_t merge(uint32_t a, uint32_t b);

  // Keeps, per block, bitsets of its members, of the instructions reachable
  // from it and of those reaching it, so that acyclic_merge rejects most
  // illegal merges (an instruction path between the blocks through an
  // instruction outside both) without a path search. O(n^2 / 64) memory and
  // time; does nothing for batches over 8192 instructions.
  void enable_reach_filter();
  // True if a and b can never share a block of a legal partition: an
  // instruction on a dependency path between them iterates over a shape
  // other than theirs, so it could join neither. Permanent (merges only grow
  // blocks). Needs the reach filter (false without it). O(n / 64).
  bool never_together(uint32_t a, uint32_t b) const;

  // Distinct blocks with a dependency edge to / from b.
  std::vector<uint32_t> successors(uint32_t b) const;
  std::vector<uint32_t> predecessors(uint32_t b) const;
  // Is there a path from a to b (a == b counts)?
  bool reaches(uint32_t a, uint32_t b) const;
  // Blocks that may have a positive related saving with b: those sharing an
  // array with b, or touching a base b creates or frees. Ascending.
  std::vector<uint32_t> partners(uint32_t b) const;

  // The blocks in topological order, ties broken by smallest instruction.
  Partition partition() const;

 private:
  std::vector<uint32_t> resolve(const std::vector<uint32_t>& edges, uint32_t self) const;
  // Blocks reachable from `from` (forward) or reaching it (backward) whose
  // position lies strictly between lo and hi; stops early at `target`.
  bool search(uint32_t from, bool forward, int64_t lo, int64_t hi, uint32_t target,
              std::vector<uint32_t>* seen) const;

  const Graph* g_;
  const CostModel* cost_;
  Cost bonus_ = 0;
  mutable std::vector<uint32_t> parent_;
  std::vector<BlockSummary> sum_;
  std::vector<std::vector<uint32_t>> members_;
  std::vector<std::vector<uint32_t>> succ_, pred_;  // block ids, possibly stale: resolve with find
  std::vector<int64_t> pos_;
  std::vector<uint32_t> version_;
  std::size_t nblocks_ = 0;
  std::size_t words_ = 0;  // reach filter: words per bitset (0: off)
  std::vector<std::vector<uint64_t>> members_bits_, reach_from_, reach_to_;
  std::vector<std::vector<uint64_t>> shape_bits_;  // per iteration shape: its instructions
  std::vector<uint64_t> shaped_bits_;              // instructions with an iteration shape
  // The forward search of the last acyclic_merge, reused by a merge of the
  // same pair right after it.
  mutable uint32_t cached_x_ = kNone, cached_y_ = kNone;
  mutable uint64_t cached_at_ = 0;
  mutable std::vector<uint32_t> cached_after_;
  uint64_t merges_ = 0;
  mutable std::vector<uint32_t> mark_;
  mutable uint32_t stamp_ = 0;
};

// Orders blocks topologically (ties: smallest instruction first), sorting
// each block's members. The blocks must form a legal partition.
Partition ordered_partition(const Graph& g, std::vector<Block> blocks);

// Checks Def. 5 and the ordering contract: every instruction in exactly one
// block, members ascending, no fuse-preventing pair inside a block, every
// dependency edge going from an earlier or the same block; with
// FusionRules::row_nests a block may be a legal row nest (vm/row_nest.hpp)
// whose rows and rest are each fusible, or a legal row program whose
// segments are each fusible. Returns an empty
// string if the partition is legal, else what is wrong. O(E) plus one block
// summary check per instruction (a fuse-preventing pair is searched for only
// to name it).
std::string check_partition(const Graph& g, const Partition& p);

}  // namespace arrvm::fusion
