// The C++ array API: base ownership, factories, views, copies and
// assignment. The VM handle is in vm_handle.cpp, elementwise operations in
// array_ops.cpp, reductions and indexing in array_reduce.cpp, buffers,
// single elements and reading back in array_host.cpp.
#include "arrvm/arrvm.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "frontend/array_internal.hpp"
#include "vm/dtype.hpp"
#include "vm/error.hpp"
#include "vm/log.hpp"

namespace arrvm {

namespace detail {

BaseOwner::BaseOwner(std::shared_ptr<Runtime> runtime, DType dtype_, int64_t nelem_)
    : rt(std::move(runtime)), id(rt->new_base(dtype_, nelem_)), dtype(dtype_), nelem(nelem_) {}

BaseOwner::BaseOwner(std::shared_ptr<Runtime> runtime, BaseId id_, DType dtype_, int64_t nelem_,
                     std::shared_ptr<void> keeper_)
    : rt(std::move(runtime)), id(id_), dtype(dtype_), nelem(nelem_), keeper(std::move(keeper_)) {}

BaseOwner::~BaseOwner() {
  if (keeper) return;  // its owner frees it
  try {
    rt->free_base(id);
  } catch (const std::exception& e) {
    // Destructors must not throw; the free instruction is lost but the VM
    // drops its memory with the runtime.
    logger().error("freeing base b{} failed: {}", id, e.what());
  }
}

const BaseOwner& ArrayAccess::base(const Array& a) {
  if (!a.base_) throw Error("operation on an empty Array handle");
  return *a.base_;
}

View ArrayAccess::view(const Array& a) {
  View v;
  view_into(a, &v);
  return v;
}

void ArrayAccess::view_into(const Array& a, View* v) {
  const BaseOwner& b = base(a);
  v->base = b.id;
  v->dtype = b.dtype;
  v->offset = a.offset_;
  for (std::size_t i = 0; i < a.shape_.size(); ++i) {
    v->shape.push_back(a.shape_[i]);
    v->stride.push_back(a.stride_[i]);
  }
}

Array ArrayAccess::make(std::shared_ptr<BaseOwner> base, int64_t offset, const Dims& shape,
                        const Dims& stride) {
  Array r;
  r.base_ = std::move(base);
  r.offset_ = offset;
  r.shape_ = frontend::to_shape(shape);
  r.stride_ = frontend::to_shape(stride);
  return r;
}

Array ArrayAccess::rebased(const Array& a, int64_t offset, const Dims& shape, const Dims& stride) {
  base(a);
  Array r = make(a.base_, offset, shape, stride);
  r.readonly_ = a.readonly_;  // a view of a read-only view is read-only (NumPy)
  return r;
}

}  // namespace detail

// ---- helpers shared by the implementation files ----

namespace frontend {

Dims to_dims(const Shape& s) {
  if (s.size() > static_cast<std::size_t>(kMaxRank)) {
    throw Error("a shape of rank " + std::to_string(s.size()) + " is past the maximum rank of " +
                std::to_string(kMaxRank));
  }
  Dims d;
  for (int64_t x : s) d.push_back(x);
  return d;
}

Shape to_shape(const Dims& d) {
  return Shape(d.begin(), d.end());
}

Array new_array(const std::shared_ptr<Runtime>& rt, DType dtype, const Dims& shape) {
  for (int64_t n : shape) {
    if (n < 0) throw Error("negative extent in shape " + to_string(shape));
  }
  auto base = std::make_shared<detail::BaseOwner>(rt, dtype, shape.product());
  return ArrayAccess::make(std::move(base), 0, shape, row_major_strides(shape));
}

const std::shared_ptr<Runtime>& common_runtime(const Array& a, const Array& b) {
  const auto& ra = runtime_ptr(a);
  if (ra != runtime_ptr(b)) throw Error("the arrays of one operation must belong to the same Vm");
  return ra;
}

void issue(Runtime& rt, Opcode op, const View& out, std::initializer_list<Operand> in, int axis,
           uint64_t seed) {
  Instruction instr;
  instr.op = op;
  instr.out = out;
  for (const Operand& o : in) instr.add_input(o);
  instr.axis = axis;
  instr.seed = seed;
  rt.issue(instr);
}

Scalar to_scalar(const HostScalar& s, DType dtype) {
  switch (s.kind()) {
    case HostScalar::Kind::Bool:
    case HostScalar::Kind::Int:
      return Scalar::of_int(dtype, s.as_int());
    case HostScalar::Kind::UInt:
      return Scalar::of_uint(dtype, s.as_uint());
    case HostScalar::Kind::Float:
      return Scalar::of_double(dtype, s.as_double());
    case HostScalar::Kind::Complex:
      return Scalar::of_complex(dtype, s.as_double(), s.imag());
  }
  return Scalar::of_int(dtype, 0);
}

bool is_row_major(const View& v) {
  int64_t expected = 1;
  for (int i = v.rank() - 1; i >= 0; --i) {
    if (v.shape[i] == 0) return true;
    if (v.shape[i] != 1 && v.stride[i] != expected) return false;
    expected *= v.shape[i];
  }
  return true;
}

Array copy_as(const Array& a, DType dtype) {
  const View in = view_of(a);
  Array r = new_array(runtime_ptr(a), dtype, in.shape);
  if (write_now(r, a)) return r;
  issue(runtime_of(a), Opcode::Identity, view_of(r), {Operand::of(in)});
  return r;
}

Array cast_to(const Array& a, DType dtype) {
  return a.dtype() == dtype ? a : copy_as(a, dtype);
}

Dims broadcast_shapes(const Dims& a, const Dims& b, const char* what) {
  const int rank = std::max(a.size(), b.size());
  Dims r = Dims::filled(rank, 1);
  for (int i = 0; i < rank; ++i) {
    const int ia = i - (rank - a.size()), ib = i - (rank - b.size());
    const int64_t x = ia >= 0 ? a[ia] : 1, y = ib >= 0 ? b[ib] : 1;
    if (x != y && x != 1 && y != 1) {
      throw Error(std::string(what) + ": shapes " + to_string(a) + " and " + to_string(b) +
                  " do not broadcast together");
    }
    r[i] = x == 1 ? y : x;
  }
  return r;
}

void check_writeable(const Array& dst) {
  if (!dst.writeable()) throw Error("assignment destination is read-only");
}

bool write_now(const Array& dst, const Array& src) {
  const std::shared_ptr<Runtime>& rt = runtime_ptr(dst);
  const int64_t n = dst.size();
  if (!rt->dense_now_ok(n) || runtime_ptr(src) != rt || (src.ndim() != 0 && src.shape() != dst.shape()))
    return false;
  DenseRun in, out;
  if (!ArrayAccess::run(dst, &out.stride) || !ArrayAccess::run(src, &in.stride)) return false;
  if (src.ndim() == 0) in.stride = 0;
  in.base = ArrayAccess::base(src).id;
  in.offset = ArrayAccess::offset(src);
  out.base = ArrayAccess::base(dst).id;
  out.offset = ArrayAccess::offset(dst);
  return rt->run_dense_now(Opcode::Identity, {&in, 1}, out, dst.dtype(), n);
}

void write_into(const Array& dst, const Array& src) {
  check_writeable(dst);
  common_runtime(dst, src);
  if (write_now(dst, src)) return;
  const View out = view_of(dst);
  View in = view_of(src);
  // NumPy lets the source carry extra leading axes of length one.
  while (in.rank() > out.rank() && in.shape[0] == 1) {
    View t;
    t.base = in.base;
    t.dtype = in.dtype;
    t.offset = in.offset;
    for (int i = 1; i < in.rank(); ++i) {
      t.shape.push_back(in.shape[i]);
      t.stride.push_back(in.stride[i]);
    }
    in = t;
  }
  View b;
  if (!broadcast_to(in, out.shape, &b)) {
    throw Error("cannot write an array of shape " + to_string(view_of(src).shape) + " into a view of shape " +
                to_string(out.shape));
  }
  if (same_elements(out, b)) return;  // same base, so same dtype: nothing to do
  // a[1:] = a[:-1]: the VM copies the source first where it truly overlaps.
  issue(runtime_of(dst), Opcode::Identity, out, {Operand::of(in)});
}

int normalize_axis(int axis, int rank, const char* what) {
  if (axis < -rank || axis >= rank) {
    throw Error(std::string(what) + ": axis " + std::to_string(axis) + " is out of range for a " +
                std::to_string(rank) + "-d array");
  }
  return axis < 0 ? axis + rank : axis;
}

}  // namespace frontend

using frontend::issue;
using frontend::new_array;
using frontend::to_dims;
using frontend::view_of;

// ---- factories ----

namespace {

const std::shared_ptr<Runtime>& rt_of(const Vm& vm) {
  return detail::ArrayAccess::runtime_ptr(vm);
}

Array filled(const Shape& shape, HostScalar value, DType dtype, const Vm& vm) {
  Array r = new_array(rt_of(vm), dtype, to_dims(shape));
  issue(*rt_of(vm), Opcode::Identity, frontend::view_of(r), {Operand::of(frontend::to_scalar(value, dtype))});
  return r;
}

// start + step * i for i < n, written into a new array of `dtype`.
Array affine_range(int64_t n, HostScalar start, HostScalar step, bool unit_step, bool zero_start, DType dtype,
                   const Vm& vm) {
  Array r = new_array(rt_of(vm), dtype, Dims{std::max<int64_t>(n, 0)});
  const View v = frontend::view_of(r);
  Runtime& rt = *rt_of(vm);
  issue(rt, Opcode::Range, v, {});
  if (!unit_step)
    issue(rt, Opcode::Multiply, v, {Operand::of(v), Operand::of(frontend::to_scalar(step, dtype))});
  if (!zero_start)
    issue(rt, Opcode::Add, v, {Operand::of(v), Operand::of(frontend::to_scalar(start, dtype))});
  return r;
}

}  // namespace

Array Array::empty(const Shape& shape, DType dtype, const Vm& vm) {
  return new_array(rt_of(vm), dtype, to_dims(shape));
}
Array Array::zeros(const Shape& shape, DType dtype, const Vm& vm) {
  return filled(shape, 0, dtype, vm);
}
Array Array::ones(const Shape& shape, DType dtype, const Vm& vm) {
  return filled(shape, 1, dtype, vm);
}
Array Array::full(const Shape& shape, HostScalar value, DType dtype, const Vm& vm) {
  return filled(shape, value, dtype, vm);
}

Array Array::arange(int64_t n, DType dtype, const Vm& vm) {
  if (n < 0) n = 0;
  Array r = new_array(rt_of(vm), dtype, Dims{n});
  issue(*rt_of(vm), Opcode::Range, frontend::view_of(r), {});
  return r;
}

Array Array::arange_int(int64_t start, int64_t stop, int64_t step, DType dtype, const Vm& vm) {
  if (step == 0) throw Error("arange: step must not be zero");
  // ceil((stop - start) / step) without overflow for the usual ranges.
  const int64_t span = stop - start;
  int64_t n = span / step;
  if (n * step != span) ++n;
  if ((span > 0) != (step > 0) || span == 0) n = 0;
  return affine_range(n, start, step, step == 1, start == 0, dtype, vm);
}

Array Array::arange_float(double start, double stop, double step, DType dtype, const Vm& vm) {
  if (step == 0 || !std::isfinite(step)) throw Error("arange: step must be finite and not zero");
  const double len = std::ceil((stop - start) / step);
  if (!(len >= 0)) return affine_range(0, start, step, true, true, dtype, vm);  // also NaN
  if (len > 9.0e15) throw Error("arange: too many elements");
  return affine_range(static_cast<int64_t>(len), start, step, step == 1.0, start == 0.0, dtype, vm);
}

Array Array::random_uniform(const Shape& shape, uint64_t seed, const Vm& vm) {
  Array r = new_array(rt_of(vm), DType::Float64, to_dims(shape));
  issue(*rt_of(vm), Opcode::Random, frontend::view_of(r), {}, 0, seed);
  return r;
}

Array Array::from_bytes(const void* data, std::size_t bytes, DType dtype, const Shape& shape, const Vm& vm) {
  Array r = new_array(rt_of(vm), dtype, to_dims(shape));
  const std::size_t need = static_cast<std::size_t>(r.size()) * dtype_size(dtype);
  if (bytes != need) {
    throw Error("from_host: shape " + to_string(to_dims(shape)) + " needs " +
                std::to_string(need / dtype_size(dtype)) + " elements, got " +
                std::to_string(bytes / dtype_size(dtype)));
  }
  rt_of(vm)->write(frontend::view_of(r).base, data, bytes);
  return r;
}

Array Array::adopt(void* data, const Shape& shape, DType dtype, std::function<void(void*)> deleter,
                   const Vm& vm) {
  Array r = new_array(rt_of(vm), dtype, to_dims(shape));
  const std::size_t bytes = static_cast<std::size_t>(r.size()) * dtype_size(dtype);
  rt_of(vm)->adopt(frontend::view_of(r).base, data, bytes, std::move(deleter));
  return r;
}

// ---- properties ----

DType Array::dtype() const {
  return detail::ArrayAccess::base(*this).dtype;
}

int64_t Array::size() const {
  int64_t n = 1;
  for (int64_t d : shape_) n *= d;
  return n;
}

int64_t Array::base_id() const {
  return detail::ArrayAccess::base(*this).id;
}
int64_t Array::base_size() const {
  return detail::ArrayAccess::base(*this).nelem;
}
bool Array::is_contiguous() const {
  return frontend::is_row_major(frontend::view_of(*this));
}
Vm Array::vm() const {
  return detail::ArrayAccess::make_vm(frontend::runtime_ptr(*this));
}

std::string Array::describe() const {
  if (!valid()) return "Array(empty handle)";
  return "Array(" + std::string(dtype_name(dtype())) + ", shape=" + to_string(to_dims(shape_)) + ", base=b" +
         std::to_string(base_id()) + ")";
}

// ---- views ----

Array Array::slice(const std::vector<Slice>& slices) const {
  return index(std::vector<Index>(slices.begin(), slices.end()));
}

Array Array::index(const std::vector<Index>& given) const {
  const View v = frontend::view_of(*this);
  // `...` becomes as many `:` as the other subscripts leave; `None` consumes no axis.
  int consuming = 0, ellipses = 0;
  for (const Index& ix : given) {
    if (ix.is_ellipsis()) {
      ++ellipses;
    } else if (!ix.is_new_axis()) {
      ++consuming;
    }
  }
  if (ellipses > 1) throw Error("an index can only have a single ellipsis ('...')");
  if (consuming > v.rank()) {
    throw Error("too many indices for array: array is " + std::to_string(v.rank()) + "-dimensional, but " +
                std::to_string(consuming) + " were indexed");
  }
  std::vector<Index> subscripts;
  for (const Index& ix : given) {
    if (!ix.is_ellipsis()) {
      subscripts.push_back(ix);
      continue;
    }
    for (int k = 0; k < v.rank() - consuming; ++k) subscripts.push_back(Slice());
  }
  for (int k = ellipses ? v.rank() : consuming; k < v.rank(); ++k) subscripts.push_back(Slice());
  int64_t offset = v.offset;
  Dims shape, stride;
  int ax = 0;
  for (const Index& ix : subscripts) {
    if (ix.is_new_axis()) {
      shape.push_back(1);
      stride.push_back(0);
      continue;
    }
    const int64_t n = v.shape[ax], s = v.stride[ax];
    ++ax;
    if (!ix.is_slice()) {
      int64_t i = ix.index();
      if (i < -n || i >= n) {
        throw Error("index " + std::to_string(i) + " is out of bounds for axis " + std::to_string(ax - 1) +
                    " with size " + std::to_string(n));
      }
      if (i < 0) i += n;
      offset += i * s;
      continue;
    }
    // NumPy's PySlice_AdjustIndices.
    const Slice& sl = ix.slice();
    const int64_t step = sl.step.value_or(1);
    if (step == 0) throw Error("slice step cannot be zero");
    auto clamp = [&](std::optional<int64_t> x, int64_t dflt) {
      if (!x) return dflt;
      int64_t y = *x;
      if (y < 0) {
        y += n;
        if (y < 0) y = step < 0 ? -1 : 0;
      } else if (y >= n) {
        y = step < 0 ? n - 1 : n;
      }
      return y;
    };
    const int64_t start = clamp(sl.start, step < 0 ? n - 1 : 0);
    const int64_t stop = clamp(sl.stop, step < 0 ? -1 : n);
    int64_t len = 0;
    if (step > 0 && stop > start) len = (stop - start + step - 1) / step;
    if (step < 0 && start > stop) len = (start - stop - step - 1) / (-step);
    // An empty slice keeps the offset: its start may lie outside the base.
    if (len > 0) offset += start * s;
    shape.push_back(len);
    stride.push_back(s * step);
  }
  return detail::ArrayAccess::rebased(*this, offset, shape, stride);
}

Array Array::reshape(const Shape& new_shape) const {
  const View v = frontend::view_of(*this);
  Dims shape;
  int infer = -1;
  int64_t known = 1;
  for (std::size_t i = 0; i < new_shape.size(); ++i) {
    const int64_t d = new_shape[i];
    if (d == -1 && infer < 0) {
      infer = static_cast<int>(i);
    } else if (d < 0) {
      throw Error("reshape: bad shape entry " + std::to_string(d) + " (only one -1 is allowed)");
    } else {
      known *= d;
    }
    shape.push_back(d);
  }
  if (infer >= 0) {
    if (known == 0 || v.nelem() % known != 0) {
      throw Error("reshape: cannot reshape " + std::to_string(v.nelem()) + " elements into shape " +
                  to_string(shape));
    }
    shape[infer] = v.nelem() / known;
  }
  if (shape.product() != v.nelem()) {
    throw Error("reshape: cannot reshape an array of shape " + to_string(v.shape) + " into shape " +
                to_string(shape));
  }
  if (!frontend::is_row_major(v)) return copy().reshape(frontend::to_shape(shape));
  return detail::ArrayAccess::rebased(*this, v.offset, shape, row_major_strides(shape));
}

Array Array::transpose() const {
  std::vector<int> axes(shape_.size());
  for (std::size_t i = 0; i < axes.size(); ++i) axes[i] = static_cast<int>(axes.size() - 1 - i);
  return transpose(axes);
}

Array Array::transpose(const std::vector<int>& axes) const {
  const View v = frontend::view_of(*this);
  if (static_cast<int>(axes.size()) != v.rank()) throw Error("transpose: axes don't match the array's rank");
  std::vector<bool> seen(axes.size(), false);
  Dims shape, stride;
  for (int a : axes) {
    const int ax = frontend::normalize_axis(a, v.rank(), "transpose");
    if (seen[ax]) throw Error("transpose: repeated axis " + std::to_string(a));
    seen[ax] = true;
    shape.push_back(v.shape[ax]);
    stride.push_back(v.stride[ax]);
  }
  return detail::ArrayAccess::rebased(*this, v.offset, shape, stride);
}

Array Array::broadcast_to(const Shape& shape) const {
  const View v = frontend::view_of(*this);
  View b;
  if (!arrvm::broadcast_to(v, to_dims(shape), &b)) {
    throw Error("broadcast_to: cannot broadcast shape " + to_string(v.shape) + " to " +
                to_string(to_dims(shape)));
  }
  return detail::ArrayAccess::rebased(*this, b.offset, b.shape, b.stride);
}

Array Array::strided(int64_t offset, const Shape& shape, const Shape& strides) const {
  if (shape.size() != strides.size()) throw Error("strided: shape and strides differ in length");
  int64_t lo = offset, hi = offset;
  bool empty = false;
  for (std::size_t d = 0; d < shape.size(); ++d) {
    if (shape[d] < 0) throw Error("strided: negative dimension");
    if (shape[d] == 0) empty = true;
    const int64_t reach = (shape[d] - 1) * strides[d];
    (reach < 0 ? lo : hi) += reach;
  }
  if (!empty && (lo < 0 || hi >= base_size())) throw Error("strides is not compatible with available memory");
  return detail::ArrayAccess::rebased(*this, offset, to_dims(shape), to_dims(strides));
}

Array Array::expand_dims(int axis) const {
  const View v = frontend::view_of(*this);
  const int ax = frontend::normalize_axis(axis, v.rank() + 1, "expand_dims");
  Dims shape, stride;
  for (int i = 0; i <= v.rank(); ++i) {
    if (i == ax) {
      shape.push_back(1);
      stride.push_back(0);
    }
    if (i < v.rank()) {
      shape.push_back(v.shape[i]);
      stride.push_back(v.stride[i]);
    }
  }
  return detail::ArrayAccess::rebased(*this, v.offset, shape, stride);
}

Array Array::squeeze(const std::vector<int>& axes) const {
  const View v = frontend::view_of(*this);
  std::vector<bool> drop(v.rank(), axes.empty());
  for (int a : axes) {
    const int ax = frontend::normalize_axis(a, v.rank(), "squeeze");
    if (v.shape[ax] != 1) throw Error("cannot select an axis to squeeze out which has size not equal to one");
    drop[ax] = true;
  }
  Dims shape, stride;
  for (int i = 0; i < v.rank(); ++i) {
    if (drop[i] && v.shape[i] == 1) continue;
    shape.push_back(v.shape[i]);
    stride.push_back(v.stride[i]);
  }
  return detail::ArrayAccess::rebased(*this, v.offset, shape, stride);
}

// ---- copies and assignment ----

namespace {
// NumPy refuses a complex number into a real array (Python's float() of it).
void check_not_complex_into_real(const HostScalar& value, DType dtype) {
  if (value.kind() == HostScalar::Kind::Complex && !is_complex(dtype))
    throw Error("assign: complex numbers are not supported for " + std::string(dtype_name(dtype)) +
                " arrays");
}
}  // namespace

Array Array::copy() const {
  return frontend::copy_as(*this, dtype());
}
Array Array::astype(DType dtype) const {
  return frontend::copy_as(*this, dtype);
}

void Array::assign(const Array& src) {
  frontend::write_into(*this, src);
}

void Array::assign(HostScalar value) {
  frontend::check_writeable(*this);
  check_not_complex_into_real(value, dtype());
  const View out = frontend::view_of(*this);
  const Scalar s = frontend::to_scalar(value, out.dtype);
  // One element of a base nothing pending touches: stored at once (NumPy's
  // `T[i, j] = v` in a loop), with no instruction.
  if (out.nelem() == 1 && frontend::store_now(*this, out.offset, s)) return;
  issue(frontend::runtime_of(*this), Opcode::Identity, out, {Operand::of(s)});
}

Array& Array::operator=(const Array& src) && {
  assign(src);
  return *this;
}

Array& Array::operator=(Array&& src) && {
  assign(src);
  return *this;
}

Array& Array::operator=(HostScalar value) && {
  assign(value);
  return *this;
}

}  // namespace arrvm
