// A fill of a stack of planes splits at the planes that the next
// instructions update one at a time: the split-fills pass. NumPy code makes
// a stacked array of zeros and then accumulates into it plane by plane:
//
//   BB = np.zeros(F.shape)          (19, n, n, n)
//   for q in range(1, 19):
//       BB[OPP[q]] += T[q]          (n, n, n) each
//
// Fusion needs one iteration shape per block, so the fill is a pass of its
// own that writes all of BB, and every `+=` then reads its plane of zeros
// back from memory. The pass splits the fill into one piece per plane that
// such an update claims, and one piece per run of the other planes, in
// place of the fill. Exact: a fill writes one constant into every element
// of its view and reads nothing, so disjoint pieces that cover the view,
// run back to back where it stood, write the same values.
//
// A claimed piece then goes into its claimer where it can (folded): when
// the claimer is elementwise, writes all of the plane, touches the fill's
// base through that plane's view only, and the constant is of W's dtype,
// the claimer reads the constant in place of the plane (`BB[p] = 0 + T[q]`)
// and the piece is dropped. Exact: the claimer is the first instruction
// after the fill to touch the plane, so every element it reads there holds
// the constant, and it writes every element of the plane, so nothing later
// can tell the piece was never run. (A claimer that would read constants
// only keeps its piece.) Otherwise the piece has its claimer's shape and
// plane, and a fuser puts them in one block.
//
// When: the fill is `identity W <- constant` with W of rank 2 or more and a
// first axis of k >= 2 planes with a nonzero stride. Plane j of W is the view
// of W's base at offset W.offset + j * stride[0] with W's other axes (shape
// and strides, a stride of an axis of length 1 ignored). Walking the
// instructions after the fill that touch W's base, in order: one that
// touches it only through planes of W claims those of them not claimed
// yet; the walk stops at the first one that touches it otherwise (any other
// view, a free, a sync) and when every plane is claimed. At least one plane
// claimed: the fill splits. The pieces cost launches only for the runs of
// unclaimed planes (at most one more than the claimed ones); each claimed
// piece saves its plane's pass of the fill and the claimer's read of it.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "vm/instruction.hpp"

namespace arrvm {

// What the pass needs of its caller: the size of a base the VM holds (-1
// for one the batch frees: the pass reads its free's), and the backend's
// Backend::leave_unfilled.
struct FillSplitEnv {
  std::function<int64_t(BaseId)> live_nelem;
  std::function<void(BaseId)> leave_unfilled;
};

// Rewrites `batch` (validated; `origin` per instruction) in place; returns
// how many fills were split. A split fill that is the batch's first
// instruction touching its base and writes every element of it (distinct
// elements, as many as the base has) has its base left unfilled: its
// pieces and folds write each element before anything reads it. Without
// that, a backend that allocates a base at its first write and zero-fills
// it when that write is partial would fill it whole before the first
// piece: a pass the split was meant to save.
std::size_t split_fills(std::vector<Instruction>& batch, std::vector<uint64_t>& origin,
                        const FillSplitEnv& env);

}  // namespace arrvm
