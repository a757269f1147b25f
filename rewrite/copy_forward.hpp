// Copies read in place of their source: the forward-copies pass
// (fusion/README.md, "Copies forwarded"). Rule: a copy into a temporary is
// copy propagation while its source is unchanged. NumPy's `x[i]` is a value, so the Python binding
// issues `identity T <- x[i]` for it (a later write to x must not reach T);
// in `factor = a[k+1:, k] / a[k, k]` nothing writes `a` before the divide
// reads T, and T is freed right after: the copy is a kernel of one element
// for nothing. A copy `identity T <- V` is forwarded when
//   - it is T's first touch in the batch and writes all of T (row-major),
//     T is not synced and is freed later in the batch, written by nothing
//     else;
//   - every read of T is T's own view, or, T of one element, a view of it
//     with zero strides (a broadcast);
//   - nothing writes or frees V's base from the copy to T's last read.
// Then each read of T reads V (the broadcast reads V's element with zero
// strides) and the copy goes; T's free stays (a base never written frees
// nothing). Legal: every read of T sees the values V held at the copy,
// which V still holds when the read runs, and T outlives no read.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "vm/instruction.hpp"

namespace arrvm {

// Returns the number of copies forwarded (removed from `batch`; `origin`
// parallel to it).
std::size_t forward_copies(std::vector<Instruction>& batch, std::vector<uint64_t>& origin);

}  // namespace arrvm
