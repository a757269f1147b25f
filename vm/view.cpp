#include "vm/view.hpp"

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdlib>
#include <numeric>

#include "vm/error.hpp"

namespace arrvm {

Dims::Dims(std::initializer_list<int64_t> v) {
  for (int64_t x : v) push_back(x);
}

void Dims::rank_overflow() {
  throw Error("rank exceeds the maximum of " + std::to_string(kMaxRank));
}

Dims Dims::without(int axis) const {
  Dims r;
  for (int i = 0; i < rank_; ++i) {
    if (i != axis) r.push_back(d_[i]);
  }
  return r;
}

std::string to_string(const Dims& d) {
  std::string s = "[";
  for (int i = 0; i < d.size(); ++i) {
    if (i) s += ",";
    s += std::to_string(d[i]);
  }
  return s + "]";
}

View make_view(BaseId base, int64_t offset, const Dims& shape, const Dims& stride) {
  View v;
  v.base = base;
  v.offset = offset;
  v.shape = shape;
  v.stride = stride;
  return v;
}

// (Saturating: a view that validation has not seen, such as a control
// instruction's, may reach past int64; its range is then clamped, which only
// widens it: the safe side for every caller.)
bool element_range(const View& v, int64_t* lo, int64_t* hi) {
  int64_t a = v.offset, b = v.offset;
  for (int i = 0; i < v.rank(); ++i) {
    if (v.shape[i] == 0) return false;
    int64_t span = 0;
    if (__builtin_mul_overflow(v.shape[i] - 1, v.stride[i], &span)) {
      span = (v.stride[i] < 0) != (v.shape[i] - 1 < 0) ? INT64_MIN : INT64_MAX;
    }
    if (span < 0) {
      if (__builtin_add_overflow(a, span, &a)) a = INT64_MIN;
    } else {
      if (__builtin_add_overflow(b, span, &b)) b = INT64_MAX;
    }
  }
  *lo = a;
  *hi = b;
  return true;
}

bool same_elements(const View& a, const View& b) {
  if (a.base != b.base || a.offset != b.offset || a.shape != b.shape) return false;
  for (int i = 0; i < a.rank(); ++i) {
    if (a.shape[i] > 1 && a.stride[i] != b.stride[i]) return false;
  }
  return true;
}

namespace {

// An exact answer for two views whose axes lie on one grid of strides: each
// stride a multiple of the next smaller one, and no view wrapping past the
// next larger (row and column slices of one matrix, stencil windows, LU's
// trailing blocks). An element's position, in units of the smallest stride,
// is then a mixed-radix number whose digits are the view's start digits
// plus its indices, so two views share an element exactly when their boxes
// of digits meet on every axis. False (nothing decided) for views that are
// not so: exact_overlap decides those. (Graph::build_dependencies tests
// every access against the earlier ones on its base: LU's 4000-instruction
// batch spent 15% of a cold run in exact_overlap.)
bool grid_overlap(const View& a, const View& b, bool* overlap) {
  struct Axis {
    int64_t stride;
    int64_t extent[2];
  };
  std::array<Axis, 2 * kMaxRank> axes;
  int n = 0;
  int64_t off[2] = {a.offset, b.offset};
  const View* views[2] = {&a, &b};
  for (int w = 0; w < 2; ++w) {
    const View& v = *views[w];
    for (int k = 0; k < v.rank(); ++k) {
      const int64_t e = v.shape[k];
      int64_t s = v.stride[k];
      if (e <= 1 || s == 0) continue;  // (one element along it)
      if (s < 0) {                     // the same elements, walked forward
        int64_t back = 0;
        if (__builtin_mul_overflow(e - 1, s, &back) || __builtin_add_overflow(off[w], back, &off[w]) ||
            s == INT64_MIN)
          return false;
        s = -s;
      }
      int found = -1;
      for (int j = 0; j < n && found < 0; ++j) {
        if (axes[j].stride == s) found = j;
      }
      if (found < 0) {
        axes[n] = Axis{s, {1, 1}};
        found = n++;
      }
      if (axes[found].extent[w] != 1) return false;  // two axes of one view on one stride
      axes[found].extent[w] = e;
    }
  }
  if (off[0] < 0 || off[1] < 0) return false;
  if (n == 0) {
    *overlap = off[0] == off[1];
    return true;
  }
  std::sort(axes.begin(), axes.begin() + n, [](const Axis& x, const Axis& y) { return x.stride > y.stride; });
  for (int k = 1; k < n; ++k) {
    if (axes[k - 1].stride % axes[k].stride != 0) return false;  // not one grid
  }
  const int64_t unit = axes[n - 1].stride;  // (every stride a multiple of it)
  if (off[0] % unit != off[1] % unit) {
    *overlap = false;
    return true;
  }
  int64_t q[2] = {off[0] / unit, off[1] / unit};
  // Digits from the smallest stride up: once the axes below do not wrap, a
  // box that misses on this axis settles it.
  for (int k = n - 1; k >= 0; --k) {
    int64_t d[2] = {q[0], q[1]};
    if (k > 0) {
      const int64_t radix = axes[k - 1].stride / axes[k].stride;
      for (int w = 0; w < 2; ++w) {
        d[w] = q[w] % radix;
        q[w] /= radix;
        if (d[w] + axes[k].extent[w] - 1 >= radix) return false;  // wraps into the next digit
      }
    }
    if (d[0] + axes[k].extent[0] - 1 < d[1] || d[1] + axes[k].extent[1] - 1 < d[0]) {
      *overlap = false;
      return true;
    }
  }
  *overlap = true;
  return true;
}

}  // namespace

bool may_overlap(const View& a, const View& b) {
  if (a.base != b.base) return false;
  int64_t alo, ahi, blo, bhi;
  if (!element_range(a, &alo, &ahi) || !element_range(b, &blo, &bhi)) return false;
  if (ahi < blo || bhi < alo) return false;
  // Every element of a is a.offset + sum(i_k * s_k): two elements can only
  // coincide if the gcd of all strides (of axes that move) divides the offset
  // difference. This separates interleaved views such as x[0::2] and x[1::2].
  int64_t g = 0;
  for (const View* v : {&a, &b}) {
    for (int i = 0; i < v->rank(); ++i) {
      if (v->shape[i] > 1) g = std::gcd(g, std::llabs(v->stride[i]));
    }
  }
  if (g == 0) return a.offset == b.offset;
  if ((a.offset - b.offset) % g != 0) return false;
  if (same_elements(a, b)) return true;
  bool grid = false;
  if (grid_overlap(a, b, &grid)) return grid;
  return exact_overlap(a, b);
}

bool is_injective(const View& v) {
  if (v.nelem() <= 1) return true;
  for (int i = 0; i < v.rank(); ++i) {
    if (v.shape[i] > 1 && v.stride[i] == 0) return false;
  }
  // Sufficient condition (true for every view NumPy-style slicing produces):
  // sorted by |stride|, each axis steps past everything the smaller ones reach.
  std::array<int, kMaxRank> order{};
  int n = 0;
  for (int i = 0; i < v.rank(); ++i) {
    if (v.shape[i] > 1) order[n++] = i;
  }
  for (int i = 1; i < n; ++i) {
    for (int j = i; j > 0 && std::llabs(v.stride[order[j]]) < std::llabs(v.stride[order[j - 1]]); --j) {
      std::swap(order[j], order[j - 1]);
    }
  }
  int64_t reach = 0;  // largest distance covered by the smaller axes
  for (int k = 0; k < n; ++k) {
    const int ax = order[k];
    if (std::llabs(v.stride[ax]) <= reach) return exact_injective(v);
    reach += (v.shape[ax] - 1) * std::llabs(v.stride[ax]);
  }
  return true;
}

bool broadcast_to(const View& v, const Dims& shape, View* out) {
  if (v.rank() > shape.size()) return false;
  View r = v;
  r.shape = shape;
  r.stride = Dims::filled(shape.size(), 0);
  const int lead = shape.size() - v.rank();
  for (int i = 0; i < v.rank(); ++i) {
    const int64_t n = v.shape[i];
    if (n == shape[lead + i]) {
      r.stride[lead + i] = (n == 1) ? 0 : v.stride[i];
    } else if (n != 1) {
      return false;
    }
  }
  *out = r;
  return true;
}

std::string to_string(const View& v) {
  return "b" + std::to_string(v.base) + "[off=" + std::to_string(v.offset) + " shape=" + to_string(v.shape) +
         " stride=" + to_string(v.stride) + "]";
}

}  // namespace arrvm
