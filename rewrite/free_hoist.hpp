// Frees right after their base's last use: the early-frees pass. Rule: a
// `free` moves up to just after the last instruction before it that touches
// its base. NumPy code frees a loop's temporary one iteration late: in
//
//   for k in range(n - 1):
//       factor = a[k + 1:, k] / a[k, k]
//       a[k + 1:, k:] -= factor[:, None] * a[k, k:]
//
// the name `factor` lets go of step k's array only when step k + 1's divide
// has made the new one, so the stream reads `divide f1 ...; free f0`. A
// temporary is contracted (never stored) only when a block holds all its
// uses and its free; with the free behind the next step's divide, a fuser
// that keeps step k + 1 apart from step k (other shapes) stores every
// factor, and the cpu backend's row nests, which fuse the divide into the
// update's rows, never form (Gauss elimination from Python: 2 launches a
// step where the C++ twin, freeing at once, has 1).
//
// Legal: a free has no effect on any instruction but those touching its
// base, and none after it touches that base (ids are never reused); the
// instructions it moves past touch other bases. A free stays where it is
// when its base's last use is not among the 32 positions ending at the last
// instruction before it that is not a free:
// a loop's late free is a statement or two from its last use, and a move
// shifts every instruction it crosses (800 bytes each), so the pass stays
// linear in the batch. Frees moved to one point keep their order.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "vm/instruction.hpp"

namespace arrvm {

// Moves each free of `batch` to just after its base's last use before it;
// `origin` (and `keys`, if not null and of the batch's size) are permuted
// alike. Returns how many frees moved past at least one other instruction.
std::size_t hoist_frees(std::vector<Instruction>& batch, std::vector<uint64_t>& origin,
                        std::vector<uint64_t>* keys = nullptr);

}  // namespace arrvm
