// arrvm._core's conversions from host data (_core.hpp): asarray's steps
// in C++. A NumPy program builds small arrays from lists inside its loops
// (`np.concatenate([[i], best - j])`, `np.array([x, y])`); in Python,
// asarray([i]) took ~4 us against NumPy's 0.3, most of it walking the list
// for arrvm arrays with a generator and pybind11's buffer_info.
#include <pybind11/pybind11.h>

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

}  // namespace

void def_convert(py::module_& m) {
  m.def("holds_array", [](py::handle x) { return holds_array(x.ptr(), 0); });
  m.def("from_numpy", &from_numpy);
  m.def("empty", [](py::handle shape, int dt) {
    return wrap(Array::empty(to_shape(shape), static_cast<DType>(dt), vm()));
  });
}

}  // namespace arrvm_python
