// The C++ array API, the host side: buffers in and out, single elements
// read and written at once (no flush: Runtime::read_now / write_now), a
// base moved to host memory, reading back in another dtype.
#include "arrvm/arrvm.hpp"

#include <cstring>
#include <functional>

#include "frontend/array_internal.hpp"
#include "vm/dtype.hpp"
#include "vm/error.hpp"

namespace arrvm {

Array Array::from_buffer(const void* data, std::size_t bytes, DType dtype, const Shape& shape, const Vm& vm) {
  return from_bytes(data, bytes, dtype, shape, vm);
}

void Array::copy_to_host(void* dst, std::size_t bytes) const {
  const std::size_t need = static_cast<std::size_t>(size()) * dtype_size(dtype());
  if (bytes != need) {
    throw Error("copy_to_host: the array has " + std::to_string(need) + " bytes, the buffer " +
                std::to_string(bytes));
  }
  if (need == 0) return;
  read_into(dst, bytes, dtype());
}

void Array::sync() const {
  const detail::BaseOwner& b = detail::ArrayAccess::base(*this);
  Instruction s;
  s.op = Opcode::Sync;
  s.out.base = b.id;
  b.rt->issue(s);  // flushes; rethrows a poisoned base's error
}

bool Array::read_element_now(void* dst) const {
  if (size() != 1) return false;
  const detail::BaseOwner& b = detail::ArrayAccess::base(*this);
  return b.rt->read_now(b.id, offset_, 1, dst);
}

namespace {

// The base element of `a` at `index` (negative from the end), or false if
// the index does not name one.
bool element_at(const Array& a, const int64_t* index, int n, int64_t* at) {
  if (n != a.ndim()) return false;
  *at = a.offset();
  for (int d = 0; d < n; ++d) {
    const int64_t extent = a.shape()[static_cast<std::size_t>(d)];
    const int64_t i = index[d] < 0 ? index[d] + extent : index[d];
    if (i < 0 || i >= extent) return false;
    *at += i * a.strides()[static_cast<std::size_t>(d)];
  }
  return true;
}

}  // namespace

bool frontend::store_now(const Array& a, int64_t at, const Scalar& s) {
  alignas(16) unsigned char bytes[16];
  visit_dtype(s.dtype, [&](auto t) {
    using T = decltype(t);
    const T v = s.as<T>();
    std::memcpy(bytes, &v, sizeof v);
  });
  const detail::BaseOwner& b = detail::ArrayAccess::base(a);
  return b.rt->write_now(b.id, at, 1, bytes);
}

uint64_t Array::version() const {
  const detail::BaseOwner& b = detail::ArrayAccess::base(*this);
  return b.rt->version(b.id);
}

bool Array::read_element_now(const int64_t* index, int n, void* dst) const {
  int64_t at = 0;
  if (!element_at(*this, index, n, &at)) return false;
  const detail::BaseOwner& b = detail::ArrayAccess::base(*this);
  return b.rt->read_now(b.id, at, 1, dst);
}

bool Array::read_elements_now(void* dst) const {
  const detail::BaseOwner& b = detail::ArrayAccess::base(*this);
  // Contiguous in the base, row-major: one read of the span; else, with one
  // axis that moves (a column), a read every stride elements.
  int64_t expect = 1, step = 0;
  int moving = 0;
  bool contiguous = true;
  for (int d = ndim() - 1; d >= 0; --d) {
    const auto k = static_cast<std::size_t>(d);
    if (shape_[k] == 1) continue;
    if (stride_[k] != expect) contiguous = false;
    expect *= shape_[k];
    step = stride_[k];
    ++moving;
  }
  if (contiguous) return b.rt->read_now(b.id, offset_, size(), dst);
  return moving == 1 && step != 0 && b.rt->read_now(b.id, offset_, size(), dst, step);
}

bool Array::read_range_now(int64_t first, int64_t count, void* dst) const {
  if (ndim() != 1 || first < 0 || count < 0 || first > shape_[0] - count) return false;
  const detail::BaseOwner& b = detail::ArrayAccess::base(*this);
  const int64_t step = shape_[0] > 1 ? stride_[0] : 1;
  return step != 0 && b.rt->read_now(b.id, offset_ + first * step, count, dst, step);
}

bool Array::write_element_now(const int64_t* index, int n, HostScalar value) const {
  if (value.kind() == HostScalar::Kind::Complex && !is_complex(dtype())) return false;  // (assign says why)
  int64_t at = 0;
  return writeable() && element_at(*this, index, n, &at) &&
         frontend::store_now(*this, at, frontend::to_scalar(value, dtype()));
}

bool Array::move_base_to_host(void* data, std::function<void(void*)> deleter) const {
  const detail::BaseOwner& b = detail::ArrayAccess::base(*this);
  const std::size_t bytes = static_cast<std::size_t>(b.nelem) * dtype_size(b.dtype);
  if (bytes == 0) {  // nothing to share
    if (deleter) deleter(data);
    return false;
  }
  b.rt->read(b.id, data, bytes);
  return b.rt->adopt(b.id, data, bytes, std::move(deleter));
}

// ---- reading back ----

void Array::read_into(void* dst, std::size_t bytes, DType as) const {
  const View v = frontend::view_of(*this);
  if (as != v.dtype) {
    throw Error("to_vector: the array holds " + std::string(dtype_name(v.dtype)) + ", not " +
                std::string(dtype_name(as)) + " (use astype)");
  }
  const detail::BaseOwner& b = detail::ArrayAccess::base(*this);
  // Row-major elements of a base nothing pending touches: copied at once, no flush.
  if (frontend::is_row_major(v) && b.rt->read_now(b.id, v.offset, v.nelem(), dst)) return;
  if (v.offset == 0 && v.nelem() == b.nelem && frontend::is_row_major(v)) {
    b.rt->read(b.id, dst, bytes);
    return;
  }
  const Array tmp = copy();  // only a whole contiguous base can be read
  detail::ArrayAccess::base(tmp).rt->read(tmp.base_id(), dst, bytes);
}

}  // namespace arrvm
