// arrvm._core's ufunc objects' call (_core.hpp): `np.minimum(a, b)`,
// `np.exp(x)` of arrvm arrays and numbers straight to the C++ function, as
// the operators' slots (_core_slots.cpp) go; anything else to the
// package's Python method.
#include <pybind11/pybind11.h>

#include <iterator>
#include <string>
#include <vector>

#include "_core.hpp"
#include "arrvm/arrvm.hpp"

namespace arrvm_python {

namespace {

// The ufuncs of one operand whose C++ function is the ufunc (fabs, which
// casts integers to float, is not one).
using FnU = Array (*)(const Array&);
struct UnaryOp {
  const char* name;
  FnU f;
};
#define ARRVM_UNARY_OP(fn) \
  UnaryOp {                \
#fn, &arrvm::fn        \
  }
const UnaryOp kUnary[] = {
    ARRVM_UNARY_OP(logical_not), ARRVM_UNARY_OP(invert),  ARRVM_UNARY_OP(negative),
    ARRVM_UNARY_OP(absolute),    ARRVM_UNARY_OP(sign),    ARRVM_UNARY_OP(sqrt),
    ARRVM_UNARY_OP(exp),         ARRVM_UNARY_OP(exp2),    ARRVM_UNARY_OP(expm1),
    ARRVM_UNARY_OP(log),         ARRVM_UNARY_OP(log2),    ARRVM_UNARY_OP(log10),
    ARRVM_UNARY_OP(log1p),       ARRVM_UNARY_OP(sin),     ARRVM_UNARY_OP(cos),
    ARRVM_UNARY_OP(tan),         ARRVM_UNARY_OP(arcsin),  ARRVM_UNARY_OP(arccos),
    ARRVM_UNARY_OP(arctan),      ARRVM_UNARY_OP(sinh),    ARRVM_UNARY_OP(cosh),
    ARRVM_UNARY_OP(tanh),        ARRVM_UNARY_OP(cbrt),    ARRVM_UNARY_OP(arcsinh),
    ARRVM_UNARY_OP(arccosh),     ARRVM_UNARY_OP(arctanh), ARRVM_UNARY_OP(floor),
    ARRVM_UNARY_OP(ceil),        ARRVM_UNARY_OP(trunc),   ARRVM_UNARY_OP(rint),
    ARRVM_UNARY_OP(isnan),       ARRVM_UNARY_OP(isinf),   ARRVM_UNARY_OP(isfinite),
    ARRVM_UNARY_OP(conjugate),
};
#undef ARRVM_UNARY_OP

// A ufunc object's call (arrvm/_functions.py installs it as its class's
// __call__): a builtin with METH_FASTCALL whose `self` is (name, nin, slow,
// binary, unary), so that `np.minimum(a, b)` of arrvm arrays and numbers
// costs what `a + b` costs (no Python frame, no argument parsing): binary
// and unary index the operators' table (binary_at) and kUnary (-1: none),
// and such a call goes straight to the C++ function, without a vector of
// operands and a lookup of the name. Anything else (keywords, out=, other
// operands) goes to `slow`, the Python method.
PyObject* ufunc_call(PyObject* self, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames) {
  PyObject* slow = PyTuple_GET_ITEM(self, 2);
  const Py_ssize_t nin = PyLong_AsSsize_t(PyTuple_GET_ITEM(self, 1));
  if (kwnames == nullptr && nargs == nin) {
    const long binary = PyLong_AsLong(PyTuple_GET_ITEM(self, 3));
    const long unary = PyLong_AsLong(PyTuple_GET_ITEM(self, 4));
    if (nargs == 2 && binary >= 0) {
      PyObject* r = run_slot([&] { return binary_at(static_cast<int>(binary), args[0], args[1]); });
      if (r != nullptr || PyErr_Occurred()) return r;
    } else if (nargs == 1 && unary >= 0) {
      if (const Array* x = exact_array(args[0])) return run_slot([&] { return wrap(kUnary[unary].f(*x)); });
    }
  }
  // `out=` an arrvm array (`np.multiply(a, b, out=c)`): as `c = a * b` in
  // place, with the in-place operators' casting rule (arrvm::ufunc's).
  PyObject* out = nullptr;
  if (kwnames != nullptr && PyTuple_GET_SIZE(kwnames) == 1 &&
      PyUnicode_CompareWithASCIIString(PyTuple_GET_ITEM(kwnames, 0), "out") == 0 && as_array(args[nargs])) {
    out = args[nargs];
  }
  if ((kwnames == nullptr || out != nullptr) && nargs == nin && (nin == 1 || nin == 2)) {
    try {
      std::vector<ArrayOrScalar> ops;
      if (fast_operands(args[0], nin == 2 ? py::handle(args[1]) : py::handle(), static_cast<int>(nin),
                        &ops)) {
        const char* name = PyUnicode_AsUTF8(PyTuple_GET_ITEM(self, 0));
        if (name == nullptr) return nullptr;
        if (out != nullptr) {
          (void)arrvm::ufunc(name, ops, as_array(out));
          Py_INCREF(out);
          return out;
        }
        return wrap(arrvm::ufunc(name, ops, nullptr)).release().ptr();
      }
    } catch (py::error_already_set& e) {
      e.restore();
      return nullptr;
    } catch (py::builtin_exception& e) {
      e.set_error();
      return nullptr;
    } catch (const arrvm::Error& e) {
      translate(e);
      return nullptr;
    } catch (const std::exception& e) {
      PyErr_SetString(PyExc_RuntimeError, e.what());
      return nullptr;
    }
  }
  return PyObject_Vectorcall(slow, args, static_cast<size_t>(nargs), kwnames);
}

PyMethodDef g_ufunc_call_def = {"__call__",
                                reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(&ufunc_call)),
                                METH_FASTCALL | METH_KEYWORDS, "Call the ufunc (NumPy's signature)."};

}  // namespace

py::object ufunc_caller(py::str name, int nin, py::object slow) {
  const std::string n = name;
  long binary = -1, unary = -1;
  if (nin == 2) binary = binary_index(n.c_str());
  for (std::size_t k = 0; k < std::size(kUnary); ++k) {
    if (nin == 1 && n == kUnary[k].name) unary = static_cast<long>(k);
  }
  py::tuple self = py::make_tuple(name, nin, slow, binary, unary);
  PyObject* f = PyCFunction_NewEx(&g_ufunc_call_def, self.ptr(), nullptr);
  if (f == nullptr) throw py::error_already_set();
  return py::reinterpret_steal<py::object>(f);
}

}  // namespace arrvm_python
