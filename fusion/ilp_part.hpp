// ilp, one independent part: the MIP over the pair variables of its units,
// walk cuts separated on the LP relaxation and after each MIP solve, CBC
// through fusion/ilp_model.hpp (fusion/ilp.hpp describes the formulation).
// Internal to the ilp fuser: fusion/ilp.cpp forms the parts and calls
// solve_part for each.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "fusion/block_set.hpp"
#include "fusion/cost.hpp"

namespace arrvm::fusion::ilp {

using Clock = std::chrono::steady_clock;
using Blocks = std::vector<std::vector<uint32_t>>;

struct Pair {
  uint32_t u, w;  // unit indices, u < w
  Cost saving;
};

// Everything about the units that every part needs.
struct UnitGraph {
  const BlockSet* units;
  std::vector<uint32_t> ids;    // unit -> block id
  std::vector<uint32_t> index;  // block id -> unit
  std::vector<std::vector<uint32_t>> succ;
  std::vector<Pair> pairs;
  Cost bonus = 0;
};

// What solving one part gave.
struct PartResult {
  Blocks blocks;  // legal, local units, topological order; empty: none better than the warm start
  bool optimal = false;
  bool by_search = false;  // proven by the fewest-blocks search (fusion/ilp_blocks_search.hpp)
  bool failed = false;
  std::string message;
  double objective = 0;  // the MIP lower bound, when optimal
  int mip_solves = 0, cuts = 0;
  int columns = 0, rows = 0;
  Cost offset = 0;  // the constant part of the cost, left out of `objective`
};

// Solves the part made of units `part` (ascending unit indices of `ug`;
// blocks are lists of indices into `part`), starting from the legal blocks
// `warm`, until `deadline`. exact_cost prices legal blocks of the part with
// the exact cost model; improve applies greedy merges on top; legal tells
// whether blocks are legal (a search's result is taken only if they are). A part where no
// two units that may share a block save anything is solved without CBC (its
// units alone). force_failure adds a row no solution satisfies (test hook);
// block_search false skips the fewest-blocks search under robinson (test hook);
// full_mip false stops after it (robinson, a part too large for the full
// MIP: result.blocks is the weighted stage's partition if cheaper than warm).
// result.columns / rows: the model's size (0 without CBC).
PartResult solve_part(const UnitGraph& ug, const std::vector<uint32_t>& part, bool bohrium,
                      const CostModel& cost, const Blocks& warm,
                      const std::function<Cost(const Blocks&)>& exact_cost,
                      const std::function<Blocks(const Blocks&)>& improve,
                      const std::function<bool(const Blocks&)>& legal, Clock::time_point deadline,
                      bool verbose, bool force_failure, bool block_search, bool full_mip);

// Union-find root with path halving.
inline uint32_t uf_root(std::vector<uint32_t>& uf, uint32_t u) {
  while (uf[u] != u) u = uf[u] = uf[uf[u]];
  return u;
}

}  // namespace arrvm::fusion::ilp
