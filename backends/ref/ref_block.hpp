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

}  // namespace arrvm::ref
