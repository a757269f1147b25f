// Fills of a diagonal or a column fold into their array's full shape: the
// fold-fills pass. Rule: a constant written into a strided line of a matrix
// the previous instruction computed whole becomes a `where` over the matrix.
// NumPy code writes a constant into a strided line of a matrix that the
// previous instruction computed whole (`diagonal(f)[:] = 0.0`):
//
//   f = G * m[:, None] * d / r3     (elementwise, writes all of f)
//   diagonal(f)[:] = 0.0            (identity: n elements, stride n + 1)
//   s = f.sum(axis=0); free f
//
// The fill has another shape than f's producer and its readers, so no fuser
// may put it in their block, and being between them in the dependency order
// it keeps them apart too: f is stored, then read again. The pass rewrites
// the fill as an elementwise instruction over the producer's output view W
// (an n0 x n1 row-major matrix):
//
//   w = where(hit, c, w)   with  hit[i, j] = (j == b + (i - a) d) and a <= i < a + L
//
// where the fill's view, normalized to a positive stride, starts at flat
// element a n1 + b of W, has stride n1 + d (|d| < n1: one element per row,
// so the hit of row i is column b + (i - a) d) and L elements. `hit` is
// computed from a `range` of max(n0, n1) int64 read as a column (i) and as a
// row (j): a handful of integer operations per element, which every fuser
// puts in the producer's block, and then f is contracted or at least not
// read twice. Exact: every element of the fill's view gets c converted to
// W's dtype as `identity` converts it, every other element of W is written
// with its own value, and W is written whole by the instruction just before
// (nothing reads or writes it in between), so no value changes.
//
// When: the fill is `identity V <- constant` with V 1-D, the last earlier
// instruction touching V's base is elementwise and writes all of W, rank 2
// row-major, with V inside W as above. Anything else (a fill of a vector,
// of a matrix made in an earlier batch, a stride of two or more rows) is left
// as it is: the rewrite costs a pass over W unless it joins W's producer.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "vm/instruction.hpp"

namespace arrvm {

// Rewrites `batch` (validated; `origin` per instruction) in place; returns
// how many fills were folded. `new_temp(dtype, nelem)` makes a base for the
// rewrite's temporaries (freed in the batch by the pass).
std::size_t fold_fills(std::vector<Instruction>& batch, std::vector<uint64_t>& origin,
                       const std::function<BaseId(DType, int64_t)>& new_temp);

}  // namespace arrvm
