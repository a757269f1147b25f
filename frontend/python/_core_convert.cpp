// arrvm._core's conversions from host data (_core.hpp): asarray's steps
// in C++. A NumPy program builds small arrays from lists inside its loops
// (`np.concatenate([[i], best - j])`, `np.array([x, y])`); in Python,
// asarray([i]) took ~4 us against NumPy's 0.3, most of it walking the list
// for arrvm arrays with a generator and pybind11's buffer_info. Lists of
// Python numbers are built here without NumPy (list_array).
#include <pybind11/pybind11.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "_core.hpp"
#include "arrvm/arrvm.hpp"

namespace arrvm_python {

namespace {

// Whether a list or tuple holds an arrvm array, at any depth up to NumPy's
// 64 dimensions (deeper nesting is NumPy's error to give).
bool holds_array(PyObject* x, int depth) {
  if (!(PyList_Check(x) || PyTuple_Check(x))) return as_array(py::handle(x)) != nullptr;
  if (depth > 64) return false;
  // (A list's or a tuple's items, borrowed: as_array runs no Python code
  // that could change the list.)
  const Py_ssize_t n = PySequence_Fast_GET_SIZE(x);
  PyObject** items = PySequence_Fast_ITEMS(x);
  for (Py_ssize_t k = 0; k < n; ++k) {
    if (holds_array(items[k], depth + 1)) return true;
  }
  return false;
}

// A copy of a C-contiguous buffer (a NumPy array) as an arrvm array of
// dtype `dt` and the buffer's shape; None if the buffer is not
// C-contiguous (the caller makes it so and asks again).
py::object from_numpy(py::handle a, int dt) {
  Py_buffer view;
  if (PyObject_GetBuffer(a.ptr(), &view, PyBUF_C_CONTIGUOUS) != 0) {
    PyErr_Clear();
    return py::none();
  }
  struct Release {
    Py_buffer* v;
    ~Release() { PyBuffer_Release(v); }
  } release{&view};
  const auto dtype = static_cast<DType>(dt);
  if (view.itemsize != static_cast<Py_ssize_t>(arrvm::dtype_size(dtype)))
    throw arrvm::Error("from_numpy: the buffer's items are not " + std::string(arrvm::dtype_name(dtype)));
  std::vector<int64_t> shape(view.shape, view.shape + view.ndim);
  return wrap(Array::from_buffer(view.buf, static_cast<std::size_t>(view.len), dtype, shape, vm()));
}

// What NumPy makes of a list's numbers: bools alone are bool, with an int
// int64, with a float float64 (np.float64 is a float); anything else (an
// int past int64, complex, NumPy's other scalars, arrays) is not ours.
enum class Kind { Bool, Int, Float, Other };

Kind number_kind(PyObject* x) {
  if (PyBool_Check(x)) return Kind::Bool;
  if (PyLong_Check(x)) return Kind::Int;
  if (PyFloat_Check(x)) return Kind::Float;
  return Kind::Other;
}

// A list or tuple of Python numbers (1-D), or of lists or tuples of one
// length holding them (2-D), as a new array of NumPy's dtype for them,
// built at once; None for anything else (asarray's general path: NumPy
// converts it). `np.array([x, y])`, `np.concatenate([[i], row])` and
// `np.array(points)` in a loop took ~1.2 us a call through NumPy.
py::object list_array(py::handle obj) {
  PyObject* o = obj.ptr();
  if (!PyList_CheckExact(o) && !PyTuple_CheckExact(o)) return py::none();
  const Py_ssize_t rows = PySequence_Fast_GET_SIZE(o);
  if (rows == 0) return py::none();
  PyObject** outer = PySequence_Fast_ITEMS(o);
  const bool nested = PyList_CheckExact(outer[0]) || PyTuple_CheckExact(outer[0]);
  const Py_ssize_t cols = nested ? PySequence_Fast_GET_SIZE(outer[0]) : 1;
  if (cols == 0) return py::none();
  // (Items borrowed: nothing below runs Python code that could change the lists.)
  std::vector<PyObject*> items;
  items.reserve(static_cast<std::size_t>(rows * cols));
  for (Py_ssize_t r = 0; r < rows; ++r) {
    PyObject* row = outer[r];
    if (!nested) {
      items.push_back(row);
      continue;
    }
    if ((!PyList_CheckExact(row) && !PyTuple_CheckExact(row)) || PySequence_Fast_GET_SIZE(row) != cols)
      return py::none();
    PyObject** inner = PySequence_Fast_ITEMS(row);
    items.insert(items.end(), inner, inner + cols);
  }
  Kind kind = Kind::Bool;
  for (PyObject* x : items) {
    const Kind k = number_kind(x);
    if (k == Kind::Other) return py::none();
    kind = std::max(kind, k);
  }
  const std::vector<int64_t> shape = nested ? std::vector<int64_t>{rows, cols} : std::vector<int64_t>{rows};
  const std::size_t n = items.size();
  if (kind == Kind::Float) {
    std::vector<double> v(n);
    for (std::size_t k = 0; k < n; ++k) {
      if (PyFloat_Check(items[k])) {
        v[k] = PyFloat_AS_DOUBLE(items[k]);
        continue;
      }
      int overflow = 0;  // (a bool or an int, rounded as NumPy rounds it; past int64: NumPy's path)
      const long long i = PyLong_AsLongLongAndOverflow(items[k], &overflow);
      if (overflow != 0) return py::none();
      if (i == -1 && PyErr_Occurred()) throw py::error_already_set();
      v[k] = static_cast<double>(i);
    }
    return wrap(Array::from_buffer(v.data(), n * sizeof(double), DType::Float64, shape, vm()));
  }
  if (kind == Kind::Int) {
    std::vector<int64_t> v(n);
    for (std::size_t k = 0; k < n; ++k) {
      int overflow = 0;
      v[k] = PyLong_AsLongLongAndOverflow(items[k], &overflow);
      if (overflow != 0) return py::none();  // (NumPy: uint64, or objects)
      if (v[k] == -1 && PyErr_Occurred()) throw py::error_already_set();
    }
    return wrap(Array::from_buffer(v.data(), n * sizeof(int64_t), DType::Int64, shape, vm()));
  }
  std::vector<uint8_t> v(n);
  for (std::size_t k = 0; k < n; ++k) v[k] = items[k] == Py_True ? 1 : 0;
  return wrap(Array::from_buffer(v.data(), n, DType::Bool, shape, vm()));
}

// empty(shape, dtype code) without pybind11's dispatch (np.empty and
// np.zeros in a loop: ~0.25 us of a call).
PyObject* empty_call(PyObject*, PyObject* const* args, Py_ssize_t nargs) {
  if (nargs != 2) {
    PyErr_SetString(PyExc_TypeError, "empty(shape, dtype code)");
    return nullptr;
  }
  const long dt = PyLong_AsLong(args[1]);
  if (dt == -1 && PyErr_Occurred()) return nullptr;
  if (dt < 0 || dt > static_cast<long>(DType::Complex128)) {
    PyErr_SetString(PyExc_ValueError, "empty: not a dtype code");
    return nullptr;
  }
  return run_slot([&] { return wrap(Array::empty(to_shape(args[0]), static_cast<DType>(dt), vm())); });
}

PyMethodDef g_empty_def = {"empty", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(&empty_call)),
                           METH_FASTCALL, "A new array of `shape` and dtype code `dt`; it reads as zeros."};

}  // namespace

void def_convert(py::module_& m) {
  m.def("holds_array", [](py::handle x) { return holds_array(x.ptr(), 0); });
  m.def("from_numpy", &from_numpy);
  m.def("list_array", &list_array);
  PyObject* empty = PyCFunction_NewEx(&g_empty_def, nullptr, nullptr);
  if (empty == nullptr) throw py::error_already_set();
  m.add_object("empty", py::reinterpret_steal<py::object>(empty));
}

}  // namespace arrvm_python
