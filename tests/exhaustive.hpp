// Test oracle for the fusion algorithms: the minimum cost over every legal
// partition (Def. 5) of a batch, by enumerating set partitions. Vertices are
// assigned in stream order to an existing block or a new one; a branch is cut
// as soon as a block holds a fuse-preventing pair or the blocks formed so far
// have a dependency cycle (neither can be undone by assigning more vertices),
// or breaks the transducer rule (rule 9: a block iterating over a length
// class holds the compress that makes it; a prefix of a legal block is
// legal, so this cut is exact too). Uses Graph::fusible, the dependency
// edges, transducers_closed and CostModel::block_cost.
#pragma once

#include <cstdint>

#include "fusion/cost.hpp"
#include "fusion/graph.hpp"
#include "vm/partition.hpp"

namespace arrvm::testing {

struct ExhaustiveResult {
  fusion::Cost cost = 0;
  Partition partition;  // a cheapest legal partition (blocks by first instruction)
  uint64_t legal_partitions = 0;
};

ExhaustiveResult exhaustive_optimum(const fusion::Graph& g, const fusion::CostModel& cost);

}  // namespace arrvm::testing
