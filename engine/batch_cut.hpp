// Where to cut a full batch (engine/runtime.cpp, Runtime::flush_full). A
// loop that issues without syncing fills batch after batch; flushed whole
// at ARRVM_BATCH instructions, each batch starts somewhere else in the
// loop's body, so no two are alike: every one misses the merge cache, is
// fused again and compiles its own kernels (an RK4 step of 23 instructions
// cut at 4096 made eleven different kernels of half a second each). Cut
// instead where the rest of the batch starts as the batch itself started:
// the next batch then begins at the same phase of the body, is the same
// batch (up to the renaming the merge key does), and hits.
#pragma once

#include <cstddef>
#include <span>

#include "vm/instruction.hpp"

namespace arrvm {

// The number of leading instructions of `batch` to flush: the largest k in
// [min_cut, batch.size()) at which the next kWindow instructions are the
// batch's first kWindow instructions up to base ids (renamed by first
// appearance in the window, as the merge key renames them) and constants'
// values, or 0 when there is none (flush all of it).
std::size_t periodic_cut(std::span<const Instruction> batch, std::size_t min_cut);

inline constexpr std::size_t kCutWindow = 24;

}  // namespace arrvm
