// Block distribution of base arrays over MPI ranks, and the index arithmetic
// the mpi backend plans with: which iteration points of a view touch the
// elements a rank owns (as a list of boxes), and which element range a part
// of a view touches. Pure functions of views and integers: no MPI here, so
// they are unit-tested without mpirun (tests/test_mpi_distribution.cpp).
#pragma once

#include <cstdint>
#include <vector>

#include "vm/view.hpp"

namespace arrvm::mpi {

// Rank r owns the flat element range [bounds[r], bounds[r+1]) of a base.
// Boundaries are non-decreasing, bounds[0] = 0, bounds[P] = nelem. The
// default is the even split (bounds[r] = nelem*r/P); a base first written
// from a view of another base takes that view's boundaries (aligned()).
struct Distribution {
  std::vector<int64_t> bounds;

  static Distribution even(int64_t nelem, int ranks);
  int ranks() const { return static_cast<int>(bounds.size()) - 1; }
  int64_t lo(int r) const { return bounds[r]; }
  int64_t hi(int r) const { return bounds[r + 1]; }
  int64_t nelem() const { return bounds.back(); }
  int owner(int64_t element) const;  // the rank owning element (0 <= element < nelem)
};

// A rectangular part of a view's iteration space: start and count per axis.
struct Box {
  Dims start, count;
  int64_t nelem() const { return count.product(); }
};

// The whole iteration space of `shape` as one box.
Box full_box(const Dims& shape);

// The view restricted to `box` (same base; offset moved to the box's start).
View sub_view(const View& v, const Box& box);

// The box without axis `axis` (a reduction's output part).
Box box_without(const Box& box, int axis);

// A row nest or row program (vm/row_nest.hpp) runs by rows: rank q takes
// rows [bounds[q], bounds[q+1]) of its m rows. Those whose first element
// in `anchor` (a view whose axis 0 has the m rows) q owns under `d`, when
// the rows ascend in memory; else the even split of the rows.
std::vector<int64_t> row_bounds(const View& anchor, const Distribution& d, int ranks);

// Rows [r0, r1) of the iteration space `shape` (axis 0 the rows).
Box row_box(const Dims& shape, int64_t r0, int64_t r1);

// Boxes covering exactly the iteration points of `v` whose element lies in
// [lo, hi): disjoint, in a deterministic order. A row-major view gives at
// most 2*rank-1 boxes; views whose inner axes interleave with their outer
// ones (transposes) give one box per partly owned outer index.
// Cost: O(number of boxes * rank), plus O(outer extent) per partly owned row.
std::vector<Box> owned_boxes(const View& v, int64_t lo, int64_t hi);

// Whether the element offset of `v` never decreases along its row-major
// iteration order (all strides >= 0 and every outer stride spans its inner axes).
bool is_monotone(const View& v);

// The boundaries for a base of `nelem` elements written row-major from the
// monotone view `v` (same number of elements) of a base distributed as `d`:
// element j goes to the rank owning v's j-th element, so an elementwise
// instruction between the two needs no communication.
Distribution aligned(const View& v, const Distribution& d);

// Element range [lo, hi] (inclusive) of v restricted to box; false if empty.
bool box_range(const View& v, const Box& box, int64_t* lo, int64_t* hi);

// The row-major element offsets of `v` restricted to `box`, visited in order.
template <typename F>
void for_each_element(const View& v, const Box& box, F&& f) {
  const int r = v.rank();
  if (box.nelem() == 0) return;
  int64_t idx[kMaxRank] = {};
  int64_t off = v.offset;
  for (int k = 0; k < r; ++k) off += box.start[k] * v.stride[k];
  if (r == 0) {
    f(off);
    return;
  }
  for (;;) {
    f(off);
    int k = r - 1;
    for (; k >= 0; --k) {
      if (++idx[k] < box.count[k]) {
        off += v.stride[k];
        break;
      }
      off -= (box.count[k] - 1) * v.stride[k];
      idx[k] = 0;
    }
    if (k < 0) return;
  }
}

}  // namespace arrvm::mpi
