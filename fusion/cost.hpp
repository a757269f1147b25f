// Cost models of a partition (seed 001 Def. 6: non-negative, never increased
// by a merge). Every model here has the form
//     cost(P) = constant(G) + sum over blocks B of block_cost(B),
// so the saving of a merge depends only on the two blocks (Prop. 1).
//   bohrium       Def. 13: bytes of external accesses
//   max-contract  Def. 19: new arrays not contracted
//   max-locality  Def. 20: pairs of accesses to one array in different blocks
//   robinson      Def. 21: |P| + N * max-contract + N^2 * max-locality
// Exact definitions and interpretation choices: fusion/README.md.
#pragma once

#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "fusion/block.hpp"
#include "fusion/graph.hpp"
#include "vm/partition.hpp"

namespace arrvm::fusion {

class CostModel {
 public:
  virtual ~CostModel() = default;
  virtual std::string_view name() const = 0;

  // The part of the cost that no partition changes. O(arrays).
  virtual Cost constant(const Graph& g) const { return 0; }
  // A block's share of the cost. O(arrays of the block).
  virtual Cost block_cost(const Graph& g, const BlockSummary& b) const = 0;
  // cost(P) - cost(P/(a, b)) for two disjoint blocks of any partition P.
  // O(arrays of the smaller block * log).
  virtual Cost saving(const Graph& g, const BlockSummary& a, const BlockSummary& b) const = 0;
  // The part of saving() that every merge gets whatever the blocks (1 for
  // robinson's |P| term, 0 otherwise). A merge whose saving exceeds it is
  // "related": the blocks share an array.
  virtual Cost merge_bonus(const Graph& g) const { return 0; }
  // Whether the cost counts each array's external accesses (Def. 13), which
  // pairwise savings do not add up to: the ILP then models per-array access
  // terms instead of a saving per fused pair.
  virtual bool counts_external_accesses() const { return false; }

  Cost cost(const Graph& g, const Partition& p) const;
  Cost block_cost(const Graph& g, std::span<const uint32_t> members) const;
};

// The model named `name`; throws Error listing the known names.
std::unique_ptr<CostModel> make_cost_model(std::string_view name);
std::vector<std::string> cost_model_names();

}  // namespace arrvm::fusion
