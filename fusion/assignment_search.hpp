// A second exact search for `optimal`, used when every merge saves something
// (a cost model with a merge bonus, robinson): there Fig. 11's weight edges
// are all fusible pairs, so its edge masks describe each partition many
// times over. This search enumerates each partition of the units once:
// units are assigned in topological order to an existing block or a new one;
// a branch is cut when a block stops being fusible or the blocks get a
// dependency cycle, or when its lower bound
//     cost(assigned blocks, unassigned units as singletons)
//       - sum over unassigned units u of saving(u, all other units)
// is no better than the best partition found (a unit joining a block saves
// at most that, because savings only grow as blocks grow).
// Exponential (Bell numbers) in the worst case; stops at the deadline.
#pragma once

#include <chrono>
#include <vector>

#include "fusion/block_set.hpp"

namespace arrvm::fusion {

// Searches the partitions of the blocks of `units` for one cheaper than
// `bound`. Returns true and sets *best (instruction blocks) if it found one.
bool assignment_search(const BlockSet& units, Cost bound, std::chrono::steady_clock::time_point deadline,
                       std::vector<Block>* best);

}  // namespace arrvm::fusion
