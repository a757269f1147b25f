// A product summed over one axis, as one precompiled loop nest: the block
// a matrix product lowers to (`a @ b` is t = a[..., :, :, None] *
// b[..., None, :, :], r = add.reduce(t, axis=-2), t freed; `X.T @ err`,
// `A @ x`, `u @ v` are the same with other axes). Instruction by
// instruction, ref would store all of t (n*k*m elements); the cpu
// backend's interpreted tier therefore waited for the kernel's compile
// (cold lu_rows: 0.3 s for its L @ U, NumPy's whole run 0.2 s). This nest
// keeps a panel of rows of sums instead (or, for rows that step by more
// than one element, eight dot products at a time), and adds the products
// in ref's order
// (each output from its first product, then k ascending, products rounded
// before the add; float32 summed in float64 and rounded once), so its
// values are ref's bit for bit.
#pragma once

#include <cstdint>
#include <span>

#include "backends/host_memory.hpp"
#include "vm/instruction.hpp"

namespace arrvm::ref {

struct Contraction {
  const Instruction* product = nullptr;  // t = x * y
  const Instruction* sum = nullptr;      // r = add.reduce(t, axis)
};

// Whether `block` of `batch` is a contraction: apart from frees and syncs,
// a multiply of two float64 (or two float32) views of its output's shape
// into a temporary, and an add reduction of that temporary whole over one
// axis into an array of its dtype on another base; the block frees the
// temporary, and no length class is involved.
bool find_contraction(std::span<const Instruction> batch, std::span<const uint32_t> block, Contraction* c);

// Runs `c` on `memory`; false, with nothing run, when an input was never
// written (ref reads its zeros) or an axis is empty (ref's identity).
bool run_contraction(const Contraction& c, HostMemory& memory);

}  // namespace arrvm::ref
