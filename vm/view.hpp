// Views: a strided window (offset, shape, stride in elements) onto a base array.
#pragma once

#include <array>
#include <cstdint>
#include <initializer_list>
#include <string>

#include "vm/dtype.hpp"

namespace arrvm {

using BaseId = int64_t;
inline constexpr int kMaxRank = 8;

// A fixed-capacity list of dimensions (no heap: views are copied a lot).
class Dims {
 public:
  Dims() = default;
  Dims(std::initializer_list<int64_t> v);
  static Dims filled(int rank, int64_t value) {
    Dims d;
    for (int i = 0; i < rank; ++i) d.push_back(value);
    return d;
  }

  int size() const { return rank_; }
  bool empty() const { return rank_ == 0; }
  int64_t& operator[](int i) { return d_[i]; }
  int64_t operator[](int i) const { return d_[i]; }
  const int64_t* begin() const { return d_.data(); }
  const int64_t* end() const { return d_.data() + rank_; }
  int64_t* begin() { return d_.data(); }
  int64_t* end() { return d_.data() + rank_; }
  const int64_t* data() const { return d_.data(); }
  void push_back(int64_t v) {  // throws Error past kMaxRank
    if (rank_ >= kMaxRank) rank_overflow();
    d_[rank_++] = v;
  }
  Dims without(int axis) const;
  int64_t product() const {  // 1 for rank 0
    int64_t p = 1;
    for (int i = 0; i < rank_; ++i) p *= d_[i];
    return p;
  }
  bool operator==(const Dims& o) const {
    if (rank_ != o.rank_) return false;
    for (int i = 0; i < rank_; ++i) {
      if (d_[i] != o.d_[i]) return false;
    }
    return true;
  }
  bool operator!=(const Dims& o) const { return !(*this == o); }

 private:
  [[noreturn]] static void rank_overflow();

  // (Left uninitialized past rank_: every reader stops at rank_, and zeroing
  // the 64 bytes, a `rep stos` per Dims, was most of making a View.)
  std::array<int64_t, kMaxRank> d_;
  int rank_ = 0;
};

std::string to_string(const Dims& d);  // "[3,4]"

struct View {
  BaseId base = -1;
  DType dtype = DType::Float64;  // always the base's dtype (set by validation)
  int64_t offset = 0;
  Dims shape;
  Dims stride;

  int rank() const { return shape.size(); }
  int64_t nelem() const { return shape.product(); }
};

// A view from its parts (dtype is filled in by validation).
View make_view(BaseId base, int64_t offset, const Dims& shape, const Dims& stride);

// Row-major strides of `shape` (inline, as contiguous_view: both run for
// every instruction issued).
inline Dims row_major_strides(const Dims& shape) {
  Dims s = Dims::filled(shape.size(), 0);
  int64_t acc = 1;
  for (int i = shape.size() - 1; i >= 0; --i) {
    s[i] = acc;
    // Overflow only for a shape with a zero extent (a larger product is
    // rejected before), whose strides address nothing.
    if (__builtin_mul_overflow(acc, shape[i], &acc)) acc = 0;
  }
  return s;
}

// A row-major contiguous view of a whole base (offset 0).
inline View contiguous_view(BaseId base, DType dtype, const Dims& shape) {
  View v;
  v.base = base;
  v.dtype = dtype;
  v.shape = shape;
  v.stride = row_major_strides(shape);
  return v;
}

// Lowest and highest element offset the view touches; false if it is empty.
bool element_range(const View& v, int64_t* lo, int64_t* hi);

// Same offset, shape and stride on every axis longer than one.
bool same_elements(const View& a, const View& b);

// Whether two views share an element. Exact (vm/overlap.cpp): interleaved,
// transposed, broadcast and reversed views of one base that share no element
// do not overlap. Only a pathological pair whose search exceeds a work bound
// answers true without proof ("may"), the safe side for every caller.
bool may_overlap(const View& a, const View& b);

// True if no two indices of the view map to the same element (exact, with
// the same work bound: past it, false).
bool is_injective(const View& v);

// The searches behind the two tests above, without their fast paths.
bool exact_overlap(const View& a, const View& b);
bool exact_injective(const View& v);

// NumPy broadcasting of `v` to `shape` (right-aligned, size-1 or equal axes):
// the result has `shape` and stride 0 on broadcast axes. False if impossible.
bool broadcast_to(const View& v, const Dims& shape, View* out);

std::string to_string(const View& v);  // "b3[off=1 shape=[4] stride=[1]]"

}  // namespace arrvm
