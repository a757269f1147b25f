// arrvm._core: the Python binding's extension module. It binds arrvm::Array
// (the C++ array API, where NumPy's promotion, broadcasting, indexing and
// reduction rules live) as `ndarray`, with the hot paths (operators, basic
// indexing) in C++ so that one NumPy operation costs one Python call. What
// the fast paths do not take (NumPy scalars of other kinds, integers that do
// not fit, NumPy 1.x value-based casting of 0-d operands, lists, integer and
// boolean array indices) goes to hooks the Python package registers
// (arrvm/_ndarray.py), which normalize the operands and call back in.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "_core.hpp"
#include "arrvm/arrvm.hpp"

namespace arrvm_python {

// Python functions of the package (set once by arrvm/_ndarray.py). Handles
// holding a reference that is never dropped: a static py::object would
// decrement after the interpreter is gone.
py::handle g_ufunc_slow, g_getitem_slow, g_setitem_slow, g_error_class, g_matmul_slow;
// NumPy's scalar types, by DType (set_scalar_types): what x[i] returns
// when the element can be read at once.
std::vector<py::handle> g_scalar_types;

// The element at `p`, of dtype `t`, as NumPy's scalar of that type.
py::object numpy_scalar(DType t, const void* p) {
  py::object v;
  switch (t) {
    case DType::Bool:
      v = py::bool_(*static_cast<const uint8_t*>(p) != 0);
      break;
    case DType::Int8:
      v = py::int_(*static_cast<const int8_t*>(p));
      break;
    case DType::Int16:
      v = py::int_(*static_cast<const int16_t*>(p));
      break;
    case DType::Int32:
      v = py::int_(*static_cast<const int32_t*>(p));
      break;
    case DType::Int64:
      v = py::int_(*static_cast<const int64_t*>(p));
      break;
    case DType::UInt8:
      v = py::int_(*static_cast<const uint8_t*>(p));
      break;
    case DType::UInt16:
      v = py::int_(*static_cast<const uint16_t*>(p));
      break;
    case DType::UInt32:
      v = py::int_(*static_cast<const uint32_t*>(p));
      break;
    case DType::UInt64:
      v = py::int_(*static_cast<const uint64_t*>(p));
      break;
    case DType::Float32:
      v = py::float_(*static_cast<const float*>(p));
      break;
    case DType::Float64:
      v = py::float_(*static_cast<const double*>(p));
      break;
    case DType::Complex64: {
      const auto* c = static_cast<const float*>(p);
      v = py::reinterpret_steal<py::object>(PyComplex_FromDoubles(c[0], c[1]));
      break;
    }
    case DType::Complex128: {
      const auto* c = static_cast<const double*>(p);
      v = py::reinterpret_steal<py::object>(PyComplex_FromDoubles(c[0], c[1]));
      break;
    }
  }
  return g_scalar_types[static_cast<std::size_t>(t)](v);
}

// NumPy's PyArray_Scalar (its C API table, entry 60; the table's entries
// are stable across NumPy versions) and the descr of each dtype's scalar
// type: a scalar made from the element's bytes, as NumPy's own `a[i]`
// makes it, instead of calling the scalar type on a Python number (which
// parses its arguments: most of an element read's time).
using ScalarFn = PyObject* (*)(void*, PyObject*, PyObject*);
ScalarFn g_array_scalar = nullptr;
std::vector<py::handle> g_scalar_descrs;

void load_array_scalar() {
  try {
    py::object api = py::module_::import("numpy.core.multiarray").attr("_ARRAY_API");
    auto** table = static_cast<void**>(PyCapsule_GetPointer(api.ptr(), nullptr));
    if (table == nullptr) {
      PyErr_Clear();
      return;
    }
    py::object dtype = py::module_::import("numpy").attr("dtype");
    g_scalar_descrs.clear();
    for (py::handle t : g_scalar_types) g_scalar_descrs.push_back(dtype(t).release());
    g_array_scalar = reinterpret_cast<ScalarFn>(table[60]);
  } catch (py::error_already_set&) {
    g_array_scalar = nullptr;  // (the Python call above then makes the scalars)
  }
}

// numpy_scalar of an element's bytes, with NumPy's own constructor when loaded.
PyObject* new_numpy_scalar(DType t, const void* p) {
  if (g_array_scalar != nullptr) {
    return g_array_scalar(const_cast<void*>(p), g_scalar_descrs[static_cast<std::size_t>(t)].ptr(), nullptr);
  }
  return numpy_scalar(t, p).release().ptr();
}

// Bases whose memory is a NumPy array's (arrvm.asarray / adopt of NumPy
// data, or a base moved to host memory by numpy.asarray(a)): base id -> that
// 1-D NumPy array (borrowed: the base's deleter holds the reference, and
// removes the entry when the VM releases the base).
std::unordered_map<int64_t, PyObject*> g_host;

// The deleter of a base on NumPy memory: drops the reference under the GIL
// (leaked if the interpreter is gone) and forgets the base.
std::function<void(void*)> numpy_deleter(py::object keep_alive, int64_t id, std::shared_ptr<bool> ran) {
  auto* keep = new py::object(std::move(keep_alive));
  return [keep, id, ran](void*) {
    *ran = true;
    if (!Py_IsInitialized()) return;
    py::gil_scoped_acquire gil;
    auto it = g_host.find(id);
    if (it != g_host.end() && it->second == keep->ptr()) g_host.erase(it);
    delete keep;
  };
}

bool assign_fits(py::handle value, const HostScalar& s, DType target) {
  if (s.kind() != HostScalar::Kind::UInt) return true;
  const bool is_signed =
      target == DType::Int8 || target == DType::Int16 || target == DType::Int32 || target == DType::Int64;
  const bool narrow_unsigned =
      target == DType::UInt8 || target == DType::UInt16;  // (uint32 takes a C unsigned long)
  const bool python = PyLong_Check(value.ptr()) && !PyBool_Check(value.ptr());
  if (!is_signed && !(python && narrow_unsigned)) return true;
  PyErr_SetString(PyExc_OverflowError, "Python int too large to convert to C long");
  return false;
}

bool is_int_dtype(DType d) {
  return d != DType::Bool && d != DType::Float32 && d != DType::Float64;
}

bool fits(int64_t v, DType d) {
  switch (d) {
    case DType::Int8:
      return v >= INT8_MIN && v <= INT8_MAX;
    case DType::Int16:
      return v >= INT16_MIN && v <= INT16_MAX;
    case DType::Int32:
      return v >= INT32_MIN && v <= INT32_MAX;
    case DType::Int64:
      return true;
    case DType::UInt8:
      return v >= 0 && v <= UINT8_MAX;
    case DType::UInt16:
      return v >= 0 && v <= UINT16_MAX;
    case DType::UInt32:
      return v >= 0 && v <= static_cast<int64_t>(UINT32_MAX);
    case DType::UInt64:
      return v >= 0;
    default:
      return true;
  }
}

// arrvm.ndarray's type object (set at module init): an object of exactly
// this type is an Array held by value in a pybind11 instance.
PyTypeObject* g_array_type = nullptr;

Array* subclass_array(py::handle h) {
  PyTypeObject* t = Py_TYPE(h.ptr());
  if (t == &PyFloat_Type || t == &PyLong_Type || t == &PyBool_Type) return nullptr;
  py::detail::make_caster<Array> c;
  if (!c.load(h, false)) return nullptr;
  return &py::detail::cast_op<Array&>(c);
}

// A Python bool, int or float as a weak number; false for anything else.
bool as_scalar(py::handle h, HostScalar* out) {
  PyObject* o = h.ptr();
  if (PyBool_Check(o)) {
    *out = HostScalar(o == Py_True);
    return true;
  }
  if (PyLong_CheckExact(o)) {
    int overflow = 0;
    const long long v = PyLong_AsLongLongAndOverflow(o, &overflow);
    if (overflow > 0) {  // past int64: a uint64 if it fits (NumPy's uint64 constants)
      const unsigned long long u = PyLong_AsUnsignedLongLong(o);
      if (PyErr_Occurred()) {
        PyErr_Clear();
        return false;
      }
      *out = HostScalar(static_cast<uint64_t>(u));
      return true;
    }
    if (overflow) return false;
    *out = HostScalar(static_cast<int64_t>(v));
    return true;
  }
  if (PyFloat_Check(o)) {  // also numpy.float64, a float subclass
    *out = HostScalar(PyFloat_AS_DOUBLE(o));
    return true;
  }
  if (PyComplex_Check(o)) {  // also numpy.complex128, a complex subclass
    const Py_complex c = PyComplex_AsCComplex(o);
    *out = HostScalar(std::complex<double>(c.real, c.imag));
    return true;
  }
  return false;
}

// True if a number can be taken weakly next to an array of dtype d exactly as
// NumPy 1.24 would (value-based casting would pick another dtype otherwise).
bool weak_ok(const HostScalar& s, DType d) {
  if (s.kind() == HostScalar::Kind::Int && is_int_dtype(d)) return fits(s.as_int(), d);
  // An int next to float32: its smallest dtype (int8 ... uint16) keeps float32, int32 and wider give
  // float64 (ones(3, float32) * 65536 is float64 in NumPy 1.24).
  if (s.kind() == HostScalar::Kind::Int && d == DType::Float32)
    return s.as_int() >= -32768 && s.as_int() <= 65535;
  if (s.kind() == HostScalar::Kind::UInt) return d == DType::UInt64;  // else NumPy's promotion decides
  auto fits_float = [](double x) { return !(std::isfinite(x) && std::fabs(x) > FLT_MAX); };
  if (s.kind() == HostScalar::Kind::Float && (d == DType::Float32 || d == DType::Complex64))
    return fits_float(s.as_double());
  // A complex number next to float32 or complex64 keeps single precision
  // when both parts fit it (value-based casting), as the C++ API does.
  if (s.kind() == HostScalar::Kind::Complex && (d == DType::Float32 || d == DType::Complex64))
    return fits_float(s.as_double()) && fits_float(s.imag());
  if (s.kind() == HostScalar::Kind::Int && d == DType::Complex64)
    return s.as_int() >= -32768 && s.as_int() <= 65535;
  return true;
}

// 0 bool, 1 integer, 2 real: NumPy 1.x's kinds for value-based casting.
int kind_rank(DType d) {
  return d == DType::Bool ? 0 : is_int_dtype(d) ? 1 : is_complex_dtype(d) ? 3 : 2;
}

// A number next to an array of dtype d, taken as the C++ API takes a
// number (NumPy 1.24's rules): a Python bool, int or float that weak_ok
// lets through, or a NumPy scalar (an element read: `b != a[i]`) whose
// promotion with d is the Python number's: of d's kind or a lower one (its
// value decides, as a Python number's), or of a higher kind with that
// kind's Python dtype (int64, float64). Others (float32(1.5) next to an
// int array) go to the slow path, which asks NumPy.
bool number_operand(py::handle h, DType d, HostScalar* s) {
  if (as_scalar(h, s)) return weak_ok(*s, d);
  DType ds = DType::Bool;
  if (!numpy_number(h, s, &ds)) return false;
  if (kind_rank(ds) > kind_rank(d) && ds != DType::Int64 && ds != DType::Float64) return false;
  return weak_ok(*s, d);
}

// The operands of a ufunc if the fast path takes all of them.
bool fast_operands(py::handle a, py::handle b, int n, std::vector<ArrayOrScalar>* out) {
  py::handle h[2] = {a, b};
  Array* arr[2] = {nullptr, nullptr};
  HostScalar sc[2] = {HostScalar(0), HostScalar(0)};
  for (int i = 0; i < n; ++i) arr[i] = as_array(h[i]);
  if (n == 2) {
    if (arr[0] && arr[1]) {
      // NumPy 1.x: a 0-d operand next to an n-d one is value-based.
      if ((arr[0]->ndim() == 0) != (arr[1]->ndim() == 0) && arr[0]->dtype() != arr[1]->dtype()) return false;
    } else if (arr[0]) {
      if (!number_operand(h[1], arr[0]->dtype(), &sc[1])) return false;
    } else if (arr[1]) {
      if (!number_operand(h[0], arr[1]->dtype(), &sc[0])) return false;
    } else {
      return false;
    }
  } else if (!arr[0]) {
    return false;
  }
  out->clear();
  for (int i = 0; i < n; ++i) {
    if (arr[i]) {
      out->emplace_back(*arr[i]);
    } else {
      out->emplace_back(sc[i]);
    }
  }
  return true;
}

// pybind11's record of arrvm.ndarray, looked up once (py::cast looks it up
// by the C++ type's name, hashing it, on every call).
const py::detail::type_info* g_array_tinfo = nullptr;

// A new Python arrvm.ndarray owning `a`: what pybind11's cast with
// return_value_policy::move does for it (type_caster_generic::cast, then
// class_::init_instance), without the two lookups that cost the most of it
// and find nothing for a new array: the search of the registered instances
// for the value's address, and the type's record, found by hashing the C++
// type's name on every call. It holds its value in the class's holder
// (std::unique_ptr) as pybind11's own do, so that pybind11 deallocates it
// as any other, but it is not entered in pybind11's table of registered
// instances (an insertion now and an erasure at its end: ~40 ns of an
// operation): that table only finds the Python object of a C++ pointer or
// reference being returned, and the module returns arrays by value only
// (pybind11's dealloc skips the erasure of an unregistered instance).
py::object wrap(Array a) {
  if (!g_array_tinfo) return py::cast(std::move(a));
  auto obj = py::reinterpret_steal<py::object>(py::detail::make_new_instance(g_array_tinfo->type));
  if (!obj) throw py::error_already_set();
  auto* inst = reinterpret_cast<py::detail::instance*>(obj.ptr());
  inst->owned = true;
  py::detail::value_and_holder v_h = inst->get_value_and_holder(g_array_tinfo);
  v_h.value_ptr() = new Array(std::move(a));
  using Holder = std::unique_ptr<Array>;
  static_assert(std::is_same_v<py::class_<Array>::holder_type, Holder>, "py::class_<Array>'s holder");
  new (std::addressof(v_h.holder<Holder>())) Holder(v_h.value_ptr<Array>());
  v_h.set_holder_constructed();
  return obj;
}

// ufunc `name` on (a[, b]) into a new array or `out` (None: new). Returns the
// result object (out's own Python object when given).
py::object call_ufunc(const char* name, int n, py::handle a, py::handle b, py::handle out) {
  std::vector<ArrayOrScalar> args;
  Array* o = out.is_none() ? nullptr : as_array(out);
  if ((!out.is_none() && !o) || !fast_operands(a, b, n, &args)) {
    if (!g_ufunc_slow)
      throw py::type_error(std::string(name) + ": import the arrvm package, not arrvm._core alone");
    py::tuple t(n);
    t[0] = py::reinterpret_borrow<py::object>(a);
    if (n == 2) t[1] = py::reinterpret_borrow<py::object>(b);
    return g_ufunc_slow(name, t, py::reinterpret_borrow<py::object>(out));
  }
  Array r = arrvm::ufunc(name, args, o);
  if (o) return py::reinterpret_borrow<py::object>(out);
  return wrap(std::move(r));
}

#define ARRVM_BINOP(name, rname, iname, ufname)                                                              \
  cls.def(name,                                                                                              \
          [](py::handle self, py::handle other) { return call_ufunc(ufname, 2, self, other, py::none()); }); \
  cls.def(rname,                                                                                             \
          [](py::handle self, py::handle other) { return call_ufunc(ufname, 2, other, self, py::none()); }); \
  cls.def(iname, [](py::handle self, py::handle other) { return call_ufunc(ufname, 2, self, other, self); });

std::vector<int64_t> to_shape(py::handle h) {
  std::vector<int64_t> s;
  if (PyLong_Check(h.ptr()) || (PyIndex_Check(h.ptr()) && !PySequence_Check(h.ptr()))) {
    s.push_back(PyNumber_AsSsize_t(h.ptr(), PyExc_OverflowError));
    if (PyErr_Occurred()) throw py::error_already_set();
    return s;
  }
  for (py::handle x : py::reinterpret_borrow<py::iterable>(h)) {
    const Py_ssize_t v = PyNumber_AsSsize_t(x.ptr(), PyExc_OverflowError);
    if (v == -1 && PyErr_Occurred()) throw py::error_already_set();
    s.push_back(v);
  }
  return s;
}

HostScalar scalar_of(py::handle h) {
  HostScalar s(0);
  if (!as_scalar(h, &s)) throw py::type_error("expected a Python bool, int or float");
  return s;
}

// libarrvm's messages into NumPy's exception classes.
// The exception Python's signal handler raised (KeyboardInterrupt, or what a
// handler of the user's raised), held from the VM's check until the
// InterruptedError it became reaches Python again.
PyObject* g_interrupt_type = nullptr;
PyObject* g_interrupt_value = nullptr;
PyObject* g_interrupt_tb = nullptr;

// arrvm::set_interrupt_check's check: runs Python's pending signal handlers
// (only the main thread, with the GIL, may). The error they raise is kept
// aside: the VM unwinds in C++ first.
bool python_interrupted() {
  if (!PyGILState_Check() || PyErr_CheckSignals() == 0) return false;
  PyObject *t = nullptr, *v = nullptr, *tb = nullptr;
  PyErr_Fetch(&t, &v, &tb);
  Py_XDECREF(g_interrupt_type);
  Py_XDECREF(g_interrupt_value);
  Py_XDECREF(g_interrupt_tb);
  g_interrupt_type = t;
  g_interrupt_value = v;
  g_interrupt_tb = tb;
  return true;
}

void translate(const arrvm::Error& e) {
  const std::string m = e.what();
  auto has = [&](const char* w) { return m.find(w) != std::string::npos; };
  PyObject* cls = PyExc_ValueError;
  if (dynamic_cast<const arrvm::OutOfMemoryError*>(&e)) {
    cls = PyExc_MemoryError;
  } else if (dynamic_cast<const arrvm::InterruptedError*>(&e)) {
    if (g_interrupt_type != nullptr) {  // what the signal handler raised, once
      PyErr_Restore(g_interrupt_type, g_interrupt_value, g_interrupt_tb);
      g_interrupt_type = g_interrupt_value = g_interrupt_tb = nullptr;
      return;
    }
    cls = PyExc_KeyboardInterrupt;
  } else if (dynamic_cast<const arrvm::BackendError*>(&e)) {
    cls = PyExc_RuntimeError;
  } else if (has("axis") && has("out of range for a")) {
    cls = g_error_class ? g_error_class.ptr() : PyExc_ValueError;
  } else if (has("out of bounds") || has("too many indices") || has("out of range")) {
    cls = PyExc_IndexError;
  } else if (has("not supported for") || has("is not a ufunc") || has("Cannot cast ufunc")) {
    cls = PyExc_TypeError;
  }
  PyErr_SetString(cls, m.c_str());
}

// The VM's floating-point report (Runtime::set_fp_report): NumPy's errstate
// acts on the flags (arrvm/_fp.py: warn, raise, call, print, log or
// ignore). Its Python error (FloatingPointError, or a warning the filters
// made an error) propagates as the error of the call that ran the work.
void python_fp_report() {
  if (!PyGILState_Check() || PyErr_Occurred() != nullptr) return;  // (the flags wait)
  std::vector<std::string> ops;
  const uint32_t flags = arrvm::Vm::default_vm().take_fp_flags(&ops);
  if (flags == 0) return;
  // (A strong reference never released: a static py::object would be
  // destroyed after the interpreter.)
  static PyObject* report = nullptr;
  if (report == nullptr) {
    try {
      report = py::object(py::module_::import("arrvm._fp").attr("report")).release().ptr();
    } catch (py::error_already_set&) {
      return;  // (no package: a bare _core, or the interpreter's end)
    }
  }
  py::reinterpret_borrow<py::object>(report)(flags, ops);
}

arrvm::Vm& vm() {
  arrvm::Vm& v = arrvm::Vm::default_vm();
  static const bool reported = (v.set_fp_report(&python_fp_report), true);
  (void)reported;
  return v;
}

}  // namespace arrvm_python

using namespace arrvm_python;  // (the module's bindings below)

PYBIND11_MODULE(_core, m) {
  m.doc() = "libarrvm's Python binding (the arrvm package wraps it)";
  arrvm::set_interrupt_check(&python_interrupted);
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const arrvm::Error& e) {
      translate(e);
    }
  });

  py::class_<Array> cls(m, "ndarray");
  // (shape, ndim, size, dtype, _dt, _strides: C getters, install_attributes.)
  cls.def_property_readonly("_version", [](const Array& a) { return a.version(); });  // (Array::version)
  cls.def_property_readonly("_offset", &Array::offset);
  cls.def_property("_writeable", &Array::writeable, &Array::set_writeable);
  // a.strides = ...: this object becomes the view with those strides (in elements).
  cls.def("_restride", [](Array& a, const std::vector<int64_t>& strides) {
    a = a.strided(a.offset(), a.shape(), arrvm::Shape(strides.begin(), strides.end()));
  });
  cls.def_property_readonly("_base_id", &Array::base_id);
  cls.def_property_readonly("_base_size", &Array::base_size);
  cls.def("_describe", &Array::describe);

  ARRVM_BINOP("__add__", "__radd__", "__iadd__", "add")
  ARRVM_BINOP("__sub__", "__rsub__", "__isub__", "subtract")
  ARRVM_BINOP("__mul__", "__rmul__", "__imul__", "multiply")
  ARRVM_BINOP("__truediv__", "__rtruediv__", "__itruediv__", "true_divide")
  ARRVM_BINOP("__floordiv__", "__rfloordiv__", "__ifloordiv__", "floor_divide")
  ARRVM_BINOP("__mod__", "__rmod__", "__imod__", "remainder")
  ARRVM_BINOP("__pow__", "__rpow__", "__ipow__", "power")
  ARRVM_BINOP("__and__", "__rand__", "__iand__", "bitwise_and")
  ARRVM_BINOP("__or__", "__ror__", "__ior__", "bitwise_or")
  ARRVM_BINOP("__xor__", "__rxor__", "__ixor__", "bitwise_xor")
  ARRVM_BINOP("__lshift__", "__rlshift__", "__ilshift__", "left_shift")
  ARRVM_BINOP("__rshift__", "__rrshift__", "__irshift__", "right_shift")
  cls.def("__eq__", [](py::handle s, py::handle o) { return call_ufunc("equal", 2, s, o, py::none()); });
  cls.def("__ne__", [](py::handle s, py::handle o) { return call_ufunc("not_equal", 2, s, o, py::none()); });
  cls.def("__lt__", [](py::handle s, py::handle o) { return call_ufunc("less", 2, s, o, py::none()); });
  cls.def("__le__", [](py::handle s, py::handle o) { return call_ufunc("less_equal", 2, s, o, py::none()); });
  cls.def("__gt__", [](py::handle s, py::handle o) { return call_ufunc("greater", 2, s, o, py::none()); });
  cls.def("__ge__",
          [](py::handle s, py::handle o) { return call_ufunc("greater_equal", 2, s, o, py::none()); });
  cls.def("__neg__", [](py::handle s) { return call_ufunc("negative", 1, s, py::none(), py::none()); });
  cls.def("__abs__", [](py::handle s) { return call_ufunc("absolute", 1, s, py::none(), py::none()); });
  cls.def("__invert__", [](py::handle s) { return call_ufunc("invert", 1, s, py::none(), py::none()); });
  // A 0-d array stands for NumPy's scalar (x[i]), which hashes as its value
  // (`counts[x[i]] += 1`); arrays of any other shape are unhashable, as NumPy's.
  cls.def("__hash__", [](py::handle self) -> py::ssize_t {
    if (as_array(self)->ndim() != 0) throw py::type_error("unhashable type: 'arrvm.ndarray'");
    return py::hash(self.attr("item")());
  });

  cls.def("__getitem__", &getitem);
  cls.def("__setitem__", &setitem);

  cls.def("_reshape", [](const Array& a, py::handle shape) { return wrap(a.reshape(to_shape(shape))); });
  cls.def("_transpose", [](const Array& a, const std::vector<int>& axes) {
    return wrap(axes.empty() ? a.transpose() : a.transpose(axes));
  });
  cls.def("_broadcast_to",
          [](const Array& a, py::handle shape) { return wrap(a.broadcast_to(to_shape(shape))); });
  cls.def("copy", [](const Array& a) { return wrap(a.copy()); });
  cls.def("_roll", [](const Array& a, int64_t s, int axis) { return wrap(roll_copy(a, s, axis)); });
  cls.def("_astype", [](const Array& a, int dt) { return wrap(a.astype(static_cast<DType>(dt))); });
  cls.def("_expand_dims", [](const Array& a, int axis) { return wrap(a.expand_dims(axis)); });
  cls.def("_squeeze", [](const Array& a, const std::vector<int>& axes) { return wrap(a.squeeze(axes)); });
  cls.def(
      "_take",
      [](const Array& a, const Array& idx, int mode) {
        return wrap(a.take(idx, static_cast<Array::TakeMode>(mode)));
      },
      py::arg("idx"), py::arg("mode") = 0);  // (mode: Array::TakeMode, raise 0, clip 1, wrap 2)
  cls.def("_take_in_range", [](const Array& a, const Array& idx) { return wrap(a.take_in_range(idx)); });
  cls.def("_index_bounds", &index_bounds);  // (see index_bounds)
  cls.def("_arg_extreme_now", &arg_extreme_now);
  cls.def("_put", [](Array& a, const Array& idx, const Array& v) { a.put(idx, v); });
  cls.def("_assign", [](Array& a, py::handle v) {
    if (Array* x = as_array(v)) {
      a.assign(*x);
    } else {
      a.assign(scalar_of(v));
    }
  });
  cls.def("_cumsum", [](const Array& a, std::optional<int> axis) { return wrap(a.cumsum(axis)); });
  cls.def("_cumprod", [](const Array& a, std::optional<int> axis) { return wrap(a.cumprod(axis)); });
  cls.def("_cummin", [](const Array& a, std::optional<int> axis) { return wrap(a.cummin(axis)); });
  cls.def("_cummax", [](const Array& a, std::optional<int> axis) { return wrap(a.cummax(axis)); });
  cls.def("_read_into", [](const Array& a, py::buffer b) {
    py::buffer_info info = b.request(true);
    a.copy_to_host(info.ptr, static_cast<std::size_t>(info.size * info.itemsize));
  });

  m.def(
      "ufunc",
      [](const char* name, py::tuple args, py::handle out) {
        const int n = static_cast<int>(args.size());
        if (n < 1 || n > 2 || arrvm::ufunc_arity(name) != n) {
          throw arrvm::Error(std::string(name) + ": takes " + std::to_string(arrvm::ufunc_arity(name)) +
                             " operand(s), got " + std::to_string(n));
        }
        return call_ufunc(name, n, args[0], n == 2 ? py::handle(args[1]) : py::handle(py::none()), out);
      },
      py::arg("name"), py::arg("args"), py::arg("out") = py::none());
  // The ufunc on operands the caller has already normalized (no hooks).
  m.def(
      "ufunc_direct",
      [](const std::string& name, py::tuple args, py::handle out) {
        std::vector<ArrayOrScalar> ops;
        for (py::handle h : args) {
          if (Array* x = as_array(h)) {
            ops.emplace_back(*x);
          } else {
            ops.emplace_back(scalar_of(h));
          }
        }
        Array* o = out.is_none() ? nullptr : as_array(out);
        Array r = arrvm::ufunc(name, ops, o);
        if (o) return py::reinterpret_borrow<py::object>(out);
        return wrap(std::move(r));
      },
      py::arg("name"), py::arg("args"), py::arg("out") = py::none());
  // The ufunc when call_ufunc's fast path takes its operands (arrvm arrays
  // and numbers, no out=), else None: ufunc.__call__ tries it first.
  m.def("ufunc_fast", [](const char* name, py::tuple args) -> py::object {
    const int n = static_cast<int>(args.size());
    std::vector<ArrayOrScalar> ops;
    if (n < 1 || n > 2 || !fast_operands(args[0], n == 2 ? py::handle(args[1]) : py::handle(), n, &ops))
      return py::none();
    return wrap(arrvm::ufunc(name, ops, nullptr));
  });
  m.def("ufunc_caller", &ufunc_caller);
  m.def("ufunc_arity", [](const std::string& name) { return arrvm::ufunc_arity(name); });
  // A 0-d array's value as NumPy's scalar when nothing pending writes it
  // (the result of eager work: Runtime::read_now reads it with no flush),
  // else the array itself (lazy). A full reduction returns this, as
  // NumPy's returns its scalar: json.dumps, float(), `if`, max() take it as
  // a number.
  m.def("scalar_if_ready", [](py::handle h) -> py::object {
    const Array* a = as_array(h);
    if (a == nullptr || a->ndim() != 0) return py::reinterpret_borrow<py::object>(h);
    py::object v = value_if_ready(*a);
    return exact_array(v.ptr()) != nullptr ? py::reinterpret_borrow<py::object>(h) : v;
  });
  m.def("reduce", [](const std::string& name, const Array& a, std::optional<std::vector<int>> axes,
                     bool keepdims, int dt) {
    std::optional<DType> d;
    if (dt >= 0) d = static_cast<DType>(dt);
    return wrap(arrvm::reduce(name, a, axes, keepdims, d));
  });
  // `x.sum()`, `x.max()`, ... with no arguments: reduce and scalar_if_ready
  // in one call (the Python method's path took 1.35 us on 10 elements,
  // NumPy's 0.69).
  m.def("reduce_value", [](const std::string& name, const Array& a) -> py::object {
    return value_if_ready(arrvm::reduce(name, a, std::nullopt, false, std::nullopt));
  });
  m.def("where", [](const Array& c, py::handle a, py::handle b) {
    Array* x = as_array(a);
    Array* y = as_array(b);
    if (x && y) return wrap(arrvm::where(c, *x, *y));
    if (x) return wrap(arrvm::where(c, *x, scalar_of(b)));
    if (y) return wrap(arrvm::where(c, scalar_of(a), *y));
    return wrap(arrvm::where(c, scalar_of(a), scalar_of(b)));
  });
  def_convert(m);  // holds_array, from_numpy, empty
  m.def("full", [](py::handle shape, py::handle v, int dt) {
    return wrap(Array::full(to_shape(shape), scalar_of(v), static_cast<DType>(dt), vm()));
  });
  m.def("arange", [](py::handle start, py::handle stop, py::handle step, int dt) {
    const HostScalar a = scalar_of(start), b = scalar_of(stop), c = scalar_of(step);
    const auto f = HostScalar::Kind::Float;
    const auto d = static_cast<DType>(dt);
    if (a.kind() != f && b.kind() != f && c.kind() != f) {
      return wrap(Array::arange<int64_t, int64_t, int64_t>(a.as_int(), b.as_int(), c.as_int(), d, vm()));
    }
    auto num = [](const HostScalar& s) {
      return s.kind() == HostScalar::Kind::Float ? s.as_double() : static_cast<double>(s.as_int());
    };
    return wrap(Array::arange<double, double, double>(num(a), num(b), num(c), d, vm()));
  });
  m.def("imag", [](const Array& a) { return arrvm::imag(a); });
  m.def("make_complex", [](const Array& re, const Array& im) { return arrvm::make_complex(re, im); });
  m.def("random_uniform",
        [](py::handle shape, uint64_t seed) { return Array::random_uniform(to_shape(shape), seed, vm()); });
  // NumPy's MT19937 and PCG64 doubles (_random.cpp) into `out` (a
  // contiguous 1-d float64 buffer), from and advancing the bit generator's
  // state at `state` (its ctypes.state_address, whose layout arrvm/random.py
  // checks against the generator's .state first); `scaled`: low + range * u.
  m.def("stream_doubles", [](const std::string& generator, uintptr_t state, py::buffer out, double low,
                             double range, bool scaled) {
    py::buffer_info info = out.request(true);
    if (info.format != py::format_descriptor<double>::format() || info.ndim != 1 ||
        (info.size > 1 && info.strides[0] != static_cast<py::ssize_t>(sizeof(double))))
      throw arrvm::Error("stream_doubles: out must be a contiguous 1-d float64 buffer");
    auto fill = generator == "MT19937" ? mt19937_doubles : generator == "PCG64" ? pcg64_doubles : nullptr;
    if (!fill) throw arrvm::Error("stream_doubles: no generator " + generator);
    py::gil_scoped_release unlocked;
    fill(reinterpret_cast<void*>(state), static_cast<double*>(info.ptr), info.size, low, range, scaled);
  });
  // An array on a C-contiguous, writable buffer's memory, not copied
  // (Array::adopt): the buffer's object is kept alive until the VM frees the
  // base, then released under the GIL (leaked if the interpreter is gone).
  m.def("adopt", [](py::buffer b, int dt, py::handle shape) {
    py::buffer_info info = b.request(true);
    const auto dtype = static_cast<DType>(dt);
    const std::vector<int64_t> s = to_shape(shape);
    int64_t n = 1;
    for (int64_t e : s) n *= e;
    if (info.size != n || info.itemsize != static_cast<py::ssize_t>(arrvm::dtype_size(dtype))) {
      throw arrvm::Error("adopt: the buffer does not hold the array's elements");
    }
    py::ssize_t expect = info.itemsize;
    for (py::ssize_t i = info.ndim - 1; i >= 0; --i) {
      if (info.shape[i] != 1 && info.strides[i] != expect)
        throw arrvm::Error("adopt: the buffer is not C-contiguous");
      expect *= info.shape[i];
    }
    // The base id is known once the array exists; the deleter looks it up then.
    auto ran = std::make_shared<bool>(false);
    auto id = std::make_shared<int64_t>(-1);
    auto* keep = new py::object(py::reinterpret_borrow<py::object>(b));
    auto release = [keep, id, ran](void*) {
      *ran = true;
      if (!Py_IsInitialized()) return;
      py::gil_scoped_acquire gil;
      auto it = g_host.find(*id);
      if (it != g_host.end() && it->second == keep->ptr()) g_host.erase(it);
      delete keep;
    };
    Array r = Array::adopt(info.ptr, s, dtype, release, vm());
    *id = r.base_id();
    if (!*ran) g_host[*id] = b.ptr();  // shared (a host backend), not copied
    return r;
  });
  // The 1-D NumPy array that is the memory of a's base, after a sync of the
  // base (numpy.asarray(a) views it), or None if the base's memory is the VM's.
  m.def("_host_base", [](const Array& a) -> py::object {
    auto it = g_host.find(a.base_id());
    if (it == g_host.end()) return py::none();
    a.sync();
    return py::reinterpret_borrow<py::object>(it->second);
  });
  // Moves a's base into `dst` (a writable 1-D NumPy array of the base's
  // size and dtype, Array::move_base_to_host): True if the VM computes in it
  // from now on, False if it is a snapshot (device backends).
  m.def("_move_to_host", [](const Array& a, py::buffer dst) {
    py::buffer_info info = dst.request(true);
    if (info.size != a.base_size() ||
        info.itemsize != static_cast<py::ssize_t>(arrvm::dtype_size(a.dtype()))) {
      throw arrvm::Error("_move_to_host: the buffer does not hold the base's elements");
    }
    const int64_t id = a.base_id();
    auto ran = std::make_shared<bool>(false);
    const bool shared =
        a.move_base_to_host(info.ptr, numpy_deleter(py::reinterpret_borrow<py::object>(dst), id, ran));
    if (shared && !*ran) g_host[id] = dst.ptr();
    return shared;
  });
  m.def("flush", []() { vm().flush(); });
  m.def("profile_json", []() { return vm().profile_json(); });
  m.def("write_profile", []() {
    try {
      if (vm().config_value("profile").empty()) return;
    } catch (const std::exception&) {
      return;  // no VM (a bad configuration, whose error the program already got): nothing to report
    }
    try {
      vm().flush();  // at exit: an error of a pending batch has no reader left
    } catch (const std::exception&) {
    }
    vm().report_profile();
  });
  m.def("config", []() {
    py::dict d;
    for (const char* k : {"backend", "fuser", "cost", "batch", "trace", "profile", "cache", "cache_dir"}) {
      d[k] = vm().config_value(k);
    }
    return d;
  });
  // NumPy's scalar type of each dtype.
  m.def("set_scalar_types", [](py::list types) {
    if (types.size() != static_cast<std::size_t>(DType::Complex128) + 1)
      throw py::value_error("set_scalar_types: one type per dtype");
    g_scalar_types.clear();
    for (py::handle t : types) g_scalar_types.push_back(py::reinterpret_borrow<py::object>(t).release());
    load_array_scalar();
  });
  m.def("set_hooks", [](py::object ufunc_slow, py::object getitem_slow, py::object setitem_slow,
                        py::object axis_error, py::object matmul) {
    g_ufunc_slow = ufunc_slow.release();
    g_getitem_slow = getitem_slow.release();
    g_setitem_slow = setitem_slow.release();
    g_error_class = axis_error.release();
    g_matmul_slow = matmul.release();
    // (After the package set __matmul__/__rmatmul__, which took the slot.)
    g_array_type->tp_as_number->nb_matrix_multiply = nb_matmul;
    install_scalar_slots(g_array_type);
  });
  g_array_type = reinterpret_cast<PyTypeObject*>(cls.ptr());
  g_array_tinfo = py::detail::get_type_info(typeid(Array));
  install_slots(g_array_type);
  install_attributes(g_array_type);
  m.attr("__version__") = ARRVM_VERSION;
}
