// Internal to the ref backend: one instruction at a time, over base memory
// that the backend owns.
#pragma once

#include <cstdint>

#include "vm/instruction.hpp"

namespace arrvm::ref {

// A base array's memory as a kernel sees it.
struct BaseMemory {
  void* data = nullptr;  // nullptr: never written (every element reads as 0)
  DType dtype = DType::Float64;
  int64_t nelem = 0;
};

// How kernels reach base memory (implemented by the backend).
class MemoryAccess {
 public:
  virtual ~MemoryAccess() = default;
  // The base's memory, allocated on first use: zero-filled, unless the
  // caller writes `writes` elements and they are all of the base's (an
  // injective view as large as its base, nothing read first).
  virtual BaseMemory for_write(BaseId id, int64_t writes = 0) = 0;
  // The base's memory; `data` is nullptr if it was never written.
  virtual BaseMemory for_read(BaseId id) = 0;
  virtual void release(BaseId id) = 0;
  // A compress into `out` kept `n` elements (the length of its class).
  virtual void kept(BaseId out, int64_t n) = 0;
};

// Executes one (normalized, validated) instruction. Throws Error for a
// run-time error of the program (a gather/scatter index out of range; nothing
// is written then) and InternalError for an instruction the validator should
// have rejected (a dtype the opcode does not take, a view outside its base).
// An instruction of a pending length class (Instruction::length_class)
// needs its length resolved first (vm/length_class.hpp: resolve_length).
void run_instruction(const Instruction& instr, MemoryAccess& mem);

}  // namespace arrvm::ref
