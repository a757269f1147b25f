// Precompiled loops for one elementwise opcode (or a cast) over runs of
// memory (an offset and one step each): the eager path's way to run
// `z = x * y` on small arrays without an instruction
// (Runtime::run_dense_now, Backend::run_dense_now). Each loop is ref's
// scalar function (scalar_ops.hpp) in a flat loop, so its values and flags
// are the reference interpreter's (tests/test_dense_now.cpp).
#pragma once

#include <cstdint>
#include <span>

#include "backends/backend.hpp"
#include "backends/host_memory.hpp"

namespace arrvm::ref {

// An operand of a loop: element i at p + i * step (in elements), or, for
// an input whose p is null, `constant` at every i.
struct DenseOperand {
  void* p = nullptr;
  int64_t step = 1;
  const Scalar* constant = nullptr;
};

// out[i] = op(a[i]) or op(a[i], b[i]) for i < n.
using DenseLoop = void (*)(const DenseOperand& out, const DenseOperand& a, const DenseOperand& b, int64_t n);

// The loop of elementwise opcode `op` (one or two inputs; a cast, not a
// select) on inputs of dtype `in`, when its result has dtype `out`; else
// nullptr (no such instruction: the caller takes the instruction path).
DenseLoop dense_loop(Opcode op, DType in, DType out);

// Runs Backend::run_dense_now's work on `memory`: false, with nothing run,
// where dense_loop has no loop or an input was never written (its zeros
// are the instruction path's to read).
bool run_dense(HostMemory& memory, Opcode op, std::span<const DenseRun> in, DenseRun out, DType out_dtype,
               int64_t n);

}  // namespace arrvm::ref
