// arrvm._core's scalars (_core.hpp): a NumPy scalar's value (numpy_number),
// reads of elements at once (a 0-d array as a Python number: the ndarray
// type's nb_float, nb_int, nb_index and nb_bool slots) and the bounds check
// of an index array read from memory.
#include <pybind11/pybind11.h>

#include <algorithm>
#include <climits>
#include <complex>
#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include "_core.hpp"
#include "arrvm/arrvm.hpp"

namespace arrvm_python {

// A NumPy bool, integer or real scalar as the value it holds (what an
// assignment casts to the array's dtype; a binary operation keeps NumPy's
// scalar, whose dtype promotion differs from a Python number's).
// NumPy's integer and real scalar objects (Py<Type>ScalarObject,
// numpy/arrayscalars.h): the value follows the object header.
template <class T>
struct NumpyScalar {
  PyObject_HEAD T obval;
};

template <class T>
T numpy_value(PyObject* o) {
  return reinterpret_cast<const NumpyScalar<T>*>(o)->obval;
}

bool numpy_number(py::handle h, HostScalar* out, DType* dtype) {
  if (g_scalar_types.empty()) return false;
  PyObject* o = h.ptr();
  const auto* t = reinterpret_cast<PyObject*>(Py_TYPE(o));
  // (The type the last call found first: a loop writes one dtype.)
  static std::size_t last = 0;
  int code = -1;
  if (last < g_scalar_types.size() && g_scalar_types[last].ptr() == t) code = static_cast<int>(last);
  for (std::size_t k = 0; k < g_scalar_types.size() && code < 0; ++k) {
    if (g_scalar_types[k].ptr() == t) code = static_cast<int>(last = k);
  }
  if (code < 0) return false;
  const auto d = static_cast<DType>(code);
  if (dtype != nullptr) *dtype = d;
  // An integer or real: its value read in place (PyNumber_Index would make
  // a Python int first: `T[i, j] = T[i - 1, j - 1] + 1` took 49 ns against
  // NumPy's 30). As as_scalar takes a Python int: int64 when it fits.
  switch (d) {
    case DType::Int8:
      *out = HostScalar(static_cast<int64_t>(numpy_value<int8_t>(o)));
      return true;
    case DType::Int16:
      *out = HostScalar(static_cast<int64_t>(numpy_value<int16_t>(o)));
      return true;
    case DType::Int32:
      *out = HostScalar(static_cast<int64_t>(numpy_value<int32_t>(o)));
      return true;
    case DType::Int64:
      *out = HostScalar(numpy_value<int64_t>(o));
      return true;
    case DType::UInt8:
      *out = HostScalar(static_cast<int64_t>(numpy_value<uint8_t>(o)));
      return true;
    case DType::UInt16:
      *out = HostScalar(static_cast<int64_t>(numpy_value<uint16_t>(o)));
      return true;
    case DType::UInt32:
      *out = HostScalar(static_cast<int64_t>(numpy_value<uint32_t>(o)));
      return true;
    case DType::Float32:
      *out = HostScalar(static_cast<double>(numpy_value<float>(o)));
      return true;
    case DType::Float64:
      *out = HostScalar(numpy_value<double>(o));
      return true;
    case DType::UInt64: {
      const uint64_t v = numpy_value<uint64_t>(o);
      *out = v <= static_cast<uint64_t>(INT64_MAX) ? HostScalar(static_cast<int64_t>(v)) : HostScalar(v);
      return true;
    }
    default:
      break;
  }
  if (d == DType::Bool) {
    *out = HostScalar(PyObject_IsTrue(o) == 1);
    return true;
  }
  if (is_complex_dtype(d)) {
    const Py_complex c = PyComplex_AsCComplex(o);
    if (c.real == -1.0 && PyErr_Occurred()) {
      PyErr_Clear();
      return false;
    }
    *out = HostScalar(std::complex<double>(c.real, c.imag));
    return true;
  }
  if (d == DType::Float32 || d == DType::Float64) {
    const double x = PyFloat_AsDouble(o);
    if (x == -1.0 && PyErr_Occurred()) {
      PyErr_Clear();
      return false;
    }
    *out = HostScalar(x);
    return true;
  }
  PyObject* i = PyNumber_Index(o);
  if (i == nullptr) {
    PyErr_Clear();
    return false;
  }
  const bool ok = as_scalar(i, out);
  Py_DECREF(i);
  return ok;
}

// x[idx] at once, NumPy-style: a short 1-D int64 index whose picks lie in
// a short span of a 1-D x (at any step), both read from memory where
// nothing pending writes them, into a new array (one write of its data, no
// gather instruction): a row loop's `x[indices[lo:hi]]`. False, nothing
// done, where it cannot be read so (or an index is out of bounds: the
// caller's check names it).
bool take_now(const Array& x, const Array& idx, py::object* r) {
  constexpr int64_t kMost = 512, kSpan = 512;
  const int64_t count = idx.size(), n = x.size();
  if (count == 0 || count > kMost || idx.dtype() != DType::Int64 || x.ndim() != 1) return false;
  thread_local std::vector<int64_t> at;
  at.resize(static_cast<std::size_t>(count));
  if (!idx.read_elements_now(at.data())) return false;
  int64_t lo = n, hi = -1;
  for (int64_t& i : at) {
    if (i < -n || i >= n) return false;
    if (i < 0) i += n;
    lo = std::min(lo, i);
    hi = std::max(hi, i);
  }
  if (hi - lo + 1 > std::max(kSpan, 8 * count)) return false;
  const std::size_t size = arrvm::dtype_size(x.dtype());
  thread_local std::vector<unsigned char> span, picked;
  span.resize(static_cast<std::size_t>(hi - lo + 1) * size);
  picked.resize(static_cast<std::size_t>(count) * size);
  if (!x.read_range_now(lo, hi - lo + 1, span.data())) return false;
  for (std::size_t k = 0; k < at.size(); ++k)
    std::memcpy(picked.data() + k * size, span.data() + static_cast<std::size_t>(at[k] - lo) * size, size);
  *r = wrap(Array::from_buffer(picked.data(), picked.size(), x.dtype(), {count}, x.vm()));
  return true;
}

// NumPy's check of a 1-D integer index array into an axis of length n, at
// once when nothing pending touches its base (a row loop's
// `x[indices[lo:hi]]`, or any index array up to 2^20 elements, as NumPy
// checks them before it gathers: the IndexError at the indexing, and a
// gather that cannot fail, which the VM may compose with other gathers): 1
// if every index is in [0, n), 2 if some are negative (in [-n, 0)),
// IndexError naming the first out of bounds; 0 if the elements cannot be
// read at once (pending, or too many to read here).
int index_bounds(const Array& key, int64_t n) {
  if (key.ndim() != 1 || key.size() > (int64_t{1} << 20)) return 0;
  const std::size_t count = static_cast<std::size_t>(key.size());
  thread_local std::vector<uint64_t> buffer;  // (8 bytes an element at most)
  buffer.resize(count + 1);
  void* e = buffer.data();
  if (!key.read_elements_now(e)) {
    for (int64_t i = 0; i < key.size(); ++i) {
      if (!key.read_element_now(&i, 1, static_cast<char*>(e) + i * arrvm::dtype_size(key.dtype()))) return 0;
    }
  }
  int64_t lo = 0, hi = -1;  // the smallest and largest index
  auto scan = [&](const auto* p) {
    for (std::size_t i = 0; i < count; ++i) {
      int64_t v;
      if constexpr (std::is_same_v<std::remove_const_t<std::remove_pointer_t<decltype(p)>>, uint64_t>) {
        v = p[i] > static_cast<uint64_t>(n) ? n : static_cast<int64_t>(p[i]);  // (out of bounds either way)
      } else {
        v = static_cast<int64_t>(p[i]);
      }
      if (v < -n || v >= n) {
        throw py::index_error("index " + std::to_string(v) + " is out of bounds for axis 0 with size " +
                              std::to_string(n));
      }
      lo = std::min(lo, v);
      hi = std::max(hi, v);
    }
  };
  switch (key.dtype()) {
    case DType::Int8:
      scan(static_cast<const int8_t*>(e));
      break;
    case DType::Int16:
      scan(static_cast<const int16_t*>(e));
      break;
    case DType::Int32:
      scan(static_cast<const int32_t*>(e));
      break;
    case DType::Int64:
      scan(static_cast<const int64_t*>(e));
      break;
    case DType::UInt8:
      scan(static_cast<const uint8_t*>(e));
      break;
    case DType::UInt16:
      scan(static_cast<const uint16_t*>(e));
      break;
    case DType::UInt32:
      scan(static_cast<const uint32_t*>(e));
      break;
    case DType::UInt64:
      scan(static_cast<const uint64_t*>(e));
      break;
    default:
      return 0;
  }
  return lo < 0 ? 2 : 1;
}

// ---- A 0-d array as a Python number ----
// float(s), int(s), operator.index(s) and `if s:` of a 0-d array (a lazy
// scalar: a reduction's result, or x[i] read while x was pending) read its
// element at once when nothing pending writes it (Runtime::read_now) and
// convert NumPy's scalar, as NumPy would; otherwise, and for complex
// dtypes, the package's Python methods (saved by install_scalar_slots)
// sync and convert. The Python methods went through to_numpy: ~1.4 us.
enum { kFloat, kInt, kIndex, kBool };
unaryfunc g_scalar_slow[3] = {nullptr, nullptr, nullptr};
inquiry g_bool_slow = nullptr;

// NumPy's scalar of a 0-d, non-complex `o` read at once, else null (no error set).
PyObject* scalar_now(PyObject* o) {
  const Array* a = exact_array(o);
  if (a == nullptr || a->ndim() != 0 || is_complex_dtype(a->dtype()) || g_scalar_types.empty())
    return nullptr;
  alignas(16) unsigned char element[16];
  if (!a->read_element_now(element)) return nullptr;
  return new_numpy_scalar(a->dtype(), element);
}

template <int K>
PyObject* nb_scalar(PyObject* self) {
  const Array* a = exact_array(self);
  // (operator.index takes integers and bools only: the slow path's error.)
  if (K != kIndex || (a != nullptr && (is_int_dtype(a->dtype()) || a->dtype() == DType::Bool))) {
    if (PyObject* e = scalar_now(self)) {
      PyObject* r = K == kFloat ? PyNumber_Float(e) : PyNumber_Long(e);
      Py_DECREF(e);
      return r;
    }
    if (PyErr_Occurred()) return nullptr;
  }
  return g_scalar_slow[K](self);
}

int nb_bool_now(PyObject* self) {
  if (PyObject* e = scalar_now(self)) {
    const int r = PyObject_IsTrue(e);
    Py_DECREF(e);
    return r;
  }
  if (PyErr_Occurred()) return -1;
  return g_bool_slow(self);
}

namespace {

// The first index of the largest (want_max) or smallest element of
// x[0..n), or of its first NaN: NumPy's argmax/argmin.
template <class T>
int64_t arg_extreme(const T* x, int64_t n, bool want_max) {
  int64_t at = 0;
  for (int64_t k = 0; k < n; ++k) {
    if constexpr (std::is_floating_point_v<T>) {
      if (x[k] != x[k]) return k;
    }
    if (want_max ? x[k] > x[at] : x[k] < x[at]) at = k;
  }
  return at;
}

}  // namespace

py::object arg_extreme_now(const Array& a, bool want_max) {
  constexpr int64_t kMost = int64_t{1} << 16;  // (larger: the fused reductions, on every core)
  const int64_t n = a.size();
  if (n == 0 || n > kMost || g_scalar_types.empty()) return py::none();
  const std::size_t bytes = static_cast<std::size_t>(n) * arrvm::dtype_size(a.dtype());
  thread_local std::vector<unsigned char> buf;
  buf.resize(bytes + 16);
  void* data = buf.data();
  if (is_complex_dtype(a.dtype()) || !a.read_elements_now(data)) return py::none();
  int64_t at = 0;
  switch (a.dtype()) {
    case DType::Bool:
    case DType::UInt8:
      at = arg_extreme(static_cast<const uint8_t*>(data), n, want_max);
      break;
    case DType::Int8:
      at = arg_extreme(static_cast<const int8_t*>(data), n, want_max);
      break;
    case DType::Int16:
      at = arg_extreme(static_cast<const int16_t*>(data), n, want_max);
      break;
    case DType::UInt16:
      at = arg_extreme(static_cast<const uint16_t*>(data), n, want_max);
      break;
    case DType::Int32:
      at = arg_extreme(static_cast<const int32_t*>(data), n, want_max);
      break;
    case DType::UInt32:
      at = arg_extreme(static_cast<const uint32_t*>(data), n, want_max);
      break;
    case DType::Int64:
      at = arg_extreme(static_cast<const int64_t*>(data), n, want_max);
      break;
    case DType::UInt64:
      at = arg_extreme(static_cast<const uint64_t*>(data), n, want_max);
      break;
    case DType::Float32:
      at = arg_extreme(static_cast<const float*>(data), n, want_max);
      break;
    case DType::Float64:
      at = arg_extreme(static_cast<const double*>(data), n, want_max);
      break;
    default:
      return py::none();
  }
  PyObject* e = new_numpy_scalar(DType::Int64, &at);
  if (e == nullptr) throw py::error_already_set();
  return py::reinterpret_steal<py::object>(e);
}

namespace {

// An element's bytes as the Python number NumPy's item() gives.
PyObject* python_number(DType t, const unsigned char* e) {
  auto get = [&](auto v) {
    std::memcpy(&v, e, sizeof v);
    return v;
  };
  switch (t) {
    case DType::Bool:
      return PyBool_FromLong(e[0] != 0);
    case DType::Int8:
      return PyLong_FromLong(get(int8_t{}));
    case DType::Int16:
      return PyLong_FromLong(get(int16_t{}));
    case DType::Int32:
      return PyLong_FromLong(get(int32_t{}));
    case DType::Int64:
      return PyLong_FromLongLong(get(int64_t{}));
    case DType::UInt8:
      return PyLong_FromUnsignedLong(get(uint8_t{}));
    case DType::UInt16:
      return PyLong_FromUnsignedLong(get(uint16_t{}));
    case DType::UInt32:
      return PyLong_FromUnsignedLong(get(uint32_t{}));
    case DType::UInt64:
      return PyLong_FromUnsignedLongLong(get(uint64_t{}));
    case DType::Float32:
      return PyFloat_FromDouble(get(float{}));
    case DType::Float64:
      return PyFloat_FromDouble(get(double{}));
    case DType::Complex64: {
      const auto c = get(std::complex<float>{});
      return PyComplex_FromDoubles(c.real(), c.imag());
    }
    case DType::Complex128: {
      const auto c = get(std::complex<double>{});
      return PyComplex_FromDoubles(c.real(), c.imag());
    }
  }
  return nullptr;
}

// The element item(*args) names: no index (a one-element array), a flat
// index, or one index per axis (as arguments or one tuple), each a Python
// int in range; the indices into *at (negatives wrapped), their count
// returned; -1 for anything else (the Python method says what is wrong).
int item_index(const Array& a, PyObject* const* args, Py_ssize_t nargs, int64_t* at) {
  if (nargs == 1 && PyTuple_CheckExact(args[0])) {
    PyObject* t = args[0];
    nargs = PyTuple_GET_SIZE(t);
    args = nargs > 0 ? &PyTuple_GET_ITEM(t, 0) : nullptr;
  }
  const int nd = a.ndim();
  if (nd > 8) return -1;
  auto index = [](PyObject* x, int64_t n, int64_t* v) {
    if (!PyLong_CheckExact(x)) return false;
    int overflow = 0;
    long long k = PyLong_AsLongLongAndOverflow(x, &overflow);
    if (overflow != 0 || (k == -1 && PyErr_Occurred())) {
      PyErr_Clear();
      return false;
    }
    if (k < -n || k >= n) return false;
    *v = k < 0 ? k + n : k;
    return true;
  };
  if (nargs == 0) {
    if (a.size() != 1) return -1;
    std::fill(at, at + nd, int64_t{0});
    return nd;
  }
  if (nargs == 1) {  // flat, row-major
    int64_t k = 0;
    if (!index(args[0], a.size(), &k)) return -1;
    for (int d = nd - 1; d >= 0; --d) {
      const int64_t e = a.shape()[static_cast<std::size_t>(d)];
      at[d] = k % e;
      k /= e;
    }
    return nd;
  }
  if (nargs != nd) return -1;
  for (int d = 0; d < nd; ++d) {
    if (!index(args[d], a.shape()[static_cast<std::size_t>(d)], &at[d])) return -1;
  }
  return nd;
}

PyObject* g_item_slow = nullptr;  // the package's item(), for what item_method does not read at once

// a.item(*args): the element read at once where nothing pending writes the
// array (a scalar loop's `x.item(i)`: ~0.5 us through Python, NumPy's
// ~0.04); else the package's method.
PyObject* item_method(PyObject* self, PyObject* const* args, Py_ssize_t nargs) {
  if (const Array* a = exact_array(self)) {
    int64_t at[8];
    const int n = item_index(*a, args, nargs, at);
    alignas(16) unsigned char e[16];
    if (n >= 0 && a->read_element_now(at, n, e)) return python_number(a->dtype(), e);
  }
  PyObject* all = PyTuple_New(nargs + 1);
  if (all == nullptr) return nullptr;
  Py_INCREF(self);
  PyTuple_SET_ITEM(all, 0, self);
  for (Py_ssize_t k = 0; k < nargs; ++k) {
    Py_INCREF(args[k]);
    PyTuple_SET_ITEM(all, k + 1, args[k]);
  }
  PyObject* r = PyObject_Call(g_item_slow, all, nullptr);
  Py_DECREF(all);
  return r;
}

PyMethodDef g_item_def = {"item", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(&item_method)),
                          METH_FASTCALL, "NumPy's item(): one element as a Python number."};

}  // namespace

void install_scalar_slots(PyTypeObject* t) {
  PyNumberMethods* n = t->tp_as_number;
  if (g_bool_slow != nullptr || n->nb_float == nullptr || n->nb_int == nullptr || n->nb_index == nullptr ||
      n->nb_bool == nullptr)
    return;  // (once; and only over the package's methods)
  g_scalar_slow[kFloat] = n->nb_float;
  g_scalar_slow[kInt] = n->nb_int;
  g_scalar_slow[kIndex] = n->nb_index;
  g_bool_slow = n->nb_bool;
  n->nb_float = nb_scalar<kFloat>;
  n->nb_int = nb_scalar<kInt>;
  n->nb_index = nb_scalar<kIndex>;
  n->nb_bool = nb_bool_now;
  if (PyObject* slow = PyDict_GetItemString(t->tp_dict, "item")) {
    Py_INCREF(slow);
    g_item_slow = slow;
    PyObject* item = PyDescr_NewMethod(t, &g_item_def);
    if (item == nullptr || PyDict_SetItemString(t->tp_dict, "item", item) != 0) {
      Py_XDECREF(item);
      throw py::error_already_set();
    }
    Py_DECREF(item);
  }
  PyType_Modified(t);
}

}  // namespace arrvm_python
