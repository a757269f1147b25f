// Row nests as a fusion decision (vm/row_nest.hpp has the shapes and the
// legality proof; fusion/README.md, "Row nests").
//
// Rule 2 keeps a block over (m) and one over (m, ...) apart, and Def. 12
// would refuse Gauss elimination's factor `f = a[k+1:, k] / a[k, k]` and
// its update `a[k+1:, k:] -= f[:, None] * a[k, k:]` anyway (the factor
// reads column k, which the update writes). Where the backend's
// FusionRules allow row nests, the partition a fuser returns is finished
// here: a block X over (m) and the next block with work, Y over (m, ...),
// become one block when the nest is legal; blocks of only free/sync
// between them and one right after Y join it (freeing later is always
// legal, and a base X creates for Y and frees there becomes a temporary
// of the nest). The nest is then one block of the partition the merge
// cache keeps and the cost models price, and one kernel of the backend.
// Likewise a row program (vm/row_nest.hpp: a reduction along the rows and
// its epilogues, softmax): a block and the blocks with work after it, one
// by one while the union stays a legal row program and saves, then the
// frees right after.
#pragma once

#include <cstddef>

#include "fusion/algorithms.hpp"

namespace arrvm::fusion {

// Merges the legal (X, Y) pairs of `p`, in its order, and the row
// programs; a nest does not merge again. Returns the nests made. Every cost model's merge saving is
// non-negative (Def. 6), so a legal nest is always taken. O(blocks +
// members * accesses per base of the pairs tried).
std::size_t nest_rows(const Graph& g, const CostModel& cost, Partition* p);

// Runs `a` on `g`, then nest_rows where g's rules allow row nests (but for
// singleton, whose contract is one instruction a block).
Partition run_algorithm(const Algorithm& a, const Graph& g, const CostModel& cost, const Options& options);

}  // namespace arrvm::fusion
