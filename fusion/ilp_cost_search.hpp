// ilp under machine (a launch per block plus bohrium's traffic): a partition
// of a part cheaper than a given one, or the proof that none is, by a
// best-first (A*) search over the downsets of the units' dependency DAG, one
// block at a time: the frame of the fewest-blocks search
// (fusion/ilp_blocks_search.hpp), with the exact cost of each block as the
// step. Internal to the ilp fuser: fusion/ilp_part.cpp runs it when the
// launch stages' bound (least traffic + bonus * fewest blocks) is not reached.
//
// A state is a downset of the units with g, the cost of its blocks; a step
// adds a block of one class (iteration shape, with the units of only
// free/sync), its cost CostModel::block_cost (the bonus plus the block's
// traffic). A downset reached by another state at no more cost is dropped.
// The estimate of what the rest costs, h, never exceeds it:
//  * blocks: per class, the longest chain of units each reaching the next
//    and not allowed to share its block (as the fewest-blocks search);
//  * traffic: per class, the traffic of the class's units left (with every
//    free/sync unit left) as one block. The arrays a set of units reads (or
//    writes) outside the bases it creates (frees) are among those of its
//    blocks, as new[] and del[] of a block are within the set's, so no split
//    of the set moves fewer bytes; and blocks of two classes are apart.
// A state with g + h at or above the upper bound is dropped: the search
// finds only cheaper partitions, and when none is left the upper bound is
// proven optimal. Blocks are pruned without losing every optimum:
//  * a block that a left-out unit x could join (its predecessors placed or
//    in the block, allowed with every unit of it) when the block reads
//    (writes) every array x reads (writes), or creates (frees) its base.
//    Moved there from its later block, x keeps every prefix a downset (its
//    successors are in that block or after) and adds no bytes: none to this
//    block; none to the block it leaves, which loses x's accesses, and whose
//    units use no base x frees (they all precede x's free, so they are
//    placed or in this block, where the free now saves their writes). A
//    unit that creates a base is never such an x: no block before it writes
//    or frees that base;
//  * a block of only free/sync units while units of a shape are left
//    (merged into the next block: one launch less, the frees' bases
//    released there);
// A block is legal when its units pairwise may share one and, with length
// classes, it is closed under rule 9 (fusion/README.md): checked as units
// join it in topological order, where a block that is not closed cannot
// become so (a compress precedes its class). Then the left-out unit of the
// first prune holds no compress and the block with it is closed (the block
// it leaves stays closed: it loses no compress).
// Gives up (not proven) at its deadline, after max_states expansions, or
// when a state has more blocks to choose from than it enumerates.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "fusion/block.hpp"
#include "fusion/cost.hpp"
#include "fusion/ilp_blocks_search.hpp"

namespace arrvm::fusion::ilp {

struct CheaperProblem {
  uint32_t units = 0;
  const std::vector<std::pair<uint32_t, uint32_t>>* edges = nullptr;  // dependency edges between units
  const BitMatrix* may = nullptr;     // may(a, b): a and b may share a legal block
  std::vector<uint32_t> shape;        // by unit: iteration shape, kNone for only free/sync
  std::vector<BlockSummary> summary;  // by unit
  const Graph* graph = nullptr;
  const CostModel* cost = nullptr;  // bonus + bohrium's traffic per block (machine)
  Cost bonus = 0;                   // the cost model's merge bonus (a launch)
  Cost upper = 0;                   // the cost of a known legal partition
};

struct CheaperResult {
  std::vector<std::vector<uint32_t>> blocks;  // local units, topological order; empty: none cheaper
  bool proven = false;  // blocks is optimal, or (empty) no partition costs less than `upper`
  long states = 0;      // states expanded
  std::string why;      // why not proven
};

CheaperResult cheaper_partition(const CheaperProblem& p, std::chrono::steady_clock::time_point deadline,
                                long max_states);

}  // namespace arrvm::fusion::ilp
