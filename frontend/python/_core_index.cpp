// arrvm._core's indexing (_core.hpp): NumPy's basic keys (integers, slices,
// None, `...`) as arrvm::Index, and x[key] / x[key] = value as NumPy gives
// them, for the type's mp_subscript and mp_ass_subscript slots
// (_core_slots.cpp) and its __getitem__ and __setitem__ methods.
#include <pybind11/pybind11.h>

#include <algorithm>
#include <optional>
#include <utility>
#include <vector>

#include "_core.hpp"
#include "arrvm/arrvm.hpp"

namespace arrvm_python {

namespace {

// A vector of indices for getitem and setitem: this thread's reused one
// (no allocation a call), or a new one when a call is inside another (a
// key's __index__ that indexes an array).
class IndexScratch {
 public:
  IndexScratch() : ix_(busy_ ? own_ : shared_), outer_(!busy_) {
    busy_ = true;
    ix_.clear();
  }
  ~IndexScratch() {
    if (outer_) busy_ = false;
  }
  IndexScratch(const IndexScratch&) = delete;
  IndexScratch& operator=(const IndexScratch&) = delete;
  std::vector<arrvm::Index>& get() { return ix_; }

 private:
  static thread_local std::vector<arrvm::Index> shared_;
  static thread_local bool busy_;
  std::vector<arrvm::Index> own_;
  std::vector<arrvm::Index>& ix_;
  bool outer_;
};
thread_local std::vector<arrvm::Index> IndexScratch::shared_;
thread_local bool IndexScratch::busy_ = false;

}  // namespace

// A subscript of basic indexing; false for anything else (arrays, lists, bools).
bool basic_index(py::handle k, std::vector<arrvm::Index>* out) {
  PyObject* o = k.ptr();
  if (o == Py_None) {
    out->push_back(arrvm::Index::new_axis());
    return true;
  }
  if (o == Py_Ellipsis) {
    out->push_back(arrvm::Index::ellipsis());
    return true;
  }
  if (PySlice_Check(o)) {
    auto* s = reinterpret_cast<PySliceObject*>(o);
    auto part = [](PyObject* x) -> std::optional<int64_t> {
      if (x == Py_None) return std::nullopt;
      const Py_ssize_t v = PyNumber_AsSsize_t(x, PyExc_IndexError);
      if (v == -1 && PyErr_Occurred()) throw py::error_already_set();
      return static_cast<int64_t>(v);
    };
    out->push_back(arrvm::Slice(part(s->start), part(s->stop), part(s->step)));
    return true;
  }
  if (PyBool_Check(o) || as_array(k)) return false;
  // (NumPy's bool scalar is a mask too, not the index 0 or 1.)
  if (!g_scalar_types.empty() &&
      Py_TYPE(o) == reinterpret_cast<PyTypeObject*>(g_scalar_types[static_cast<int>(DType::Bool)].ptr()))
    return false;
  if (PyLong_Check(o) || (PyIndex_Check(o) && !PySequence_Check(o))) {
    const Py_ssize_t v = PyNumber_AsSsize_t(o, PyExc_IndexError);
    if (v == -1 && PyErr_Occurred()) throw py::error_already_set();
    out->push_back(arrvm::Index(static_cast<int64_t>(v)));
    return true;
  }
  return false;
}

bool basic_key(py::handle key, std::vector<arrvm::Index>* out) {
  if (PyTuple_Check(key.ptr())) {
    for (py::handle k : py::reinterpret_borrow<py::tuple>(key)) {
      if (!basic_index(k, out)) return false;
    }
    return true;
  }
  return basic_index(key, out);
}

// NumPy's basic indexing and the fast cases of the rest (the type's
// mp_subscript and mp_ass_subscript slots call these straight, without
// pybind11's method dispatch; the __getitem__/__setitem__ methods too).
py::object getitem(py::handle self, py::handle key) {
  // (An element by integers of a base nothing pending touches was read by
  // the type's mp_subscript slot before this: element_now.)
  IndexScratch scratch;
  std::vector<arrvm::Index>& ix = scratch.get();
  if (!basic_key(key, &ix)) {
    // x[idx] of a 1-D x by a 1-D int64 array whose indices can be read at
    // once (a row loop's `x[indices[lo:hi]]`), without the Python slow
    // path (5.1 -> ~1 us): a few picks read at once (take_now); else the
    // indices checked once here, as NumPy checks them (index_bounds), and
    // the gather that cannot fail, or take()'s wrapping one for negatives.
    const Array* a = as_array(self);
    const Array* idx = exact_array(key.ptr());
    if (idx != nullptr && a->ndim() == 1 && idx->dtype() == DType::Int64 && idx->ndim() == 1) {
      py::object now;
      if (take_now(*a, *idx, &now)) return now;
      const int bounds = index_bounds(*idx, a->shape()[0]);
      if (bounds == 1) return wrap(a->take_in_range(*idx));
      if (bounds == 2) return wrap(a->take(*idx));
    }
    if (!g_getitem_slow) throw py::type_error("import the arrvm package, not arrvm._core alone");
    return g_getitem_slow(self, key);
  }
  Array r = as_array(self)->index(ix);
  // One element (`x[i]`, `y[i, j]`, no `...`) is NumPy's scalar: a value,
  // not a view, so a later write to `x` does not change it (`a = x[1];
  // x[1] = 5` leaves a as it was; the swap `x[i], x[j] = x[j], x[i]`).
  // Read at once when nothing pending touches x (NumPy's scalar type, no
  // flush); else a lazy 0-d copy (no sync).
  if (r.ndim() == 0 &&
      std::none_of(ix.begin(), ix.end(), [](const arrvm::Index& i) { return i.is_ellipsis(); })) {
    alignas(16) unsigned char element[16];
    if (!g_scalar_types.empty() && r.read_element_now(element)) {
      PyObject* e = new_numpy_scalar(r.dtype(), element);
      if (e == nullptr) throw py::error_already_set();
      return py::reinterpret_steal<py::object>(e);
    }
    r = r.copy();
  }
  return wrap(std::move(r));
}

void setitem(py::handle self, py::handle key, py::handle value) {
  IndexScratch scratch;
  std::vector<arrvm::Index>& ix = scratch.get();
  HostScalar s(0);
  Array* v = as_array(value);
  if (!basic_key(key, &ix) || (!v && !as_scalar(value, &s) && !numpy_number(value, &s))) {
    if (!g_setitem_slow) throw py::type_error("import the arrvm package, not arrvm._core alone");
    g_setitem_slow(self, key, value);
    return;
  }
  Array view = as_array(self)->index(ix);
  if (v) {
    view.assign(*v);
  } else {
    if (!assign_fits(value, s, view.dtype())) throw py::error_already_set();
    view.assign(s);
  }
}

Array roll_copy(const Array& a, int64_t s, int axis) {
  Array out = Array::empty(a.shape(), a.dtype(), a.vm());
  const int64_t n = a.shape().at(static_cast<std::size_t>(axis));
  std::vector<arrvm::Slice> to(static_cast<std::size_t>(axis) + 1), from(to.size());
  to.back() = arrvm::Slice(s, std::nullopt);  // out[..., s:] = a[..., :n-s]
  from.back() = arrvm::Slice(std::nullopt, n - s);
  out.slice(to).assign(a.slice(from));
  to.back() = arrvm::Slice(std::nullopt, s);  // out[..., :s] = a[..., n-s:]
  from.back() = arrvm::Slice(n - s, std::nullopt);
  out.slice(to).assign(a.slice(from));
  return out;
}

}  // namespace arrvm_python
