// ilp: the WSP problem of a batch as a mixed-integer program, solved with CBC
// (seeds 003 §4, 004 §3, 000 §4). Declared with the other algorithms in
// fusion/algorithms.hpp (ilp::fuse); this header adds what the benchmark and
// the tests read about a run.
//
// Reduction before solving:
//  1. unintrusive merges (fusion/unintrusive.cpp): the MIP is over these
//     blocks ("units"), never over single instructions;
//  2. the units are split into independent parts: the connected components of
//     the dependency edges plus the candidate pairs below. With no edge and no
//     shared array between two parts, merging across them saves nothing, so
//     each part is solved alone (seed 000 §4) and the union is optimal;
//  3. a pair of units gets a variable only if it is fusible, may share a
//     legal block (BlockSet::never_together is false: no unit of another
//     shape on a dependency path between them — seed 003 §4.5's
//     fusion-preventing paths) and the cost model relates it (positive
//     saving; every fusible pair for robinson, whose |P| term rewards any
//     merge);
//  4. greedy from the units is the warm start of every part; the greedy
//     partition from single instructions is the fallback and the bound.
//
// Formulation of one part with m units, S iteration shapes:
//   pi[u]  integer: the position of u's block; blocks ARE the classes of
//          equal pi, so the result is always a clustering (seed 003 has no
//          transitivity constraint on x — README errata — and this one needs
//          none). A unit with a shape of index s has pi = S*q[u] + s with
//          q[u] in [0, m-1], so units of different shapes never share a
//          block; a unit of only free/sync has pi in [0, S*m - 1].
//   y[u,w] binary for candidate pairs: 1 only if pi[u] = pi[w] (two big-M
//          rows). y may be 0 for units that do share a block, so the MIP
//          value bounds the true cost of its partition from above, and is
//          equal to it for y = "same block": the MIP optimum is the optimum.
//   dependency edge u -> w:  pi[w] >= pi[u], and >= pi[u] + 1 when the pair
//          can never share a block. So blocks ordered by pi are topological.
//   non-fusible pair of the same shape: pi differ: pi[w] >= pi[u] + 1 when u
//          reaches w, else a binary d[u,w] picks the side (big-M).
//   transitivity of y (valid, since y = "same block" is always optimal):
//          y[a,b] + y[b,c] - y[a,c] <= 1, and y[a,b] + y[b,c] <= 1 when a, c
//          can never share a block (at most 5000 rows). Not needed for
//          correctness, but the big-M rows alone give a weak LP bound: on
//          random batches of 50 instructions (bohrium) these rows took CBC
//          from 4/10 to 8/10 proven optima within 5 s, and robinson from
//          seconds to milliseconds on 10-14 instructions.
// Objective (exact for all four models of fusion/cost.hpp):
//   max-locality, max-contract: the saving of a merge is a sum over unit
//          pairs, so cost = const - sum saving(u,w) * y[u,w];
//   robinson: the same for the part above the merge bonus, plus
//          |P| = sum leader[u], leader[u] >= 1 - sum_{w<u} y[w,u];
//   bohrium: an array read by units R (not the unit creating its base) costs
//          its bytes once per block that holds a unit of R and not the
//          creator: z[u] >= 1 - sum_{w in R, w<u} y[w,u] - y[u,creator],
//          cost = sum bytes * z (writes likewise with the releasing unit).
//   A model not among these (none exists yet) gets the pairwise form, which
//   is then only an approximation. Whatever the model, the result is scored
//   with the exact CostModel and never returned if worse than greedy.
//
// Limits: a part of more than 1000 units, or more than 8000 unit and pair
// variables, is not given to CBC (it keeps the warm start; Report::too_large).
// Options::time_limit (Config.fuse_time_limit) bounds the whole run;
// the parts share what is left after the seeds, and a part that runs out
// keeps its best solution (at worst the warm start). A solver failure keeps
// the warm start for that part and logs a warning. Solver output is shown
// only when arrvm::logger() logs at debug level.
#pragma once

#include <cstdint>

#include "fusion/algorithms.hpp"

namespace arrvm::fusion::ilp {

struct Report {
  int parts = 0;           // independent parts with two or more units
  int solved = 0;          // parts for which CBC returned a solution
  int proven_optimal = 0;  // parts CBC proved optimal
  int failed = 0;          // parts where CBC failed (warm start kept)
  int too_large = 0;       // parts over 1000 units or 8000 unit + pair columns: warm start kept
  int inexact = 0;         // proven-optimal parts whose MIP value is not the exact cost (a bug)
  int units = 0;           // unintrusive blocks
  int columns = 0, rows = 0;  // summed over parts
  bool searched = false;   // false: the limit struck before the parts were formed (greedy returned)
  bool optimal() const { return searched && failed == 0 && too_large == 0 && proven_optimal == parts; }
};

// ilp::fuse, also filling `report`.
Partition fuse_report(const Graph& g, const CostModel& cost, const Options& options, Report* report);

}  // namespace arrvm::fusion::ilp
