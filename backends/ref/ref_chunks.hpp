// Internal to the ref backend's block runner (ref_block.cpp): a segment of
// elementwise instructions over one shape run a chunk at a time.
#pragma once

#include <span>
#include <unordered_set>

#include "backends/host_memory.hpp"
#include "vm/instruction.hpp"

namespace arrvm::ref {

// The fewest elements a chunked run iterates over (fewer: one pass per
// instruction stays in cache as it is).
inline constexpr int64_t kChunkMinElements = int64_t{1} << 15;

// Whether a chunk can run `in`: an elementwise instruction, or a reduction
// along an axis after the one a chunk runs along (each of its output
// elements then within one chunk), of no length class.
bool chunkable(const Instruction& in);

// The shape a chunkable instruction iterates over: its output's, a
// reduction's input's.
const Dims& run_shape(const Instruction& in);

// Runs `body` (chunkable instructions, in program order, none of which
// reads a failed result) a chunk of 4096 elements at a time if it can: two
// or more instructions over one shape of at least 2^15 elements, and every
// view of a base they write is that write's view or shares no element with
// it. The bases of `freed_here` (freed by the block and mentioned by `body`
// alone) that `body` writes first, through one view, live in a chunk-sized
// scratch buffer and are never allocated. Returns false, having changed
// nothing, if it cannot; *reason says why.
bool run_chunks(std::span<const Instruction* const> body, const std::unordered_set<BaseId>& freed_here,
                HostMemory& memory, const char** reason);

}  // namespace arrvm::ref
