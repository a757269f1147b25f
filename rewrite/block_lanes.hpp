// Kernels that do not change with the trip count: the lanes pass (a
// Partition pass). Rule: a fused block holding a run of independent lanes
// of one shape is cut into chunks of a fixed set of lane counts. A fused
// block is often such a run: Gram-Schmidt's
// `for c in range(k + 1, n): R[k, c] = dot(Q[:, k], Q[:, c])` fuses its
// n - k - 1 dot products into one block, a different kernel for every k
// (129 kernels compiled in the first call of a 14 ms computation). Each block with such a run is split, in
// program order, into chunks of lanes from a fixed set of sizes (kMaxLanes, then the binary digits of the
// rest: 8, 4, 2, 1), with the instructions before and after the run as chunks of their own. Every chunk of
// one lane shape is then one of four kernels whatever the trip count, and chunks of equal size hit the kernel
// cache (the lowering keeps sizes, offsets and bases out of the kernel: backends/loop_ir.hpp).
//
// Lanes are found by the instructions' structure alone (opcode, axis,
// dtypes, shapes, strides, which operands are constants: not bases, offsets
// or values): the longest run of a block that repeats with some period of
// at most kMaxPeriod instructions, at least kMinLanes times. A split is made
// only where no array created and freed in the block (a temporary the
// kernel contracts) is used on both sides, so no temporary is stored that
// was not; what a chunk shares with the others (Q[:, k]) is read once per
// chunk instead of once per block. Legal as block_bound's splits are: a
// part of a fusible block is fusible, and the parts run in program order
// where the block ran. A row program (vm/row_nest.hpp) is left whole.
#pragma once

#include <cstddef>
#include <span>

#include "vm/instruction.hpp"
#include "vm/partition.hpp"

namespace arrvm {

inline constexpr std::size_t kMaxLanes = 8;    // lanes in one chunk, at most
inline constexpr std::size_t kMaxPeriod = 64;  // instructions in one lane, at most
inline constexpr std::size_t kMinLanes = 2;    // lanes in a run, at least

// What two instructions of two lanes share: everything but bases, offsets
// and constant values (a hash of opcode, axis, dtypes, shapes, strides of
// axes longer than one, and which operands are constants).
uint64_t lane_structure(const Instruction& in);

// Splits the blocks of `partition` that hold a run of lanes whose count is
// not already a power of two of at most kMaxLanes; returns how many blocks
// were split.
std::size_t split_lanes(std::span<const Instruction> batch, Partition* partition);

}  // namespace arrvm
