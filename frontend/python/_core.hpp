// What the extension's files share: _core.cpp (the helpers, the hooks and
// the module's bindings), _core_slots.cpp (the ndarray type's number and
// mapping slots) and _core_scalars.cpp (0-d arrays as numbers, index
// bounds). Private to the extension.
#pragma once

#include <pybind11/pybind11.h>

#include <cstdint>
#include <vector>

#include "arrvm/arrvm.hpp"

namespace py = pybind11;
using arrvm::Array;
using arrvm::ArrayOrScalar;
using arrvm::DType;
using arrvm::HostScalar;

namespace arrvm_python {

// Python functions of the package (set once by arrvm/_ndarray.py through
// set_hooks); handles holding a reference never dropped.
extern py::handle g_ufunc_slow, g_getitem_slow, g_setitem_slow, g_error_class, g_matmul_slow;
// NumPy's scalar types, by DType (set_scalar_types).
extern std::vector<py::handle> g_scalar_types;
// numpy.dtype of each (set with them).
extern std::vector<py::handle> g_scalar_descrs;
// arrvm.ndarray's type object (set at module init): an object of exactly
// this type is an Array held by value in a pybind11 instance.
extern PyTypeObject* g_array_type;

inline bool is_complex_dtype(DType d) {
  return d == DType::Complex64 || d == DType::Complex128;
}

inline Array* exact_array(PyObject* o) {
  if (Py_TYPE(o) != g_array_type) return nullptr;
  auto* inst = reinterpret_cast<py::detail::instance*>(o);
  // (The simple layout, one C++ type held inline: its value pointer is the
  // first word, read here instead of through get_value_and_holder's call.)
  if (inst->simple_layout) return static_cast<Array*>(inst->simple_value_holder[0]);
  return static_cast<Array*>(inst->get_value_and_holder().value_ptr());
}

// _core.cpp
Array* subclass_array(py::handle h);  // as_array for anything but the exact type
// An arrvm array (exact or a subclass), else null.
inline Array* as_array(py::handle h) {
  if (Array* a = exact_array(h.ptr())) return a;
  return subclass_array(h);
}
bool as_scalar(py::handle h, HostScalar* out);  // a Python bool, int or float
bool is_int_dtype(DType d);
// Whether a number of 2^63 or more may be assigned into an array of `target`
// as NumPy 1.24 allows: a Python int into uint32 or uint64 (modulo) or a
// bool, float or complex array, not into int8-int64, uint8 or uint16 (its
// setitem takes a C long there); a NumPy uint64 into any unsigned or
// non-integer array; else sets NumPy's OverflowError and returns false.
bool assign_fits(py::handle value, const HostScalar& s, DType target);
bool weak_ok(const HostScalar& s, DType d);  // taken weakly next to dtype d as NumPy 1.24 would
bool number_operand(py::handle h, DType d, HostScalar* s);
bool fast_operands(py::handle a, py::handle b, int n, std::vector<ArrayOrScalar>* out);
py::object wrap(Array a);  // a new Python ndarray owning `a`
// Integers, slices, None and `...` (NumPy's basic indexing) as indices into
// *out; false for any other key (arrays, lists: the Python slow path).
bool basic_key(py::handle key, std::vector<arrvm::Index>* out);
// self[key] and self[key] = value as NumPy indexes (the type's slots and methods).
py::object getitem(py::handle self, py::handle key);
void setitem(py::handle self, py::handle key, py::handle value);
py::object call_ufunc(const char* name, int n, py::handle a, py::handle b, py::handle out);
PyObject* new_numpy_scalar(DType t, const void* p);
void translate(const arrvm::Error& e);  // a C++ error as the Python exception NumPy raises

// Runs a slot's body: C++ exceptions become Python errors (what pybind11's
// dispatcher does for methods).
template <class F>
PyObject* run_slot(F&& f) noexcept {
  try {
    return f().release().ptr();
  } catch (py::error_already_set& e) {
    e.restore();
  } catch (const arrvm::Error& e) {
    translate(e);
  } catch (const py::builtin_exception& e) {
    e.set_error();
  } catch (const std::bad_alloc&) {
    PyErr_NoMemory();
  } catch (const std::exception& e) {
    PyErr_SetString(PyExc_RuntimeError, e.what());
  }
  return nullptr;
}

// _core_slots.cpp
bool numpy_number(py::handle h, HostScalar* out, DType* dtype = nullptr);  // a NumPy scalar's value
py::object value_if_ready(Array r);  // a 0-d array's NumPy scalar when readable at once, else the array
// The ufunc of two operands `name` in the operators' table (-1: not
// there), and that ufunc on a and b as the operators compute it (null: not
// the fast cases; binary_fast).
int binary_index(const char* name);
py::object binary_at(int k, PyObject* a, PyObject* b);

// _core_ufunc.cpp: a ufunc object's __call__ (its class's): C for arrvm
// arrays and numbers, `slow` for the rest.
py::object ufunc_caller(py::str name, int nin, py::object slow);
PyObject* nb_matmul(PyObject* a, PyObject* b);
void install_slots(PyTypeObject* t);
// shape, ndim, size, dtype, _dt, _strides as getset descriptors (not pybind11 properties).
void install_attributes(PyTypeObject* t);

// _core_convert.cpp: holds_array, from_numpy and empty (asarray's steps).
void def_convert(py::module_& m);
arrvm::Vm& vm();                              // the default Vm, reporting FP flags to Python
std::vector<int64_t> to_shape(py::handle h);  // an int or a sequence of ints

// _core_index.cpp: numpy.roll along `axis` by s in (0, n), two slice
// copies into a new array in one call (in Python, its keys and tuples took
// ~8 us a call, a third of a rule-30 step).
Array roll_copy(const Array& a, int64_t s, int axis);

// _core_scalars.cpp
int index_bounds(const Array& key, int64_t n);
bool take_now(const Array& x, const Array& idx, py::object* r);
// argmax (want_max) or argmin of a whole array, flattened, as NumPy's int64
// scalar, computed at once from memory where nothing pending writes it (up
// to 2^16 elements, not complex); else None.
py::object arg_extreme_now(const Array& a, bool want_max);
// After the package set __float__, __int__, __index__, __bool__ and item:
// the same, reading the element at once where they can.
void install_scalar_slots(PyTypeObject* t);

// _random.cpp: n of NumPy's MT19937 doubles (low + range * u when scaled)
// from the mt19937_state at `state`, advancing it.
void mt19937_doubles(void* state, double* out, std::ptrdiff_t n, double low, double range, bool scaled);
// n of NumPy's PCG64 doubles (Generator.random, or uniform's low + range * u
// when scaled) from the pcg64_state at `state`, advancing it.
void pcg64_doubles(void* state, double* out, std::ptrdiff_t n, double low, double range, bool scaled);

}  // namespace arrvm_python
