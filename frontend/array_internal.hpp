// Shared by the C++ array API's implementation files (frontend/array*.cpp):
// the base owner, access to Array's representation, and the helpers that turn
// array operations into instructions. Not part of the public API.
#pragma once

#include <initializer_list>
#include <memory>

#include "arrvm/arrvm.hpp"
#include "engine/runtime.hpp"
#include "vm/instruction.hpp"

namespace arrvm {
namespace detail {

// One base array. The last Array on it destroys it, which issues `free`.
struct BaseOwner {
  BaseOwner(std::shared_ptr<Runtime> runtime, DType dtype, int64_t nelem);
  // A base someone else owns (a C ABI handle, kept alive by `keeper`): never freed from here.
  BaseOwner(std::shared_ptr<Runtime> runtime, BaseId id, DType dtype, int64_t nelem,
            std::shared_ptr<void> keeper);
  ~BaseOwner();
  BaseOwner(const BaseOwner&) = delete;
  BaseOwner& operator=(const BaseOwner&) = delete;

  std::shared_ptr<Runtime> rt;
  BaseId id;
  DType dtype;
  int64_t nelem;
  std::shared_ptr<void> keeper;  // set: the base is owned elsewhere
};

struct ArrayAccess {
  static const std::shared_ptr<Runtime>& runtime_ptr(const Vm& vm) { return vm.rt_; }
  static Vm make_vm(std::shared_ptr<Runtime> rt) {
    Vm v;
    v.rt_ = std::move(rt);
    return v;
  }
  // The array's base; throws Error for an empty handle.
  static const BaseOwner& base(const Array& a);
  static const std::shared_ptr<BaseOwner>& base_ptr(const Array& a) { return a.base_; }
  static int64_t offset(const Array& a) { return a.offset_; }
  // Whether a's elements in row-major order are one run of its base:
  // offset, offset + *stride, offset + 2 * *stride, ... (a contiguous
  // block, a column, a reversed vector; Runtime::run_dense_now).
  static bool run(const Array& a, int64_t* stride) {
    int64_t step = 1, expect = 0;
    bool started = false;
    for (std::size_t d = a.shape_.size(); d-- > 0;) {
      const int64_t e = a.shape_[d];
      if (e == 1) continue;
      if (!started) {
        step = a.stride_[d];
        started = true;
      } else if (a.stride_[d] != expect) {
        return false;
      }
      expect = a.stride_[d] * e;
    }
    *stride = step;
    return true;
  }
  static View view(const Array& a);
  // view(a) written into `*v`, a default-constructed View (emit builds
  // operands in place in the instruction).
  static void view_into(const Array& a, View* v);
  // A view on a's base with another geometry (the caller keeps it in bounds).
  static Array rebased(const Array& a, int64_t offset, const Dims& shape, const Dims& stride);
  static Array make(std::shared_ptr<BaseOwner> base, int64_t offset, const Dims& shape, const Dims& stride);
};

}  // namespace detail

namespace frontend {

using detail::ArrayAccess;

inline View view_of(const Array& a) {
  return ArrayAccess::view(a);
}
inline Runtime& runtime_of(const Array& a) {
  return *ArrayAccess::base(a).rt;
}
inline const std::shared_ptr<Runtime>& runtime_ptr(const Array& a) {
  return ArrayAccess::base(a).rt;
}

Dims to_dims(const Shape& s);  // throws Error for a negative extent or past kMaxRank
Shape to_shape(const Dims& d);

// A new contiguous array (one new base) on `rt`.
Array new_array(const std::shared_ptr<Runtime>& rt, DType dtype, const Dims& shape);

// The runtime shared by both arrays; throws Error if they live on different VMs.
const std::shared_ptr<Runtime>& common_runtime(const Array& a, const Array& b);

// Issues one instruction (axis for reductions and scans, seed for random).
void issue(Runtime& rt, Opcode op, const View& out, std::initializer_list<Operand> in, int axis = 0,
           uint64_t seed = 0);

// The number as a constant of `dtype` (converted like the identity cast).
Scalar to_scalar(const HostScalar& s, DType dtype);

// Row-major with unit stride on every axis longer than one (any offset).
bool is_row_major(const View& v);

// `a` itself if it already has `dtype`, else a cast copy.
Array cast_to(const Array& a, DType dtype);

// A contiguous copy of `a` in `dtype` (one identity instruction).
Array copy_as(const Array& a, DType dtype);

// The NumPy broadcast of two shapes; throws Error naming both if impossible.
Dims broadcast_shapes(const Dims& a, const Dims& b, const char* what);

// Error "assignment destination is read-only" for a read-only view (Array::writeable).
void check_writeable(const Array& dst);
// Stores `s` (of the base's dtype) into element `at` of `a`'s base at once
// (Runtime::write_now), or returns false (array_host.cpp).
bool store_now(const Array& a, int64_t at, const Scalar& s);
// Writes `src` (broadcast, cast) into `dst`'s view, copying src first when the
// two overlap without being the same view.
void write_into(const Array& dst, const Array& src);
// The same at once without an instruction where Runtime::run_dense_now can
// (both views one run, src of dst's shape or 0-d, nothing pending);
// false, with nothing done, where it cannot.
bool write_now(const Array& dst, const Array& src);

// Axis in [-rank, rank) -> [0, rank); throws Error naming `what` otherwise.
int normalize_axis(int axis, int rank, const char* what);

}  // namespace frontend
}  // namespace arrvm
