// The loop IR shared by the code generators: a block of elementwise and
// generator instructions lowered to one loop nest over its iteration shape.
// The IR holds only the block's structure (opcodes, dtypes, rank, which
// operands are views, contracted temporaries or constants); sizes, offsets,
// strides, constant values and seeds go into the launch arguments, so that a
// kernel printed from the IR is reused at every size.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "vm/instruction.hpp"

namespace arrvm::codegen {

// Where a statement reads or writes a value.
enum class ArgKind : uint8_t {
  View,   // element of view slot `index` at the loop's current index
  Temp,   // scalar temporary `index` (a contracted array)
  Const,  // constant slot `index` (a packed 64-bit launch argument)
};

struct Arg {
  ArgKind kind = ArgKind::View;
  int index = 0;
  DType dtype = DType::Float64;
};

// One instruction of the block, executed for every index of the loop in
// block order. Generators read the flat index; `random` reads its seed from
// constant slot `seed_slot`.
struct Stmt {
  Opcode op = Opcode::Identity;
  Arg out;
  std::array<Arg, 3> in;
  int nin = 0;
  int seed_slot = -1;
};

struct LoopKernel {
  int rank = 0;
  std::vector<DType> views;    // view slots (each has offset + rank strides in the launch)
  std::vector<bool> written;   // per view slot: written by the kernel
  std::vector<DType> temps;    // contracted temporaries
  std::vector<DType> consts;   // constant slots
  std::vector<Stmt> body;

  // Deterministic text of the structure (used in names and tests).
  std::string signature() const;
};

// Launch argument layout (int64 array `a`): a[0..rank) = shape,
// a[rank] = 1 to run the outer loop in parallel, then per view slot v:
// a[rank + 1 + v * (rank + 1)] = offset, followed by its rank strides.
inline int64_t view_arg_index(int rank, int slot) { return rank + 1 + static_cast<int64_t>(slot) * (rank + 1); }

// A block lowered for one launch: the structure plus the launch's values.
struct LoweredBlock {
  LoopKernel kernel;
  Dims shape;
  std::vector<View> views;         // per view slot
  std::vector<uint64_t> consts;    // per constant slot (the value's bytes, little-endian)
  std::vector<BaseId> contracted;  // bases that became temporaries (never allocated)
};

// True if the instructions of `block` (control instructions aside) are all
// elementwise or generators with one output shape, so one loop nest runs them.
bool is_loop_block(std::span<const Instruction> batch, std::span<const uint32_t> block);

// Lowers such a block. Bases created and freed inside it (every access
// preceded by a full write in the block, freed in the block, not synced in
// it) become temporaries.
LoweredBlock lower_block(std::span<const Instruction> batch, std::span<const uint32_t> block);

// The int64 launch arguments of `b` (layout above); `parallel` sets the flag.
std::vector<int64_t> pack_args(const LoweredBlock& b, bool parallel);

// A reduction or scan (one instruction): a loop nest over the input shape
// without the axis, with a sequential sweep along the axis inside, combining
// in the same order as ref (from the first element; identity only for an
// empty axis), so results are bit-identical.
struct SweepKernel {
  Opcode op = Opcode::AddReduce;
  DType dtype = DType::Float64;
  int rank = 0;  // rank of the outer loop nest (input rank - 1)
};

// Launch layout of a SweepKernel: a[0..rank) = outer shape, a[rank] =
// parallel flag, a[rank + 1] = axis length; then for view v (0 = out, 1 = in)
// at sweep_arg_index(rank, v): offset, rank outer strides, axis stride (0
// for a reduction's output).
inline int64_t sweep_arg_index(int rank, int v) { return rank + 2 + static_cast<int64_t>(v) * (rank + 2); }

// The kernel and launch arguments of reduction or scan `instr` with views
// `out` and `in` (the caller may have replaced an unwritten input by a zero
// view of the same shape).
SweepKernel sweep_kernel(const Instruction& instr);
std::vector<int64_t> pack_sweep_args(const Instruction& instr, const View& out, const View& in, bool parallel);

}  // namespace arrvm::codegen
