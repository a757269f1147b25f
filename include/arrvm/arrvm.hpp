// The C++ array API: NumPy-like arrays whose operations are never computed
// here. Each operation becomes bytecode instructions issued to a VM, which
// batches, fuses and runs them when data is read back (to_vector, item), on
// Vm::flush(), or when its batch is full.
//
//   arrvm::Vm vm({{"backend", "ref"}});
//   auto a = arrvm::Array::arange(6, arrvm::DType::Float64, vm).reshape({2, 3});
//   auto b = arrvm::sqrt(a * 2.0 + 1.0).sum(1);   // nothing computed yet
//   std::vector<double> v = b.to_vector<double>();  // runs the batch
//
// Semantics follow NumPy 2 (NEP 50): broadcasting, type promotion (C++
// numbers are "weak" like NumPy 2's Python scalars: int32_array + 1 stays
// int32, float32_array + 0.5 stays float32, whatever the value; the Python
// package instead follows NumPy 1.24, whose Python scalars also promote by
// value, as its users' NumPy does),
// `/` is true division, `%` is NumPy's remainder, sum/prod/cumsum/cumprod
// accumulate in int64/uint64 for bools and integers.
//
// Handles: an Array is a view (offset, shape, strides) on a base array and
// shares ownership of that base; copying an Array shares the view (like a
// NumPy view, not a copy); the last handle on a base frees it. Assignment:
//   a = b;            // a is an lvalue: rebinds the handle a to b's view
//   a(0) = b;         // the left side is a temporary view: writes b into it
//   a(Slice(1, {})) = a(Slice({}, -1));  // NumPy a[1:] = a[:-1] (overlap-safe)
//   auto row = a(0); row = b;          // rebinds row! use row.assign(b)
//   a += 1;           // in-place: writes into a's view (all handles see it)
//
// Errors are thrown as arrvm::Error (arrvm/types.hpp). Not thread-safe: one
// thread at a time uses a Vm and its arrays.
#pragma once

#include <cmath>
#include <complex>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <iosfwd>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "arrvm/export.h"
#include "arrvm/types.hpp"
#include "arrvm/version.h"

namespace arrvm {

class Runtime;  // the VM (internal; engine/runtime.hpp)
class Array;

namespace detail {
struct BaseOwner;    // one base array of a Runtime; frees it when destroyed
struct ArrayAccess;  // the implementation's door into Array
}  // namespace detail

using Shape = std::vector<int64_t>;

// For bindings that own the process's signals (Python): `check` returns true
// when the user asked to stop (Ctrl-C). The VM calls it between the kernels
// of a flush and while a compiler runs, on the flushing thread; when it
// fires, the flush stops, what it did not compute is poisoned, and the call
// that flushed throws InterruptedError. nullptr removes it.
ARRVM_API void set_interrupt_check(bool (*check)());

// A handle on one VM (shared: copies refer to the same VM).
class ARRVM_API Vm {
 public:
  using Option = std::pair<std::string, std::string>;
  using Options = std::vector<Option>;

  // A new VM configured from the ARRVM_* environment variables, then
  // `options` applied by short name, e.g. Vm({{"backend", "ref"}, {"fuser", "greedy"}}).
  // Throws Error for an unknown option or a bad value.
  explicit Vm(const Options& options);
  // (So that Vm({{"backend", "ref"}}) with one option is not ambiguous.)
  explicit Vm(std::initializer_list<Option> options) : Vm(Options(options)) {}

  // The process-wide VM, created from the environment on first use.
  static Vm& default_vm();

  // Wraps an existing Runtime (e.g. one shared with the C API).
  static Vm from_runtime(std::shared_ptr<Runtime> runtime);

  // Runs everything issued so far.
  void flush() const;

  // The IEEE floating-point exceptions that the work run since the last
  // call raised, as NumPy's errstate names them (bits: 1 divide by zero,
  // 2 overflow, 4 underflow, 8 invalid), cleared; `ops`, if given, gets the
  // names of that work's floating-point instructions (at most 8). Work runs
  // at a flush (or at once, for small arrays): flush() first to include
  // everything issued. The cpu and ref backends report them; opencl none.
  uint32_t take_fp_flags(std::vector<std::string>* ops = nullptr) const;
  // For bindings: `report` is called when such flags are pending at the end
  // of an operation that ran work (not of a free, so never in a destructor);
  // it may throw, and the operation then throws that. nullptr removes it.
  void set_fp_report(std::function<void()> report) const;

  // For bindings: the profile counters so far as JSON (ARRVM_PROFILE's
  // format); reporting the profile now as ARRVM_PROFILE says (once: the
  // VM's destruction then reports nothing); a configuration value by its
  // short name (as in Vm(options)), "" for an unknown name.
  std::string profile_json() const;
  void report_profile() const;
  std::string config_value(const std::string& key) const;

  Runtime& runtime() const { return *rt_; }
  bool operator==(const Vm& o) const { return rt_ == o.rt_; }
  bool operator!=(const Vm& o) const { return rt_ != o.rt_; }

 private:
  Vm() = default;
  std::shared_ptr<Runtime> rt_;
  friend struct detail::ArrayAccess;
};

// A NumPy slice start:stop:step; an omitted bound is std::nullopt (written {}):
// Slice(1, {}) is 1:, Slice({}, -1) is :-1, Slice({}, {}, -1) is ::-1.
struct Slice {
  std::optional<int64_t> start, stop, step;

  Slice() = default;
  Slice(std::optional<int64_t> start_, std::optional<int64_t> stop_ = std::nullopt,
        std::optional<int64_t> step_ = std::nullopt)
      : start(start_), stop(stop_), step(step_) {}
};

// One subscript: an integer (selects one element and drops the axis; negative
// counts from the end), a Slice (keeps the axis), NumPy's `None`
// (Index::new_axis(): inserts an axis of length 1) or `...`
// (Index::ellipsis(): as many `:` as the other subscripts leave; at most one).
class Index {
 public:
  Index(const Slice& s) : is_slice_(true), slice_(s) {}
  template <typename T, std::enable_if_t<std::is_integral_v<T>, int> = 0>
  Index(T i) : index_(static_cast<int64_t>(i)) {}
  static Index new_axis() {
    Index i(0);
    i.special_ = 1;
    return i;
  }
  static Index ellipsis() {
    Index i(0);
    i.special_ = 2;
    return i;
  }

  bool is_slice() const { return is_slice_; }
  bool is_new_axis() const { return special_ == 1; }
  bool is_ellipsis() const { return special_ == 2; }
  int64_t index() const { return index_; }
  const Slice& slice() const { return slice_; }

 private:
  bool is_slice_ = false;
  uint8_t special_ = 0;
  int64_t index_ = 0;
  Slice slice_;
};

// A C++ number used as an operand. Like a Python scalar in NumPy 2 it is
// "weak": it takes the array's dtype where that can hold its kind (an int
// with an int array, a float with a float array), otherwise int64 (an int
// with a bool array) or float64 (a float with an int or bool array).
class HostScalar {
 public:
  enum class Kind : uint8_t { Bool, Int, UInt, Float, Complex };

  template <typename T, std::enable_if_t<std::is_arithmetic_v<T>, int> = 0>
  HostScalar(T v) {
    if constexpr (std::is_same_v<T, bool>) {
      kind_ = Kind::Bool;
      i_ = v ? 1 : 0;
    } else if constexpr (std::is_floating_point_v<T>) {
      kind_ = Kind::Float;
      f_ = static_cast<double>(v);
    } else if constexpr (std::is_signed_v<T>) {
      kind_ = Kind::Int;
      i_ = static_cast<int64_t>(v);
    } else {
      kind_ = Kind::UInt;
      u_ = static_cast<uint64_t>(v);
    }
  }

  template <typename T>
  HostScalar(std::complex<T> v)
      : kind_(Kind::Complex), f_(static_cast<double>(v.real())), im_(static_cast<double>(v.imag())) {}

  Kind kind() const { return kind_; }
  int64_t as_int() const { return i_; }    // Bool and Int
  uint64_t as_uint() const { return u_; }  // UInt
  double as_double() const { return f_; }  // Float (Complex: the real part)
  double imag() const { return im_; }      // Complex

 private:
  Kind kind_ = Kind::Int;
  int64_t i_ = 0;
  uint64_t u_ = 0;
  double f_ = 0;
  double im_ = 0;
};

class ARRVM_API Array {
 public:
  // An empty handle (no base, no VM); using it throws Error, assigning to it rebinds.
  Array() = default;
  Array(const Array&) = default;
  Array(Array&&) noexcept = default;
  ~Array() = default;

  // Assigning to an lvalue Array rebinds the handle (like a Python name).
  Array& operator=(const Array&) & = default;
  Array& operator=(Array&&) & noexcept = default;
  // Assigning to a temporary (a(...) = b) writes into its view, as NumPy's a[...] = b.
  Array& operator=(const Array& src) &&;
  Array& operator=(Array&& src) &&;
  Array& operator=(HostScalar value) &&;

  // ---- factories (shape [] is a 0-d array holding one element) ----
  // Uninitialized contents (they read as 0; no instruction is issued).
  static Array empty(const Shape& shape, DType dtype = DType::Float64, const Vm& vm = Vm::default_vm());
  static Array zeros(const Shape& shape, DType dtype = DType::Float64, const Vm& vm = Vm::default_vm());
  static Array ones(const Shape& shape, DType dtype = DType::Float64, const Vm& vm = Vm::default_vm());
  static Array full(const Shape& shape, HostScalar value, DType dtype = DType::Float64,
                    const Vm& vm = Vm::default_vm());
  // 0, 1, ..., n-1.
  static Array arange(int64_t n, DType dtype = DType::Int64, const Vm& vm = Vm::default_vm());
  // start, start+step, ... while < stop (> stop for a negative step), NumPy's
  // length ceil((stop-start)/step). The default dtype is int64 if all three
  // are integers, else float64 (NumPy).
  template <typename A, typename B, typename C,
            std::enable_if_t<std::is_arithmetic_v<A> && std::is_arithmetic_v<B> && std::is_arithmetic_v<C>,
                             int> = 0>
  static Array arange(A start, B stop, C step, std::optional<DType> dtype = std::nullopt,
                      const Vm& vm = Vm::default_vm()) {
    if constexpr (std::is_integral_v<A> && std::is_integral_v<B> && std::is_integral_v<C>) {
      return arange_int(start, stop, step, dtype.value_or(DType::Int64), vm);
    } else {
      return arange_float(start, stop, step, dtype.value_or(DType::Float64), vm);
    }
  }
  template <typename A, typename B,
            std::enable_if_t<std::is_arithmetic_v<A> && std::is_arithmetic_v<B>, int> = 0>
  static Array arange(A start, B stop, std::optional<DType> dtype = std::nullopt,
                      const Vm& vm = Vm::default_vm()) {
    return arange(start, stop, 1, dtype, vm);
  }
  // float64 uniform in [0, 1): Philox-4x32-10 of the flat index under `seed`,
  // identical on every backend.
  static Array random_uniform(const Shape& shape, uint64_t seed, const Vm& vm = Vm::default_vm());
  // An array on the caller's memory `data` (row-major, product(shape)
  // elements of `dtype`), not copied, on the host backends (cpu, ref): what
  // the VM writes into the array is in `data` once it has run (after a read
  // or Vm::flush()). The caller must not write `data` while instructions on
  // the array may be pending (before a read or flush). `deleter(data)` runs
  // when the last array on it is gone and its `free` has run (empty: the
  // caller keeps ownership, and `data` must outlive the arrays). Bools must
  // be bytes; they are normalized to 0/1 in place. Device backends (opencl)
  // copy the contents once and run the deleter at once.
  static Array adopt(void* data, const Shape& shape, DType dtype, std::function<void(void*)> deleter,
                     const Vm& vm = Vm::default_vm());
  // A view of the caller's memory without copying: adopt() with no deleter.
  template <typename T>
  static Array view_of(T* data, const Shape& shape, const Vm& vm = Vm::default_vm()) {
    return adopt(static_cast<void*>(data), shape, dtype_of<T>(), nullptr, vm);
  }
  // Copies `data` (row-major, product(shape) elements) into a new array of T's dtype.
  template <typename T>
  static Array from_host(const T* data, const Shape& shape, const Vm& vm = Vm::default_vm());
  template <typename T>
  static Array from_host(const std::vector<T>& data, const Shape& shape, const Vm& vm = Vm::default_vm());
  template <typename T>
  static Array from_host(const std::vector<T>& data, const Vm& vm = Vm::default_vm());  // 1-D

  // ---- properties ----
  bool valid() const { return base_ != nullptr; }
  DType dtype() const;
  int ndim() const { return static_cast<int>(shape_.size()); }
  int64_t size() const;  // number of elements
  const Shape& shape() const { return shape_; }
  const Shape& strides() const { return stride_; }  // in elements (may be 0 or negative)
  int64_t offset() const { return offset_; }        // in elements, into the base
  int64_t base_id() const;
  int64_t base_size() const;   // elements in the base
  bool is_contiguous() const;  // row-major with unit stride (any offset)
  Vm vm() const;

  // ---- views (no copy; they share the base) ----
  // NumPy a[s0, s1, ...]: missing trailing subscripts select everything.
  Array slice(const std::vector<Slice>& slices) const;
  Array index(const std::vector<Index>& subscripts) const;
  // a(1, Slice(1, {}), -1): integers drop their axis.
  template <typename... Ix>
  Array operator()(const Ix&... ix) const {
    return index(std::vector<Index>{Index(ix)...});
  }
  // A view with the given shape (one entry may be -1) if this view is
  // contiguous, else a reshaped copy.
  Array reshape(const Shape& shape) const;
  Array ravel() const { return reshape({-1}); }
  Array transpose() const;                              // reverses the axes
  Array transpose(const std::vector<int>& axes) const;  // NumPy's permutation
  // A read-only-in-spirit view with stride 0 on broadcast axes (writing into
  // it is rejected by the VM, which requires outputs to be injective).
  Array broadcast_to(const Shape& shape) const;
  // A view of this view's base with the given offset, shape and strides (in
  // elements; NumPy's as_strided, and what setting `a.strides` makes): Error
  // "strides is not compatible with available memory" when an element would
  // lie outside the base. Writing into a view whose elements overlap is
  // rejected by the VM, as for broadcast views.
  Array strided(int64_t offset, const Shape& shape, const Shape& strides) const;

  // ---- copies ----
  Array copy() const;               // contiguous copy, same dtype
  Array astype(DType dtype) const;  // contiguous copy, cast like NumPy's astype

  // ---- read-only views (NumPy's flags.writeable) ----
  // A read-only view refuses writes (assign, in-place operators, `out=`,
  // put): Error "assignment destination is read-only", nothing issued.
  // Views taken from it later (index, reshape, transpose, ...) are read-only
  // too; copies are writable.
  bool writeable() const { return !readonly_; }
  void set_writeable(bool writeable) { readonly_ = !writeable; }

  // ---- writing into this view ----
  // Broadcasts `src` to this view's shape and casts it to this dtype. Safe
  // when `src` overlaps this view (the VM copies it first, only when they
  // share an element).
  void assign(const Array& src);
  void assign(HostScalar value);
  // In place: compute op(*this, rhs) and cast the result into this view,
  // under NumPy's 'same_kind' rule (Error for a float result into an int
  // array or a signed one into an unsigned array; the array is unchanged).
  Array& operator+=(const Array& b);
  Array& operator+=(HostScalar b);
  Array& operator-=(const Array& b);
  Array& operator-=(HostScalar b);
  Array& operator*=(const Array& b);
  Array& operator*=(HostScalar b);
  Array& operator/=(const Array& b);
  Array& operator/=(HostScalar b);
  Array& operator%=(const Array& b);
  Array& operator%=(HostScalar b);
  Array& operator&=(const Array& b);
  Array& operator&=(HostScalar b);
  Array& operator|=(const Array& b);
  Array& operator|=(HostScalar b);
  Array& operator^=(const Array& b);
  Array& operator^=(HostScalar b);
  Array& operator<<=(const Array& b);
  Array& operator<<=(HostScalar b);
  Array& operator>>=(const Array& b);
  Array& operator>>=(HostScalar b);

  // ---- reductions (axis may be negative; none: over all axes, a 0-d result) ----
  Array sum(std::optional<int> axis = std::nullopt) const;   // int64/uint64 for bool/ints
  Array prod(std::optional<int> axis = std::nullopt) const;  // likewise
  Array min(std::optional<int> axis = std::nullopt) const;   // an empty axis is an error
  Array max(std::optional<int> axis = std::nullopt) const;
  Array all(std::optional<int> axis = std::nullopt) const;   // bool
  Array any(std::optional<int> axis = std::nullopt) const;   // bool
  Array mean(std::optional<int> axis = std::nullopt) const;  // float64 for bool/ints
  // Inclusive scans; none: over the flattened array (a 1-D result).
  Array cumsum(std::optional<int> axis = std::nullopt) const;
  Array cumprod(std::optional<int> axis = std::nullopt) const;
  // Running minimum / maximum (NumPy's minimum.accumulate, maximum.accumulate:
  // the dtype kept, a NaN carried on).
  Array cummin(std::optional<int> axis = std::nullopt) const;
  Array cummax(std::optional<int> axis = std::nullopt) const;

  // ---- indexing by arrays (over the flattened, row-major view) ----
  // out[i...] = flat(self)[indices[i...]]; indices are cast to int64. NumPy's
  // take modes: Raise (negative ones count from the end; out of range is an
  // Error, raised at run time), Clip (each clamped into [0, size()): no
  // negative counting), Wrap (each modulo size()). Clip and Wrap of an
  // empty array by a non-empty index are an Error.
  enum class TakeMode { Raise, Clip, Wrap };
  Array take(const Array& indices, TakeMode mode = TakeMode::Raise) const;
  // take() for int64 indices the caller has read and found in [0, size())
  // (as NumPy checks them before it gathers): one gather that cannot fail
  // (the Clip gather, so the VM may compose it with other gathers; an index
  // the caller did not check is clamped).
  Array take_in_range(const Array& indices) const;
  // flat(self)[indices[i...]] = values[i...] (values cast to this dtype and
  // broadcast to the indices' shape). With repeated indices, which value lands
  // is unspecified.
  void put(const Array& indices, const Array& values);
  void put(const Array& indices, HostScalar value);

  // ---- reading back (runs what is pending) ----
  // The elements in row-major order; T must be the dtype's C++ type.
  template <typename T>
  std::vector<T> to_vector() const;
  // The one element of a size-1 array, converted to T as Python converts
  // NumPy's item(): int(x) truncates a float toward zero, bool(x) is x != 0,
  // float(x) rounds; a NaN, an infinity or a value outside T's range
  // converted to an integer type throws Error.
  template <typename T>
  T item() const;

  // A short description: "Array(float64, shape=[2,3], base=b4)".
  std::string describe() const;

  // ---- for bindings (the Python package) ----
  // Copies `bytes` (size() * dtype size) of host memory, row-major, into a new array.
  static Array from_buffer(const void* data, std::size_t bytes, DType dtype, const Shape& shape,
                           const Vm& vm = Vm::default_vm());
  // Runs what is pending and copies the elements, row-major, to `dst`
  // (`bytes` must be size() * dtype size).
  void copy_to_host(void* dst, std::size_t bytes) const;
  // Copies the element of a one-element array to `dst` (dtype size bytes)
  // at once, with no flush, and returns true, when nothing pending touches
  // its base (Runtime::read_now); false otherwise, nothing done.
  bool read_element_now(void* dst) const;
  // The same for the element at `index` (one integer per axis, negative
  // ones from the end): false also when an index is out of range.
  bool read_element_now(const int64_t* index, int n, void* dst) const;
  // Copies all elements, row-major, to `dst` (size() * dtype size bytes) at
  // once, with no flush, and returns true, when nothing pending touches the
  // base and the elements lie next to each other in it (one read) or along
  // one axis at a fixed step (a column); false otherwise, nothing done.
  bool read_elements_now(void* dst) const;
  // The same for elements [first, first + count) of a 1-D array (at its
  // step in the base); false also when the range is not inside the array.
  bool read_range_now(int64_t first, int64_t count, void* dst) const;
  // Sets the element at `index` to `value` (cast to the dtype) at once, with
  // no instruction, and returns true, when nothing pending touches its base
  // and it is writeable (Runtime::write_now); false otherwise, nothing done.
  bool write_element_now(const int64_t* index, int n, HostScalar value) const;
  // A number that changes whenever the array's base is written
  // (Runtime::version): equal numbers mean equal contents.
  uint64_t version() const;
  // Views: an axis of length 1 inserted at `axis` (in [-ndim-1, ndim]);
  // axes of length 1 removed (`axes` empty: all of them).
  Array expand_dims(int axis) const;
  Array squeeze(const std::vector<int>& axes = {}) const;
  // Runs what is pending up to a `sync` of this array's base (NumPy reads it
  // next); rethrows the error of a run-time failure that poisoned the base.
  void sync() const;
  // Moves this array's whole base (base_size() elements, row-major) into
  // the caller's memory `data`: runs what is pending, copies the base's
  // contents there, and makes `data` the base's memory from then on, as
  // adopt() does (what the VM writes into the base is in `data` after a
  // sync() or read; the caller must not write `data` while instructions on
  // the base may be pending; `deleter(data)` runs when the base is
  // released). Returns false on device backends (opencl), which keep their
  // memory: `data` then holds a copy (a snapshot) and the deleter has run.
  bool move_base_to_host(void* data, std::function<void(void*)> deleter) const;

 private:
  static Array arange_int(int64_t start, int64_t stop, int64_t step, DType dtype, const Vm& vm);
  static Array arange_float(double start, double stop, double step, DType dtype, const Vm& vm);
  static Array from_bytes(const void* data, std::size_t bytes, DType dtype, const Shape& shape, const Vm& vm);
  void read_into(void* dst, std::size_t bytes, DType as) const;

  std::shared_ptr<detail::BaseOwner> base_;
  int64_t offset_ = 0;
  Shape shape_;
  Shape stride_;
  bool readonly_ = false;
  friend struct detail::ArrayAccess;
};

// ---- elementwise functions: NumPy's ufuncs, broadcasting and promoting ----
#define ARRVM_DECLARE_BINARY(name)                      \
  ARRVM_API Array name(const Array& a, const Array& b); \
  ARRVM_API Array name(const Array& a, HostScalar b);   \
  ARRVM_API Array name(HostScalar a, const Array& b);
ARRVM_DECLARE_BINARY(add)
ARRVM_DECLARE_BINARY(subtract)
ARRVM_DECLARE_BINARY(multiply)
ARRVM_DECLARE_BINARY(divide)        // true division: integers give float64
ARRVM_DECLARE_BINARY(true_divide)   // same as divide
ARRVM_DECLARE_BINARY(floor_divide)  // floor(a / b) in the promoted dtype
ARRVM_DECLARE_BINARY(power)
ARRVM_DECLARE_BINARY(mod)        // NumPy remainder: the divisor's sign
ARRVM_DECLARE_BINARY(remainder)  // same as mod
ARRVM_DECLARE_BINARY(maximum)    // NaN propagates
ARRVM_DECLARE_BINARY(minimum)
ARRVM_DECLARE_BINARY(equal)  // comparisons give bool
ARRVM_DECLARE_BINARY(not_equal)
ARRVM_DECLARE_BINARY(less)
ARRVM_DECLARE_BINARY(less_equal)
ARRVM_DECLARE_BINARY(greater)
ARRVM_DECLARE_BINARY(greater_equal)
ARRVM_DECLARE_BINARY(logical_and)  // operands cast to bool
ARRVM_DECLARE_BINARY(logical_or)
ARRVM_DECLARE_BINARY(logical_xor)
ARRVM_DECLARE_BINARY(bitwise_and)  // integers and bools
ARRVM_DECLARE_BINARY(bitwise_or)
ARRVM_DECLARE_BINARY(bitwise_xor)
ARRVM_DECLARE_BINARY(left_shift)  // integers
ARRVM_DECLARE_BINARY(right_shift)
ARRVM_DECLARE_BINARY(arctan2)  // bools and integers are cast to float64
ARRVM_DECLARE_BINARY(hypot)    // (also)
#undef ARRVM_DECLARE_BINARY

// Functions of floats (sqrt ... rint) cast bools and integers to float64 first.
#define ARRVM_DECLARE_UNARY(name) ARRVM_API Array name(const Array& a);
ARRVM_DECLARE_UNARY(logical_not)
ARRVM_DECLARE_UNARY(invert)    // bitwise not; logical not on bool
ARRVM_DECLARE_UNARY(negative)  // not defined for bool (use invert), as in NumPy
ARRVM_DECLARE_UNARY(absolute)
ARRVM_DECLARE_UNARY(sign)
ARRVM_DECLARE_UNARY(sqrt)
ARRVM_DECLARE_UNARY(exp)
ARRVM_DECLARE_UNARY(exp2)
ARRVM_DECLARE_UNARY(expm1)
ARRVM_DECLARE_UNARY(log)
ARRVM_DECLARE_UNARY(log2)
ARRVM_DECLARE_UNARY(log10)
ARRVM_DECLARE_UNARY(log1p)
ARRVM_DECLARE_UNARY(sin)
ARRVM_DECLARE_UNARY(cos)
ARRVM_DECLARE_UNARY(tan)
ARRVM_DECLARE_UNARY(arcsin)
ARRVM_DECLARE_UNARY(arccos)
ARRVM_DECLARE_UNARY(arctan)
ARRVM_DECLARE_UNARY(sinh)
ARRVM_DECLARE_UNARY(cosh)
ARRVM_DECLARE_UNARY(tanh)
ARRVM_DECLARE_UNARY(cbrt)
ARRVM_DECLARE_UNARY(arcsinh)
ARRVM_DECLARE_UNARY(arccosh)
ARRVM_DECLARE_UNARY(arctanh)
ARRVM_DECLARE_UNARY(floor)
ARRVM_DECLARE_UNARY(ceil)
ARRVM_DECLARE_UNARY(trunc)
ARRVM_DECLARE_UNARY(rint)
ARRVM_DECLARE_UNARY(isnan)  // any dtype; bool result
ARRVM_DECLARE_UNARY(isinf)
ARRVM_DECLARE_UNARY(isfinite)
ARRVM_DECLARE_UNARY(conjugate)  // complex: (re, -im); other dtypes: a copy
ARRVM_DECLARE_UNARY(real)       // complex: the real parts; other dtypes: a copy
ARRVM_DECLARE_UNARY(imag)       // complex: the imaginary parts; other dtypes: zeros
#undef ARRVM_DECLARE_UNARY
// re + im*j as complex, re and im promoted to one float dtype (integers and
// bools to float64) and broadcast: complex64 from float32 parts, else complex128.
ARRVM_API Array make_complex(const Array& re, const Array& im);

// cond ? a : b elementwise; cond is cast to bool, a and b are promoted, all
// three broadcast together.
ARRVM_API Array where(const Array& cond, const Array& a, const Array& b);
ARRVM_API Array where(const Array& cond, const Array& a, HostScalar b);
ARRVM_API Array where(const Array& cond, HostScalar a, const Array& b);
ARRVM_API Array where(const Array& cond, HostScalar a, HostScalar b);

// Free-function forms of the members.
inline Array take(const Array& a, const Array& indices, Array::TakeMode mode = Array::TakeMode::Raise) {
  return a.take(indices, mode);
}
inline Array sum(const Array& a, std::optional<int> axis = std::nullopt) {
  return a.sum(axis);
}
inline Array prod(const Array& a, std::optional<int> axis = std::nullopt) {
  return a.prod(axis);
}
inline Array cumsum(const Array& a, std::optional<int> axis = std::nullopt) {
  return a.cumsum(axis);
}
inline Array cumprod(const Array& a, std::optional<int> axis = std::nullopt) {
  return a.cumprod(axis);
}

// ---- operators ----
#define ARRVM_DECLARE_OPERATOR(op, fn)                       \
  inline Array operator op(const Array& a, const Array& b) { \
    return fn(a, b);                                         \
  }                                                          \
  inline Array operator op(const Array& a, HostScalar b) {   \
    return fn(a, b);                                         \
  }                                                          \
  inline Array operator op(HostScalar a, const Array& b) {   \
    return fn(a, b);                                         \
  }
ARRVM_DECLARE_OPERATOR(+, add)
ARRVM_DECLARE_OPERATOR(-, subtract)
ARRVM_DECLARE_OPERATOR(*, multiply)
ARRVM_DECLARE_OPERATOR(/, divide)
ARRVM_DECLARE_OPERATOR(%, remainder)
ARRVM_DECLARE_OPERATOR(&, bitwise_and)
ARRVM_DECLARE_OPERATOR(|, bitwise_or)
ARRVM_DECLARE_OPERATOR(^, bitwise_xor)
ARRVM_DECLARE_OPERATOR(<<, left_shift)
ARRVM_DECLARE_OPERATOR(>>, right_shift)
ARRVM_DECLARE_OPERATOR(==, equal)
ARRVM_DECLARE_OPERATOR(!=, not_equal)
ARRVM_DECLARE_OPERATOR(<, less)
ARRVM_DECLARE_OPERATOR(<=, less_equal)
ARRVM_DECLARE_OPERATOR(>, greater)
ARRVM_DECLARE_OPERATOR(>=, greater_equal)
#undef ARRVM_DECLARE_OPERATOR
inline Array operator-(const Array& a) {
  return negative(a);
}
inline Array operator~(const Array& a) {
  return invert(a);
}

// ---- NumPy by name: the entry points bindings use (one place for the rules) ----

// An operand of a ufunc: an array or a (weak) number.
using ArrayOrScalar = std::variant<Array, HostScalar>;

// The number of operands of ufunc `name` (NumPy's names and aliases:
// add ... arctan2, true_divide, floor_divide, remainder, fabs, abs,
// bitwise_not, conjugate ...); 0 if this layer does not compute it.
ARRVM_API int ufunc_arity(std::string_view name);
// NumPy's ufunc `name` on `args` (at least one an Array), with NumPy's type
// promotion and broadcasting. With `out`, the result is cast into out's view
// (broadcast to it) under NumPy's 'same_kind' rule and `*out` is returned.
// Throws Error for an unknown name, a wrong operand count, operands the ufunc
// does not support, or a cast into `out` that rule refuses.
ARRVM_API Array ufunc(std::string_view name, const std::vector<ArrayOrScalar>& args,
                      const Array* out = nullptr);

// NumPy's reduction `name` (sum prod min max all any mean) over `axes`
// (nullopt: all axes; negative counts from the end; repeats are an error),
// keeping reduced axes as length 1 if `keepdims`. `dtype`: the dtype to
// accumulate in and return (sum, prod, mean), as NumPy's dtype= argument.
ARRVM_API Array reduce(std::string_view name, const Array& a, const std::optional<std::vector<int>>& axes,
                       bool keepdims = false, std::optional<DType> dtype = std::nullopt);

// ---- template definitions ----
template <typename T>
Array Array::from_host(const T* data, const Shape& shape, const Vm& vm) {
  std::size_t n = 1;
  for (int64_t d : shape) n *= d < 0 ? 0 : static_cast<std::size_t>(d);
  return from_bytes(data, n * sizeof(T), dtype_of<T>(), shape, vm);
}

template <typename T>
Array Array::from_host(const std::vector<T>& data, const Shape& shape, const Vm& vm) {
  if constexpr (std::is_same_v<T, bool>) {
    // std::vector<bool> is packed; the VM's bools are bytes.
    const std::vector<uint8_t> bytes(data.begin(), data.end());
    return from_bytes(bytes.data(), bytes.size(), DType::Bool, shape, vm);
  } else {
    return from_bytes(data.data(), data.size() * sizeof(T), dtype_of<T>(), shape, vm);
  }
}

template <typename T>
Array Array::from_host(const std::vector<T>& data, const Vm& vm) {
  return from_host(data, Shape{static_cast<int64_t>(data.size())}, vm);
}

template <typename T>
std::vector<T> Array::to_vector() const {
  const auto n = static_cast<std::size_t>(size());
  if constexpr (std::is_same_v<T, bool>) {
    std::vector<uint8_t> bytes(n);
    read_into(bytes.data(), n, DType::Bool);
    return std::vector<bool>(bytes.begin(), bytes.end());
  } else {
    std::vector<T> out(n);
    read_into(out.data(), n * sizeof(T), dtype_of<T>());
    return out;
  }
}

namespace detail {
// item<T>()'s conversion of the element x (of the array's own type U) to T.
template <typename T>
inline constexpr bool kComplexItem = false;
template <typename T>
inline constexpr bool kComplexItem<std::complex<T>> = true;

template <typename T, typename U>
T convert_item(U x) {
  if constexpr (kComplexItem<U> || kComplexItem<T>) {
    // Complex: to a complex type both parts; to a real one only a real value
    // (as Python's float() of a complex, it refuses an imaginary part).
    if constexpr (kComplexItem<T>) {
      if constexpr (kComplexItem<U>)
        return T(static_cast<typename T::value_type>(x.real()),
                 static_cast<typename T::value_type>(x.imag()));
      else
        return T(static_cast<typename T::value_type>(x), 0);
    } else {
      if (x.imag() != 0) throw Error("item(): a complex element with an imaginary part has no real value");
      return convert_item<T>(x.real());
    }
  } else if constexpr (std::is_same_v<T, bool>) {
    return x != U(0);
  } else if constexpr (std::is_floating_point_v<T>) {
    return static_cast<T>(x);
  } else {
    static_assert(std::is_integral_v<T>, "item<T>(): T must be a number type");
    long double v;  // holds every int64/uint64 and the truncated float exactly enough to range-check
    if constexpr (std::is_floating_point_v<U>) {
      if (!(x == x) || x - x != U(0))
        throw Error("item(): cannot convert " + std::to_string(x) + " to an integer");
      v = std::trunc(static_cast<long double>(x));
    } else {
      v = static_cast<long double>(x);
    }
    if (v < static_cast<long double>(std::numeric_limits<T>::min()) ||
        v > static_cast<long double>(std::numeric_limits<T>::max())) {
      throw Error("item(): " + std::to_string(x) + " is out of range for the requested integer type");
    }
    return static_cast<T>(v);
  }
}
}  // namespace detail

template <typename T>
T Array::item() const {
  if (size() != 1) throw Error("item(): the array has " + std::to_string(size()) + " elements, not 1");
  switch (dtype()) {
    case DType::Bool:
      return detail::convert_item<T>(static_cast<bool>(to_vector<bool>()[0]));
    case DType::Int8:
      return detail::convert_item<T>(to_vector<int8_t>()[0]);
    case DType::Int16:
      return detail::convert_item<T>(to_vector<int16_t>()[0]);
    case DType::Int32:
      return detail::convert_item<T>(to_vector<int32_t>()[0]);
    case DType::Int64:
      return detail::convert_item<T>(to_vector<int64_t>()[0]);
    case DType::UInt8:
      return detail::convert_item<T>(to_vector<uint8_t>()[0]);
    case DType::UInt16:
      return detail::convert_item<T>(to_vector<uint16_t>()[0]);
    case DType::UInt32:
      return detail::convert_item<T>(to_vector<uint32_t>()[0]);
    case DType::UInt64:
      return detail::convert_item<T>(to_vector<uint64_t>()[0]);
    case DType::Float32:
      return detail::convert_item<T>(to_vector<float>()[0]);
    case DType::Float64:
      return detail::convert_item<T>(to_vector<double>()[0]);
    case DType::Complex64:
      return detail::convert_item<T>(to_vector<std::complex<float>>()[0]);
    case DType::Complex128:
      return detail::convert_item<T>(to_vector<std::complex<double>>()[0]);
  }
  throw Error("item(): unknown dtype");
}

// Prints `a` as NumPy's print(a) / str(a) does: nested brackets, columns
// aligned, floats with at most 8 digits after the point (scientific when
// the magnitudes call for it), long rows wrapped at 75 characters, arrays of
// more than 1000 elements summarized with "...". Runs what is pending.
ARRVM_API std::ostream& operator<<(std::ostream& os, const Array& a);

}  // namespace arrvm
