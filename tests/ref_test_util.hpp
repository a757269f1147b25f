// Helpers for the tests of the `ref` backend: a VM on ref with singleton
// fusion, typed host buffers, and element comparisons that treat NaN as equal
// to NaN and tell -0.0 from 0.0.
#pragma once

#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <initializer_list>
#include <limits>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

#include "engine/runtime.hpp"
#include "vm/error.hpp"

namespace reftest {

using arrvm::BaseId;
using arrvm::Dims;
using arrvm::DType;
using arrvm::Instruction;
using arrvm::Opcode;
using arrvm::Operand;
using arrvm::View;

// Host element type: bool is stored as one byte 0/1 (std::vector<bool> has no data()).
template <typename T>
using Host = std::conditional_t<std::is_same_v<T, bool>, uint8_t, T>;

template <typename T>
using Vec = std::vector<Host<T>>;

template <typename T>
constexpr DType dt() {
  return arrvm::dtype_of<T>();
}

// Small literal values (exact in every dtype they are used with) as a Vec<T>.
template <typename T>
Vec<T> vals(std::initializer_list<double> xs) {
  Vec<T> v;
  for (double x : xs) v.push_back(static_cast<Host<T>>(x));
  return v;
}

template <typename T>
constexpr T lo() {
  return std::numeric_limits<T>::lowest();
}
template <typename T>
constexpr T hi() {
  return std::numeric_limits<T>::max();
}
inline constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
inline constexpr double kInf = std::numeric_limits<double>::infinity();

inline View view(BaseId b, int64_t off, Dims shape, Dims stride) {
  return arrvm::make_view(b, off, shape, stride);
}
inline View vec(BaseId b, int64_t n) {
  return view(b, 0, {n}, {1});
}
inline View scalar_view(BaseId b, int64_t off) {
  return view(b, off, {}, {});
}

inline Operand in(const View& v) {
  return Operand::of(v);
}
template <typename T>
Operand konst(T x) {
  arrvm::Scalar s;
  s.dtype = dt<T>();
  if constexpr (std::is_floating_point_v<T>) {
    s.f = x;
  } else if constexpr (std::is_unsigned_v<T> && !std::is_same_v<T, bool>) {
    s.u = x;
  } else {
    s.i = x;
  }
  return Operand::of(s);
}

inline Instruction make(Opcode op, const View& out, std::vector<Operand> ins = {}, int axis = 0,
                        uint64_t seed = 0) {
  Instruction i;
  i.op = op;
  i.out = out;
  for (const Operand& o : ins) i.add_input(o);
  i.axis = axis;
  i.seed = seed;
  return i;
}

// For the batch rewrites' tests: a float64 base's whole row-major view, the
// same view field by field, a float64 constant, a free as validation makes it.
inline View whole(BaseId b, const Dims& shape) {
  return arrvm::contiguous_view(b, arrvm::DType::Float64, shape);
}
inline bool same_view(const View& x, const View& y) {
  return x.base == y.base && x.dtype == y.dtype && x.offset == y.offset && x.shape == y.shape &&
         x.stride == y.stride;
}
inline Operand num(double v) {
  return Operand::of(arrvm::Scalar::of_double(arrvm::DType::Float64, v));
}
inline Instruction free_of(BaseId b, int64_t n) {
  return make(Opcode::Free, whole(b, Dims{n}));
}

class Vm {
 public:
  Vm() : rt_(config()) {}
  static arrvm::Config config() {
    arrvm::Config c;
    c.backend = "ref";
    c.fuser = "singleton";
    return c;
  }
  arrvm::Runtime& rt() { return rt_; }

  template <typename T>
  BaseId array(const Vec<T>& data) {
    const BaseId id = rt_.new_base(dt<T>(), static_cast<int64_t>(data.size()));
    rt_.write(id, data.data(), data.size() * sizeof(Host<T>));
    return id;
  }
  template <typename T>
  BaseId empty(int64_t n) {
    return rt_.new_base(dt<T>(), n);
  }
  template <typename T>
  Vec<T> read(BaseId id) {
    Vec<T> out(static_cast<std::size_t>(rt_.bases().find(id)->nelem));
    rt_.read(id, out.data(), out.size() * sizeof(Host<T>));
    return out;
  }
  void issue(const Instruction& i) { rt_.issue(i); }

 private:
  arrvm::Runtime rt_;
};

// Equal as values, except that NaN equals NaN and -0.0 differs from 0.0.
template <typename H>
bool same_element(H a, H b) {
  if constexpr (std::is_floating_point_v<H>) {
    if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
    return a == b && std::signbit(a) == std::signbit(b);
  } else {
    return a == b;
  }
}

template <typename H>
std::string show(const std::vector<H>& v) {
  std::ostringstream s;
  s.precision(17);
  s << "{";
  for (std::size_t i = 0; i < v.size(); ++i) {
    s << (i ? ", " : "");
    if constexpr (sizeof(H) == 1) {
      s << static_cast<int>(v[i]);
    } else {
      s << v[i];
    }
  }
  return s.str() + "}";
}

template <typename H>
void check_same(const std::vector<H>& got, const std::vector<H>& want) {
  bool ok = got.size() == want.size();
  for (std::size_t i = 0; ok && i < got.size(); ++i) ok = same_element(got[i], want[i]);
  INFO("got  " << show(got));
  INFO("want " << show(want));
  CHECK(ok);
}

// Floats within a relative tolerance (NaN matches NaN, infinities exactly).
template <typename H>
void check_near(const std::vector<H>& got, const std::vector<H>& want, double rel) {
  bool ok = got.size() == want.size();
  for (std::size_t i = 0; ok && i < got.size(); ++i) {
    const double g = got[i], w = want[i];
    if (std::isnan(w) || std::isinf(w) || w == 0) {
      ok = same_element(got[i], want[i]) || (w == 0 && std::fabs(g) <= rel);
    } else {
      ok = std::fabs(g - w) <= rel * std::fabs(w);
    }
  }
  INFO("got  " << show(got));
  INFO("want " << show(want));
  CHECK(ok);
}

// Runs a one-, two- or three-input elementwise op over whole 1-D arrays
// (inputs of dtype T, output of dtype R) and returns the output.
template <typename T, typename R = T>
Vec<R> eval1(Opcode op, const Vec<T>& a) {
  Vm vm;
  const auto n = static_cast<int64_t>(a.size());
  const BaseId x = vm.array<T>(a), o = vm.empty<R>(n);
  vm.issue(make(op, vec(o, n), {in(vec(x, n))}));
  return vm.read<R>(o);
}

template <typename T, typename R = T>
Vec<R> eval2(Opcode op, const Vec<T>& a, const Vec<T>& b) {
  REQUIRE(a.size() == b.size());
  Vm vm;
  const auto n = static_cast<int64_t>(a.size());
  const BaseId x = vm.array<T>(a), y = vm.array<T>(b), o = vm.empty<R>(n);
  vm.issue(make(op, vec(o, n), {in(vec(x, n)), in(vec(y, n))}));
  return vm.read<R>(o);
}

// The message of the arrvm::Error `f` throws, or "" if it throws none.
template <typename F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const arrvm::Error& e) {
    return e.what();
  }
  return "";
}

}  // namespace reftest

// The dtypes of the type rules (vm/opcode.hpp).
#define REFTEST_INTS int8_t, int16_t, int32_t, int64_t, uint8_t, uint16_t, uint32_t, uint64_t
#define REFTEST_SIGNED int8_t, int16_t, int32_t, int64_t
#define REFTEST_UNSIGNED uint8_t, uint16_t, uint32_t, uint64_t
#define REFTEST_FLOATS float, double
#define REFTEST_ARITH REFTEST_INTS, REFTEST_FLOATS
#define REFTEST_ALL bool, REFTEST_ARITH
