// Bounded kernels: a fused block that would make a kernel of more than a
// limit of memory operands is split, in program order, into blocks under
// it. A block is one loop nest (backends/loop_ir.hpp) whose statements are
// cheap to compile when they work on a few arrays (an RK4 step of 4096
// statements over x, y and temporaries compiles in 0.45 s), but every view
// of an array that outlives the block is an operand with its own address
// arithmetic: a convolution written with loops over channels and offsets
// (`out[:, o] += w[o, c, dy, dx] * x[:, c, dy:, dx:]`) fused 1200 of them
// into kernels the C compiler took 5 s (256 statements) to over a minute
// over: a first call of 101 s. Parts of at most kMaxBlockViews such views
// compile in about half a second; the arrays a split leaves between two
// parts are stored once more.
#pragma once

#include <cstddef>
#include <span>

#include "vm/instruction.hpp"
#include "vm/partition.hpp"

namespace arrvm {

// Distinct views of bases the block does not free (the kernel's memory
// operands), at most, in one block.
inline constexpr std::size_t kMaxBlockViews = 48;

// Splits every block of `partition` with more than `limit` such views into
// consecutive blocks of at most `limit` (each block's instructions taken in
// batch order, which is a legal order for any part of it); returns how
// many blocks were split. Legal: a part of a fusible block is fusible, and
// the parts run in order where the block ran. A row program
// (vm/row_nest.hpp) is left whole: a part of it may be no kernel.
std::size_t bound_blocks(std::span<const Instruction> batch, Partition* partition, std::size_t limit);

}  // namespace arrvm
