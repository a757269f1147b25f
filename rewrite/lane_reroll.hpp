// Loops rolled back into arrays: the reroll pass (a Batch pass, before
// fusion). A Python loop over the columns of a matrix issues one lane of
// instructions per iteration (Gram-Schmidt's `for c in range(k + 1, n):
// R[k, c] = dot(Q[:, k], Q[:, c]); Q[:, c] -= Q[:, k] * R[k, c]`). When a
// batch holds L >= kMinLanes such lanes side by side, and they are
// independent and differ only by where they are, they become one lane of
// instructions with one more axis, of length L: what the NumPy programmer
// would have written without the loop. The fused kernels then do not
// change with the trip count (sizes are kernel arguments: backends/
// loop_ir.hpp), and a loop of L iterations is one launch, not L.
//
// Lanes are found as the lanes pass finds them (rewrite/block_lanes.hpp:
// the same structure, period at most kMaxPeriod). They roll up when, at
// every operand of every instruction of the lane:
//   - the base is the same in every lane and the offset moves by a fixed
//     step from lane to lane (Q[:, c]: one column; Q[:, k]: no step), or
//   - the base is a temporary of the lane (every use of it in the batch is
//     in that lane, the first a write, and the lane frees it), the same
//     view of it in every lane: the lanes' temporaries become one fresh
//     base of L times the size;
//   - constants are equal, the instructions elementwise or reductions (and
//     frees), the rank below kMaxRank;
//   - no lane writes an element that another lane reads or writes (exact:
//     vm/view.hpp may_overlap), so running instruction by instruction
//     across lanes is running lane by lane.
// The lane axis goes last where the lanes lie closer in memory than a
// lane's own elements (Q[:, c] steps one element a lane, its rows n), so
// that the kernels sweep memory in order as the lanes fused side by side
// did; first otherwise.
// Frees of what the lanes free otherwise (a value of the previous
// iteration) move to the end of the run; the lanes' own temporary bases,
// never written now, are freed there too.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <vector>

#include "rewrite/pass.hpp"
#include "vm/instruction.hpp"

namespace arrvm {

// Rolls up the runs of lanes of `batch` (origins kept parallel); `new_temp`
// makes the fresh bases; a run that touches a base `keep` names (one the
// copy-back books name, or one renamed after the batch) stays as it is.
// Returns how many runs were rolled up.
std::size_t reroll_lanes(std::vector<Instruction>* batch, std::vector<uint64_t>* origin,
                         const std::function<BaseId(DType, int64_t)>& new_temp,
                         const std::function<bool(BaseId)>& keep = nullptr);

}  // namespace arrvm
