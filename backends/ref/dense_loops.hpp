// Precompiled loops for one elementwise opcode over dense memory: the eager
// path's way to run `z = x * y` on small arrays without an instruction
// (Runtime::run_dense_now, Backend::run_dense_now). Each loop is ref's
// scalar function (scalar_ops.hpp) in a flat loop, so its values are the
// reference interpreter's, bit for bit.
#pragma once

#include <cstdint>
#include <span>

#include "backends/backend.hpp"
#include "backends/host_memory.hpp"

namespace arrvm::ref {

// out[i] = op(a[i]) or op(a[i], b[i]) for i < n; an operand whose pointer is
// null is its constant (`ca`, `cb`) at every i.
using DenseLoop = void (*)(void* out, const void* a, const void* b, const Scalar* ca, const Scalar* cb,
                           int64_t n);

// The loop of elementwise opcode `op` (one or two inputs; not a cast or a
// select) on inputs of dtype `in`, when its result has dtype `out`; else
// nullptr (no such instruction: the caller takes the instruction path).
DenseLoop dense_loop(Opcode op, DType in, DType out);

// Runs Backend::run_dense_now's work on `memory`: false, with nothing run,
// where dense_loop has no loop or an input was never written (its zeros
// are the instruction path's to read).
bool run_dense(HostMemory& memory, Opcode op, std::span<const DenseRun> in, DenseRun out, DType out_dtype,
               int64_t n);

}  // namespace arrvm::ref
