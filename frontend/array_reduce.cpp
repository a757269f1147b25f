// Reductions, scans and array indexing (take/put) of the C++ array API.
#include "arrvm/arrvm.hpp"

#include "frontend/array_internal.hpp"
#include "vm/error.hpp"

namespace arrvm {
namespace frontend {
namespace {

// Reduces `x` (already in the reduction's dtype) along one axis.
Array reduce_axis(const Array& x, Opcode op, int axis) {
  const View in = view_of(x);
  Array r = new_array(runtime_ptr(x), in.dtype, in.shape.without(axis));
  issue(runtime_of(x), op, view_of(r), {Operand::of(in)}, axis);
  return r;
}

// NumPy's reduction over one axis or (axis none) all of them; the result of a
// full reduction is 0-d.
Array reduce(const Array& x, Opcode op, std::optional<int> axis, const char* what) {
  const View in = view_of(x);
  if (axis) return reduce_axis(x, op, normalize_axis(*axis, in.rank(), what));
  if (in.rank() == 0) return x.copy();  // the one element is its own reduction
  // Axis by axis, innermost first (usually the shortest stride). Not as one
  // 1-D reduction of the flattened array: that iterates over another shape
  // than the producer of `x`, so fusion could not put the two in one block
  // and `x` would be written to memory and read back (heat equation's
  // sum(|work - center|)). The first reduction iterates over x's own shape.
  Array r = x;
  for (int ax = in.rank() - 1; ax >= 0; --ax) r = reduce_axis(r, op, ax);
  return r;
}

// The dtype-converted input of sum/prod/cumsum/cumprod (NumPy accumulates
// bools and integers in int64/uint64).
Array accumulation_input(const Array& a) {
  return cast_to(a, accumulation_dtype(a.dtype()));
}

// Indices as int64, negative ones counted from the end of a flat array of n elements.
Array flat_indices(const Array& indices, int64_t n) {
  Array idx = cast_to(indices, DType::Int64);
  if (is_unsigned_int(indices.dtype()) || is_bool(indices.dtype())) return idx;
  return where(less(idx, 0), add(idx, n), idx);
}

// (cumsum and cumprod accumulate small integers in int64, as NumPy; a
// running minimum or maximum keeps the dtype.)
Array scan(const Array& a, Opcode op, std::optional<int> axis, const char* what) {
  Array x = op == Opcode::AddAccumulate || op == Opcode::MultiplyAccumulate ? accumulation_input(a) : a;
  int ax = 0;
  if (axis) {
    ax = normalize_axis(*axis, x.ndim(), what);
  } else {
    x = x.reshape({-1});
  }
  const View in = view_of(x);
  Array r = new_array(runtime_ptr(x), in.dtype, in.shape);
  issue(runtime_of(x), op, view_of(r), {Operand::of(in)}, ax);
  return r;
}

}  // namespace
}  // namespace frontend

using frontend::reduce;

Array Array::sum(std::optional<int> axis) const {
  return reduce(frontend::accumulation_input(*this), Opcode::AddReduce, axis, "sum");
}

Array Array::prod(std::optional<int> axis) const {
  return reduce(frontend::accumulation_input(*this), Opcode::MultiplyReduce, axis, "prod");
}

Array Array::min(std::optional<int> axis) const {
  // The VM's minimum/maximum are numeric; on bools they are and/or (NumPy).
  const Opcode op = dtype() == DType::Bool ? Opcode::LogicalAndReduce : Opcode::MinimumReduce;
  return reduce(*this, op, axis, "min");
}

Array Array::max(std::optional<int> axis) const {
  const Opcode op = dtype() == DType::Bool ? Opcode::LogicalOrReduce : Opcode::MaximumReduce;
  return reduce(*this, op, axis, "max");
}

Array Array::all(std::optional<int> axis) const {
  return reduce(frontend::cast_to(*this, DType::Bool), Opcode::LogicalAndReduce, axis, "all");
}

Array Array::any(std::optional<int> axis) const {
  return reduce(frontend::cast_to(*this, DType::Bool), Opcode::LogicalOrReduce, axis, "any");
}

Array Array::mean(std::optional<int> axis) const {
  // NumPy: floats keep their dtype, everything else is averaged in float64.
  const Array x = is_float(dtype()) || is_complex(dtype()) ? *this : astype(DType::Float64);
  int64_t n = size();
  if (axis) n = shape_[frontend::normalize_axis(*axis, ndim(), "mean")];
  return divide(x.sum(axis), static_cast<double>(n));
}

Array Array::cumsum(std::optional<int> axis) const {
  return frontend::scan(*this, Opcode::AddAccumulate, axis, "cumsum");
}

Array Array::cumprod(std::optional<int> axis) const {
  return frontend::scan(*this, Opcode::MultiplyAccumulate, axis, "cumprod");
}

Array Array::cummin(std::optional<int> axis) const {
  return frontend::scan(*this, Opcode::MinimumAccumulate, axis, "minimum.accumulate");
}

Array Array::cummax(std::optional<int> axis) const {
  return frontend::scan(*this, Opcode::MaximumAccumulate, axis, "maximum.accumulate");
}

namespace frontend {

// The gather of `a`'s flat view at int64 `idx` (gather: out of range is an
// error; gather_clip: clamped).
Array gather(const Array& a, const Array& idx, Opcode op) {
  const View src = view_of(a);
  Array r = new_array(runtime_ptr(a), src.dtype, view_of(idx).shape);
  issue(runtime_of(a), op, view_of(r), {Operand::of(src), Operand::of(view_of(idx))});
  return r;
}

}  // namespace frontend

Array Array::take(const Array& indices, TakeMode mode) const {
  frontend::common_runtime(*this, indices);
  if (mode == TakeMode::Raise)
    return frontend::gather(*this, frontend::flat_indices(indices, size()), Opcode::Gather);
  if (!is_integer(indices.dtype()) && !is_bool(indices.dtype()))
    throw Error("take: indices must be integers, got " + std::string(dtype_name(indices.dtype())));
  if (size() == 0 && indices.size() > 0) throw Error("take: cannot do a non-empty take from an empty array");
  Array idx = frontend::cast_to(indices, DType::Int64);
  if (mode == TakeMode::Wrap && size() > 0) idx = mod(idx, size());
  return frontend::gather(*this, idx, Opcode::GatherClip);
}

Array Array::take_in_range(const Array& indices) const {
  frontend::common_runtime(*this, indices);
  return frontend::gather(*this, frontend::cast_to(indices, DType::Int64), Opcode::GatherClip);
}

void Array::put(const Array& indices, const Array& values) {
  frontend::check_writeable(*this);
  frontend::common_runtime(*this, indices);
  frontend::common_runtime(*this, values);
  const View target = frontend::view_of(*this);
  // Values or indices overlapping the target are copied by the VM.
  const Array idx = frontend::flat_indices(indices, size());
  const Array vals = frontend::cast_to(values, target.dtype);
  frontend::issue(frontend::runtime_of(*this), Opcode::Scatter, target,
                  {Operand::of(frontend::view_of(vals)), Operand::of(frontend::view_of(idx))});
}

void Array::put(const Array& indices, HostScalar value) {
  // Constants are not scatter operands: the value becomes a 0-d array that
  // the VM broadcasts to the indices' shape.
  put(indices, Array::full({}, value, dtype(), vm()));
}

}  // namespace arrvm
