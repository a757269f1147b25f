// The fusion algorithms (seed 001 Sec. V), one file each, one signature,
// registered by name in one table (fusion/algorithms.cpp). Every algorithm
// returns a legal partition (Def. 5) whose blocks are in topological order,
// ties broken by smallest instruction; no I/O, no cache, no environment.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "fusion/block_set.hpp"
#include "fusion/cost.hpp"
#include "fusion/graph.hpp"
#include "vm/partition.hpp"

namespace arrvm::fusion {

struct Options {
  double time_limit = 1.0;  // seconds, for `optimal` and `ilp` (Config::fuse_time_limit)
  // Test hook for `ilp`: makes every MIP infeasible, so that CBC fails and
  // ilp takes its fallback (greedy, with a warning).
  bool ilp_force_failure = false;
  // Test hook for `ilp` under robinson: skips the fewest-blocks search
  // (fusion/ilp_blocks_search.hpp), so that CBC solves every part.
  bool ilp_no_block_search = false;
};

using FuseFn = Partition (*)(const Graph&, const CostModel&, const Options&);

struct Algorithm {
  const char* name;
  FuseFn fuse;
  bool exact;  // bounded by Options::time_limit, not by the batch size (fusion/fusers.def)
};

// The table, in a fixed order.
std::span<const Algorithm> algorithms();
// The algorithm named `name`, or nullptr.
const Algorithm* find_algorithm(std::string_view name);

// Every instruction its own block. O(n).
namespace singleton {
Partition fuse(const Graph& g, const CostModel& cost, const Options& options);
}

// Sec. V-E: walks the batch in order, adding each instruction to the current
// block unless it is not fusible with it. O(n * a), a = arrays per base in a block.
namespace linear {
Partition fuse(const Graph& g, const CostModel& cost, const Options& options);
}

// Fig. 7: repeatedly merges the pair of blocks with the largest saving whose
// merge is legal (fusion/greedy.cpp for the details). With a heap,
// versioned entries, contracted weight edges and the incremental block
// order: O(W log W + M * (d * (s + log W) + r)) for W initial weight edges,
// M merges, d edges per merged block, s the cost of a saving and r the
// blocks a legality search visits (mostly O(n / 64) with the reach filter).
// W is O(n^2) in the worst case (every instruction sharing an array).
// A model with a merge bonus (robinson) then takes the unrelated merges in
// block order: O(B^2) legality tests per pass over the B blocks.
// Of two equal savings the pair first in the stream is taken first
// (FirstInStream, the paper's order), or the pair last in it. fuse runs both
// and keeps the cheaper partition (fusion/greedy.cpp says why).
namespace greedy {
enum class Ties { FirstInStream, LastInStream };
Partition fuse(const Graph& g, const CostModel& cost, const Options& options);
// Runs the greedy merges on an existing state.
void merge_all(BlockSet& s, Ties ties = Ties::FirstInStream);
// Both orders from the state `s`, which ends as the cheaper (first in
// stream on equal cost).
void merge_all_both_orders(BlockSet& s);
}  // namespace greedy

// Fig. 6 / Theorem 3: merges only pairs that some optimal partition keeps
// together (see fusion/README.md for the condition and its proof).
// O(M * n * (p + r)) in the worst case, p partners, r path-search cost.
namespace unintrusive {
Partition fuse(const Graph& g, const CostModel& cost, const Options& options);
void merge_all(BlockSet& s);
}  // namespace unintrusive

// Fig. 11: branch and bound over the subsets of the weight edges between the
// blocks of the unintrusive partition (fusion/assignment_search for models
// with a merge bonus), seeded with the best of linear, greedy, unintrusive
// and greedy-from-unintrusive. Exact when it finishes; exponential in the
// number of weight edges; stops at options.time_limit and returns the best
// legal partition found so far. The seeds always run to completion, so it
// takes at least as long as they do (milliseconds at 300 instructions).
namespace optimal {
Partition fuse(const Graph& g, const CostModel& cost, const Options& options);
}

// Seeds 003/004/000: the WSP problem of the batch as a MIP over the
// unintrusive blocks, split into independent parts: pair variables, legality
// by walk cuts added in a cutting-plane loop around CBC, from the greedy warm
// start (fusion/ilp.hpp has the formulation). Exact when every part is proven
// optimal; exponential in the worst case; stops at options.time_limit with
// the best solution found, never worse than greedy.
namespace ilp {
Partition fuse(const Graph& g, const CostModel& cost, const Options& options);
}

}  // namespace arrvm::fusion
