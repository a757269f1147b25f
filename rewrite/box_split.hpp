// An in-place elementwise instruction over a whole array, followed by one
// over a box of its first axis, splits at the box: the split-boxes pass.
// NumPy code updates an array whole and then part of it:
//
//   F *= (1.0 - omega)        (19, n, n, n)
//   F += omega * FEQ          (19, n, n, n)
//   F[1:] *= BOUNDi           (18, n, n, n)
//   F[1:] += BB[1:]           (18, n, n, n)
//
// Fusion needs one iteration shape per block, so the whole-array updates
// and the box updates are two passes over F. The pass splits each
// whole-array update into the box's piece, first, and the rest (rows
// [0, a) and [b, n) of the first axis), so the box pieces of all four share
// a shape and may share a block: one pass over F[1:] and a small one over
// F[0]. Exact: an elementwise instruction whose inputs on its output's base
// are its output view itself computes each element from that element alone
// (no other element read or written), so running it as disjoint pieces in
// any order gives the same values; the pieces are executed back to back,
// where it stood.
//
// When: instruction I is elementwise (not a generator: their values depend
// on the flat index), writes view W with first-axis stride s != 0 and
// length >= 2, and every input view on W's base is W; the next instruction
// touching W's base is elementwise and writes W's rows [a, b) (same base,
// dtype, strides, other axes; offset W.offset + a s), or is itself split at
// that box (so a chain of updates splits from the last back). Nothing else
// changes: the pieces cost a launch more, and win only where a fuser puts
// the box pieces together.
//
// The reader rule: such an instruction I (reading and writing no temporary
// the batch frees) that reads a view V of its output's shape whose base the previous
// instruction touching it wrote only rows [a, b) of (an elementwise write
// of a box of V) splits at rows [a, b) too, so that `T[:] = F` after
// `F[1:] += BB[1:]` reads F[1:] in the kernel that wrote it.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "vm/instruction.hpp"

namespace arrvm {

// Rewrites `batch` (validated; `origin` per instruction) in place; returns
// how many instructions were split. `new_temp(dtype, nelem)` makes a base for
// a renamed temporary's piece (freed in the batch by the pass).
std::size_t split_boxes(std::vector<Instruction>& batch, std::vector<uint64_t>& origin,
                        const std::function<BaseId(DType, int64_t)>& new_temp);

}  // namespace arrvm
