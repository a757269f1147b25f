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
  Indexed,  // fused kernels: indexed slot `index` (gather source, scatter target) at a computed position
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
  int acc = -1;  // fused kernels: the accumulator of a reduction or scan
  int err = -1;  // fused kernels: the error slot of a gather or scatter
};

// A gather's source or a scatter's target in a fused kernel: a view of any
// rank, addressed by the flat row-major position an index names.
struct IndexedSlot {
  DType dtype = DType::Float64;
  int rank = 0;
  bool written = false;
};

struct LoopKernel {
  int rank = 0;
  std::vector<DType> views;    // view slots (each has offset + rank strides in the launch)
  std::vector<bool> written;   // per view slot: written by the kernel
  std::vector<DType> temps;    // contracted temporaries
  std::vector<DType> consts;   // constant slots
  std::vector<Stmt> body;
  // Fused kernels (lower_fused_block); empty in kernels of lower_block.
  int sweep_axis = -1;               // axis of the reductions and scans: innermost and sequential
  std::vector<IndexedSlot> indexed;  // gather sources and scatter targets
  std::vector<DType> accs;           // accumulators of reductions and scans
  int errors = 0;                    // error slots, one per gather or scatter
  // Fused kernels, per view slot: the stride along the innermost loop's axis
  // (the sweep axis, else the last), when the launch fixes it: kUnitInner
  // (1, or an axis of length 1) or kZeroInner (0, a broadcast), printed as a
  // constant so the compiler sees contiguous or invariant accesses and
  // vectorizes without gathers; kAnyInner: a launch argument. A structural
  // property like dtypes: a loop whose slices shrink keeps its classes.
  std::vector<uint8_t> inner;

  // Deterministic text of the structure (used in names and tests).
  std::string signature() const;
};

enum : uint8_t { kAnyInner = 0, kUnitInner = 1, kZeroInner = 2 };

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
  // Fused blocks: per indexed slot its view; per view slot whether no other
  // slot may touch its elements (a reduction's output, written after the
  // sweep); the instruction (batch index) behind each error slot.
  std::vector<View> indexed;
  std::vector<bool> exclusive;
  std::vector<uint32_t> error_instr;
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

// ---- Fused blocks (the cpu backend) ------------------------------------------
// A block whose instructions share one iteration shape (elementwise ops,
// generators and gathers: the output shape; reductions and scans: the input
// shape; scatters: the values shape) and whose reductions and scans share one
// axis runs as ONE loop nest. With reductions or scans, `sweep_axis` is their
// axis: it becomes the innermost loop and runs sequentially from index 0, so
// each reduction and scan combines in ref's order; the other axes run
// outside it (the first of them in parallel). A reduction keeps an
// accumulator per outer index and writes it after the sweep (its output is a
// view slot with stride 0 along the sweep axis, marked exclusive); a scan
// writes its accumulator at every index. Gathers read, scatters write an
// indexed slot; an index out of range is recorded in the statement's error
// slot and the element is skipped (a gather yields 0).

// True if one fused loop nest runs the block: its non-control instructions
// share an iteration shape, and its reductions and scans one axis.
bool is_fused_block(std::span<const Instruction> batch, std::span<const uint32_t> block);

// The shape a (non-control) instruction iterates over (fusion/README.md).
const Dims& iteration_shape(const Instruction& instr);

// Lowers such a block. Contraction as in lower_block; a base that a gather
// or scatter indexes is never contracted.
LoweredBlock lower_fused_block(std::span<const Instruction> batch, std::span<const uint32_t> block);

// Launch arguments of a fused block: the layout of pack_args, then per
// indexed slot j at fused_indexed_arg_index(kernel, j): offset, number of
// elements, rank sizes, rank strides. Pointers: the view slots, then the
// indexed slots, then (if kernel.errors) an int64 array of 2 * errors
// words, per error slot the smallest flat loop position of a bad index
// (INT64_MAX: none) and that index.
std::vector<int64_t> pack_fused_args(const LoweredBlock& b, bool parallel);
int64_t fused_indexed_arg_index(const LoopKernel& k, int slot);

}  // namespace arrvm::codegen
