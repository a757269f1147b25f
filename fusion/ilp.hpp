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
//  3. "may" pairs: fusible, BlockSet::never_together false, and every unit on
//     a dependency path between them a "may" partner of both (it would have
//     to join their block: seed 003 §4.5's fusion-preventing paths, to a
//     fixpoint). Only such pairs can share a legal block;
//  4. a pair of units gets a variable only if it is a "may" pair and the cost
//     model relates it (positive saving; every such pair for robinson, whose
//     |P| term rewards any merge);
//  5. greedy from the units is the warm start of every part; the greedy
//     partition from single instructions (or linear's, if cheaper) is the
//     fallback and the bound.
//
// Formulation of one part (pair variables only: no block positions):
//   y[u,w] binary: 1 only if u and w share a block. The blocks of a solution
//          are the connected components of the links with y = 1, with every
//          cycle among them merged (strongly connected components), so every
//          solution is an acyclic clustering; y may be 0 for units that share
//          a block, which can only over-estimate the cost.
//   Legality is what the walk cuts below enforce: for units p, q that are not
//          a "may" pair, a closed walk p -> q -> p over dependency edges and
//          links forces p and q into one block if all its links are 1, so
//          sum(its links) <= |links| - 1. Valid for every legal partition; an
//          integral y violating none has legal blocks.
//   Valid rows up front (tighten the LP, not needed for correctness):
//          transitivity y[a,b] + y[b,c] - y[a,c] <= 1, and y[a,b] + y[b,c] <= 1
//          when a, c are not a "may" pair (at most 5000); crossing pairs of
//          links whose blocks would reach each other both ways (walk cuts with
//          two links; y1 + y2 - y3 <= 1 when all four units may share a block
//          and y3 links two of them; at most 5000).
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
// With a merge bonus and pairwise savings (robinson), three steps first:
//   the weighted stage: the same model over the related pairs only (saving
//          above the bonus) and without leaders, solved alone (the size of
//          max-locality's model: milliseconds): its optimum V is the largest
//          saving above the bonus of any legal partition, so the row
//          sum (saving - bonus) * y <= V is valid. (robinson is lexicographic,
//          so its optimum saves exactly V; as an equation the row gives the
//          same LP bound but CBC's heuristics find fewer solutions.) Its
//          partition with greedy merges on top is the warm start;
//   the fewest blocks at V: an A* search over the downsets of the units'
//          dependency DAG, one block at a time, under the budget of weight
//          the optimum separates (fusion/ilp_blocks_search.hpp). When it
//          finishes, its partition (checked against the exact cost) is the
//          part's optimum and CBC does not run; when it gives up (its
//          deadline: half the part's time, 200,000 states, or too many blocks
//          to choose from in one state) the MIP below runs as before;
//   |P| >= the size of a clique of units no two of which may share a block
//          (a row on the leaders). The MIP's objective is then at least
//          -V + bonus * clique: a warm start that reaches it is optimal, and
//          CBC does not run.
//   What is left for CBC is |P| under V, whose LP bound is the clique; the
//   gap to the optimum comes from the acyclicity of the blocks (fusion/
//   README.md, "ilp under robinson").
// With a merge bonus and bohrium's access terms (machine: traffic plus a
// launch per block), the launch stages first (fusion/ilp_part.cpp):
//   the least traffic T: the bohrium model over the pairs that save bytes,
//          without leaders (exact, milliseconds);
//   the fewest blocks K: a conflict clique, or the fewest-blocks search
//          with no weighted pairs;
//   no partition costs less than T + bonus * K, and a candidate (the
//          stages' partitions with greedy merges on top) that reaches it is
//          optimal; otherwise an A* over downsets with each block's exact
//          cost as its step (fusion/ilp_cost_search.hpp) finds a cheaper
//          partition or proves there is none. When it gives up, the MIP gets
//          traffic >= T and |P| >= K as rows.
//   A search's partition is taken only if its blocks merge whole on the
//   units (a legality check), else CBC decides.
// Solving (a cutting-plane loop): up to 20 rounds of walk-cut separation on
//   the LP relaxation (shortest closed walks, link weight 1 - y), then CBC on
//   the MIP; if its solution's blocks are illegal, their walk cuts are added
//   and the MIP is solved again. Every cut is valid for every legal
//   partition, so each MIP value bounds the optimum from below, and a legal
//   MIP optimum is the optimum. (The blocks-as-positions formulation this
//   replaced had big-M rows that added nothing to the LP bound: at 100
//   instructions CBC proved 3 of 10 bohrium batches optimal in 5 s.)
//
// Length classes (rule 9): pairs that share a block only with compresses,
//   their "no more fused than" rows and lazy closure cuts, in
//   fusion/ilp_filters.hpp; a batch with a compress is proven like any other.
//   Both searches keep their blocks closed under rule 9 (fusion/ilp_items.hpp).
// Limits: a part of more than 1000 units, or more than 8000 unit and pair
// variables, is not given to CBC (it keeps the warm start; Report::too_large).
// With a merge bonus (robinson, machine) such a part of at most 1000 units
// whose related pairs fit still gets the stages before the full MIP (the
// weighted or launch stages and the searches), not the full MIP (too_large
// unless they prove it).
// Options::time_limit (Config.fuse_time_limit) bounds the whole run; the
// parts share what is left after the seeds. A part that runs out keeps the
// legal blocks of its last MIP solution (blocks that break a walk cut are
// split into their units) or the warm start, whichever is cheaper, and greedy
// merges run on the result. A solver failure keeps the warm start for that
// part and logs a warning. Solver output is shown only when arrvm::logger()
// logs at debug level.
#pragma once

#include <cstdint>

#include "fusion/algorithms.hpp"

namespace arrvm::fusion::ilp {

struct Report {
  int parts = 0;              // independent parts with two or more units
  int solved = 0;             // parts for which CBC returned a solution
  int proven_optimal = 0;     // parts CBC proved optimal
  int failed = 0;             // parts where CBC failed (warm start kept)
  int too_large = 0;          // parts over 1000 units or 8000 unit + pair columns: warm start kept
  int inexact = 0;            // proven-optimal parts whose MIP value is not the exact cost (a bug)
  int units = 0;              // unintrusive blocks
  int columns = 0, rows = 0;  // summed over parts (rows include the cuts)
  int mip_solves = 0;         // CBC runs, summed over parts (one more per round of illegal blocks)
  int cuts = 0;               // walk cuts added, summed over parts
  int block_searches = 0;     // parts the fewest-blocks search proved optimal (robinson), without CBC
  bool searched = false;      // false: the limit struck before the parts were formed (greedy returned)
  bool optimal() const { return searched && failed == 0 && too_large == 0 && proven_optimal == parts; }
};

// ilp::fuse, also filling `report`.
Partition fuse_report(const Graph& g, const CostModel& cost, const Options& options, Report* report);

}  // namespace arrvm::fusion::ilp
