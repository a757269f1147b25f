// One block of a partition run instruction by instruction on host memory:
// the ref backend's execution, and the cpu backend's interpreted tier (a
// block whose kernel is still compiling, or failed to compile).
#pragma once

#include <span>
#include <unordered_map>

#include "backends/host_memory.hpp"
#include "vm/instruction.hpp"

namespace arrvm::ref {

// Runs `block`'s instructions of `batch` in order on `memory`. `lengths`
// holds the length of each length class whose compress ran (a compress of
// the block adds its own); an instruction of a class iterates over it. An
// instruction that fails (an index out of range, an empty reduction,
// memory) does not stop the block: the instructions after it that read what
// failed are skipped, the others run, and the block then throws
// InstructionsFailed (vm/error.hpp) naming the failures, as a fused kernel
// of the cpu backend, which runs to its end, does. `free` instructions
// release their base.
void run_block(std::span<const Instruction> batch, std::span<const uint32_t> block, HostMemory& memory,
               std::unordered_map<BaseId, int64_t>& lengths);

// The cpu backend's interpreted tier: run_block's result and failures, but
// each run of consecutive elementwise instructions over one shape (with
// reductions along an axis a chunk holds whole; frees and syncs among them
// wait for its end) of at least 2^15 elements runs a
// chunk at a time (4096 elements: every instruction over it, then the
// next), so that what one instruction writes is still in cache when the
// next reads it; the bases such a run writes first and the block frees,
// mentioned by that run alone (what a compiled kernel contracts), live in
// a chunk-sized scratch buffer and are never allocated. A run is chunked
// only when every view of a base it writes is that write's view or
// disjoint from it (then no grouping of elements changes a value); the
// rest runs instruction by instruction. Returns the instructions run a
// chunk at a time; *whole, if given, says why the last run that was not
// chunked was not (nullptr if none).
std::size_t run_block_chunked(std::span<const Instruction> batch, std::span<const uint32_t> block,
                              HostMemory& memory, std::unordered_map<BaseId, int64_t>& lengths,
                              const char** whole = nullptr);

}  // namespace arrvm::ref
