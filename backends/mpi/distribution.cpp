#include "backends/mpi/distribution.hpp"

#include <algorithm>

#include "vm/error.hpp"

namespace arrvm::mpi {

namespace {

int64_t floor_div(int64_t a, int64_t b) {
  const int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

int64_t ceil_div(int64_t a, int64_t b) {
  return -floor_div(-a, b);
}

struct Interval {
  int64_t a = 0, b = -1;  // inclusive; empty when a > b
  bool empty() const { return a > b; }
};

// The i in [0, n) with A <= off + i*s <= B.
Interval indices_within(int64_t A, int64_t B, int64_t off, int64_t s, int64_t n) {
  Interval r;
  if (A > B || n <= 0) return r;
  if (s == 0) {
    if (A <= off && off <= B) r = {0, n - 1};
    return r;
  }
  if (s > 0) {
    r = {ceil_div(A - off, s), floor_div(B - off, s)};
  } else {
    r = {ceil_div(B - off, s), floor_div(A - off, s)};
  }
  r.a = std::max<int64_t>(r.a, 0);
  r.b = std::min<int64_t>(r.b, n - 1);
  return r;
}

void collect(const View& v, int axis, int64_t off, Box* cur, int64_t lo, int64_t hi, std::vector<Box>* out) {
  const int rank = v.rank();
  if (axis == rank) {
    if (lo <= off && off < hi) out->push_back(*cur);
    return;
  }
  int64_t imin = 0, imax = 0;  // element offsets spanned by the axes inside `axis`
  for (int k = axis + 1; k < rank; ++k) {
    const int64_t span = (v.shape[k] - 1) * v.stride[k];
    (span < 0 ? imin : imax) += span;
  }
  const int64_t n = v.shape[axis], s = v.stride[axis];
  const Interval some = indices_within(lo - imax, hi - 1 - imin, off, s, n);
  if (some.empty()) return;
  const Interval all = indices_within(lo - imin, hi - 1 - imax, off, s, n);
  auto partial = [&](int64_t a, int64_t b) {
    for (int64_t i = a; i <= b; ++i) {
      cur->start[axis] = i;
      cur->count[axis] = 1;
      collect(v, axis + 1, off + i * s, cur, lo, hi, out);
    }
  };
  if (all.empty()) {
    partial(some.a, some.b);
    return;
  }
  partial(some.a, all.a - 1);
  Box b = *cur;
  b.start[axis] = all.a;
  b.count[axis] = all.b - all.a + 1;
  for (int k = axis + 1; k < rank; ++k) {
    b.start[k] = 0;
    b.count[k] = v.shape[k];
  }
  out->push_back(b);
  partial(all.b + 1, some.b);
}

// The element offset of the j-th (row-major) iteration point of v.
int64_t element_at(const View& v, int64_t j) {
  int64_t off = v.offset;
  for (int k = v.rank() - 1; k >= 0; --k) {
    const int64_t n = v.shape[k];
    off += (j % n) * v.stride[k];
    j /= n;
  }
  return off;
}

}  // namespace

Distribution Distribution::even(int64_t nelem, int ranks) {
  Distribution d;
  d.bounds.resize(ranks + 1);
  for (int r = 0; r <= ranks; ++r) {
    // nelem * r / ranks without overflow for any nelem < 2^62.
    d.bounds[r] = (nelem / ranks) * r + (nelem % ranks) * r / ranks;
  }
  return d;
}

int Distribution::owner(int64_t element) const {
  ARRVM_ASSERT(element >= 0 && element < nelem());
  const auto it = std::upper_bound(bounds.begin(), bounds.end(), element);
  return static_cast<int>(it - bounds.begin()) - 1;
}

Box full_box(const Dims& shape) {
  Box b;
  b.start = Dims::filled(shape.size(), 0);
  b.count = shape;
  return b;
}

View sub_view(const View& v, const Box& box) {
  View s = v;
  for (int k = 0; k < v.rank(); ++k) s.offset += box.start[k] * v.stride[k];
  s.shape = box.count;
  return s;
}

Box box_without(const Box& box, int axis) {
  Box b;
  b.start = box.start.without(axis);
  b.count = box.count.without(axis);
  return b;
}

std::vector<int64_t> row_bounds(const View& anchor, const Distribution& d, int ranks) {
  ARRVM_ASSERT(anchor.rank() >= 1 && ranks >= 1);
  const int64_t m = anchor.shape[0];
  std::vector<int64_t> bounds(static_cast<std::size_t>(ranks) + 1);
  const bool ascending = anchor.stride[0] > 0 && anchor.nelem() > 0 && d.ranks() == ranks;
  for (int q = 0; q <= ranks; ++q) {
    if (!ascending) {
      bounds[q] = m * q / ranks;
      continue;
    }
    // The first row whose first element is at or past rank q's first element.
    int64_t lo = 0, hi = m;
    while (lo < hi) {
      const int64_t r = lo + (hi - lo) / 2;
      if (anchor.offset + r * anchor.stride[0] >= d.lo(q)) {
        hi = r;
      } else {
        lo = r + 1;
      }
    }
    bounds[q] = q == 0 ? 0 : (q == ranks ? m : lo);
  }
  return bounds;
}

Box row_box(const Dims& shape, int64_t r0, int64_t r1) {
  ARRVM_ASSERT(shape.size() >= 1 && 0 <= r0 && r0 <= r1 && r1 <= shape[0]);
  Box b = full_box(shape);
  b.start[0] = r0;
  b.count[0] = r1 - r0;
  return b;
}

std::vector<Box> owned_boxes(const View& v, int64_t lo, int64_t hi) {
  std::vector<Box> out;
  if (lo >= hi || v.nelem() == 0) return out;
  Box cur = full_box(v.shape);
  collect(v, 0, v.offset, &cur, lo, hi, &out);
  return out;
}

bool is_monotone(const View& v) {
  if (v.nelem() == 0) return true;
  int64_t inner = 0;  // element offsets spanned by the axes inside k
  for (int k = v.rank() - 1; k >= 0; --k) {
    if (v.shape[k] == 1) continue;
    if (v.stride[k] < 0 || v.stride[k] < inner) return false;
    inner += (v.shape[k] - 1) * v.stride[k];
  }
  return true;
}

Distribution aligned(const View& v, const Distribution& d) {
  ARRVM_ASSERT(is_monotone(v));
  const int P = d.ranks();
  const int64_t n = v.nelem();
  Distribution a;
  a.bounds.assign(P + 1, 0);
  a.bounds[P] = n;
  for (int r = 1; r < P; ++r) {
    int64_t first = 0, last = n;  // the least j with element_at(j) >= d.lo(r), or n
    while (first < last) {
      const int64_t mid = first + (last - first) / 2;
      if (element_at(v, mid) >= d.lo(r)) {
        last = mid;
      } else {
        first = mid + 1;
      }
    }
    a.bounds[r] = std::max(first, a.bounds[r - 1]);
  }
  return a;
}

bool box_range(const View& v, const Box& box, int64_t* lo, int64_t* hi) {
  return element_range(sub_view(v, box), lo, hi);
}

}  // namespace arrvm::mpi
