// The scalar semantics of the opcodes defined on complex dtypes
// (vm/opcode.hpp complex_opcode), as NumPy 1.24 computes them: its loops'
// formulas for arithmetic, comparisons (lexicographic), maximum/minimum,
// sign and integer powers; its own exp2, expm1, log2, log10 and log1p;
// the C library's complex functions (glibc's cexp, clog, csqrt, csin, ...,
// which NumPy calls) for the rest. The reference interpreter runs these; the
// code generators print the same formulas (backends/c_emitter.cpp).
#pragma once

#include <cmath>
#include <complex>
#include <limits>

#include "vm/opcode.hpp"

namespace arrvm::ref::cplx {

template <typename P>
using C = std::complex<P>;

template <typename P>
C<P> mul(C<P> a, C<P> b) {
  return {a.real() * b.real() - a.imag() * b.imag(), a.real() * b.imag() + a.imag() * b.real()};
}

// Smith's algorithm, with NumPy's branch for a zero divisor.
template <typename P>
C<P> div(C<P> a, C<P> b) {
  const P ar = a.real(), ai = a.imag(), br = b.real(), bi = b.imag();
  const P abs_br = std::fabs(br), abs_bi = std::fabs(bi);
  if (abs_br >= abs_bi) {
    if (abs_br == 0 && abs_bi == 0) return {ar / abs_br, ai / abs_br};
    const P rat = bi / br, scl = P(1) / (br + bi * rat);
    return {(ar + ai * rat) * scl, (ai - ar * rat) * scl};
  }
  const P rat = br / bi, scl = P(1) / (bi + br * rat);
  return {(ar * rat + ai) * scl, (ai * rat - ar) * scl};
}

// NumPy's lexicographic order (its CLT, CLE, ... macros): the real parts
// decide unless equal; a NaN imaginary part makes a real-part decision false.
template <typename P>
bool lt(C<P> x, C<P> y) {
  return (x.real() < y.real() && !std::isnan(x.imag()) && !std::isnan(y.imag())) ||
         (x.real() == y.real() && x.imag() < y.imag());
}
template <typename P>
bool le(C<P> x, C<P> y) {
  return (x.real() < y.real() && !std::isnan(x.imag()) && !std::isnan(y.imag())) ||
         (x.real() == y.real() && x.imag() <= y.imag());
}
template <typename P>
bool gt(C<P> x, C<P> y) {
  return (x.real() > y.real() && !std::isnan(x.imag()) && !std::isnan(y.imag())) ||
         (x.real() == y.real() && x.imag() > y.imag());
}
template <typename P>
bool ge(C<P> x, C<P> y) {
  return (x.real() > y.real() && !std::isnan(x.imag()) && !std::isnan(y.imag())) ||
         (x.real() == y.real() && x.imag() >= y.imag());
}
template <typename P>
bool eq(C<P> x, C<P> y) {
  return x.real() == y.real() && x.imag() == y.imag();
}

template <typename P>
bool has_nan(C<P> x) {
  return std::isnan(x.real()) || std::isnan(x.imag());
}

// NaN propagates; `a` wins ties and when it has a NaN part.
template <typename P>
C<P> maximum(C<P> a, C<P> b) {
  return has_nan(a) || ge(a, b) ? a : b;
}
template <typename P>
C<P> minimum(C<P> a, C<P> b) {
  return has_nan(a) || le(a, b) ? a : b;
}

// NumPy 1.24's sign: +-1 or 0 by the lexicographic order against 0, NaN if
// unordered; the imaginary part 0.
template <typename P>
C<P> sign(C<P> a) {
  const C<P> z(0, 0);
  const P s = gt(a, z) ? P(1) : lt(a, z) ? P(-1) : eq(a, z) ? P(0) : std::numeric_limits<P>::quiet_NaN();
  return {s, P(0)};
}

// NumPy's npy_cpow: a zero exponent gives 1; a zero base 0 (positive real
// exponent) or NaN; real integer exponents below 100 in magnitude by
// repeated squaring (1, 2, 3 unrolled); the rest the C library's cpow.
template <typename P>
C<P> power(C<P> a, C<P> b) {
  const P br = b.real(), bi = b.imag();
  if (br == 0 && bi == 0) return {P(1), P(0)};
  if (a.real() == 0 && a.imag() == 0) {
    if (br > 0) return {P(0), P(0)};
    volatile P inf = std::numeric_limits<P>::infinity();
    inf = inf - std::numeric_limits<P>::infinity();  // invalid, as NumPy raises it
    return {std::numeric_limits<P>::quiet_NaN(), std::numeric_limits<P>::quiet_NaN()};
  }
  if (bi == 0 && br > -100 && br < 100 && static_cast<P>(static_cast<long>(br)) == br) {
    long n = static_cast<long>(br);
    if (n == 1) return a;
    if (n == 2) return mul(a, a);
    if (n == 3) return mul(a, mul(a, a));
    C<P> acc(1, 0), p = a;
    if (n < 0) n = -n;
    for (long mask = 1;; mask <<= 1) {
      if (n & mask) acc = mul(acc, p);
      if (n < (mask << 1)) break;
      p = mul(p, p);
    }
    return br < 0 ? div(C<P>(1, 0), acc) : acc;
  }
  return std::pow(a, b);
}

// NumPy's own formulas (umath's funcs.inc.src nc_exp2, nc_expm1, nc_log2,
// nc_log10, nc_log1p).
template <typename P>
C<P> exp2(C<P> x) {
  constexpr P kLn2 = P(0.693147180559945309417232121458176568L);
  return std::exp(C<P>(x.real() * kLn2, x.imag() * kLn2));
}
template <typename P>
C<P> expm1(C<P> x) {
  const P a = std::sin(x.imag() / 2);
  return {std::expm1(x.real()) * std::cos(x.imag()) - 2 * a * a, std::exp(x.real()) * std::sin(x.imag())};
}
template <typename P>
C<P> log2(C<P> x) {
  constexpr P kLog2e = P(1.442695040888963407359924681001892137L);
  const C<P> l = std::log(x);
  return {l.real() * kLog2e, l.imag() * kLog2e};
}
template <typename P>
C<P> log10(C<P> x) {
  constexpr P kLog10e = P(0.434294481903251827651128918916605082L);
  const C<P> l = std::log(x);
  return {l.real() * kLog10e, l.imag() * kLog10e};
}
template <typename P>
C<P> log1p(C<P> x) {
  const P l = std::hypot(x.real() + 1, x.imag());
  return {std::log(l), std::atan2(x.imag(), x.real() + 1)};
}

}  // namespace arrvm::ref::cplx

namespace arrvm::ref {

// The scalar function of an elementwise opcode on complex T (scalar_ops.hpp
// dispatches here).
template <Opcode Op, typename T>
auto complex_unary(T a) {
  using O = Opcode;
  using P = typename T::value_type;
  if constexpr (Op == O::Negative)
    return T(-a.real(), -a.imag());
  else if constexpr (Op == O::Absolute)
    return P(std::hypot(a.real(), a.imag()));
  else if constexpr (Op == O::Sign)
    return cplx::sign(a);
  else if constexpr (Op == O::Sqrt)
    return std::sqrt(a);
  else if constexpr (Op == O::Exp)
    return std::exp(a);
  else if constexpr (Op == O::Exp2)
    return cplx::exp2(a);
  else if constexpr (Op == O::Expm1)
    return cplx::expm1(a);
  else if constexpr (Op == O::Log)
    return std::log(a);
  else if constexpr (Op == O::Log2)
    return cplx::log2(a);
  else if constexpr (Op == O::Log10)
    return cplx::log10(a);
  else if constexpr (Op == O::Log1p)
    return cplx::log1p(a);
  else if constexpr (Op == O::Sin)
    return std::sin(a);
  else if constexpr (Op == O::Cos)
    return std::cos(a);
  else if constexpr (Op == O::Tan)
    return std::tan(a);
  else if constexpr (Op == O::Arcsin)
    return std::asin(a);
  else if constexpr (Op == O::Arccos)
    return std::acos(a);
  else if constexpr (Op == O::Arctan)
    return std::atan(a);
  else if constexpr (Op == O::Sinh)
    return std::sinh(a);
  else if constexpr (Op == O::Cosh)
    return std::cosh(a);
  else if constexpr (Op == O::Tanh)
    return std::tanh(a);
  else if constexpr (Op == O::Arcsinh)
    return std::asinh(a);
  else if constexpr (Op == O::Arccosh)
    return std::acosh(a);
  else if constexpr (Op == O::Arctanh)
    return std::atanh(a);
  else if constexpr (Op == O::Rint)
    return T(std::nearbyint(a.real()), std::nearbyint(a.imag()));
  else if constexpr (Op == O::Imag)
    return P(a.imag());
  else if constexpr (Op == O::Conjugate)
    return T(a.real(), -a.imag());
  else if constexpr (Op == O::Isnan)
    return std::isnan(a.real()) || std::isnan(a.imag());
  else if constexpr (Op == O::Isinf)
    return std::isinf(a.real()) || std::isinf(a.imag());
  else if constexpr (Op == O::Isfinite)
    return std::isfinite(a.real()) && std::isfinite(a.imag());
  else
    static_assert(Op != Op, "not a one-input opcode defined on complex dtypes");
}

template <Opcode Op, typename T>
auto complex_binary(T a, T b) {
  using O = Opcode;
  if constexpr (Op == O::Add)
    return T(a.real() + b.real(), a.imag() + b.imag());
  else if constexpr (Op == O::Subtract)
    return T(a.real() - b.real(), a.imag() - b.imag());
  else if constexpr (Op == O::Multiply)
    return cplx::mul(a, b);
  else if constexpr (Op == O::Divide)
    return cplx::div(a, b);
  else if constexpr (Op == O::Power)
    return cplx::power(a, b);
  else if constexpr (Op == O::Maximum)
    return cplx::maximum(a, b);
  else if constexpr (Op == O::Minimum)
    return cplx::minimum(a, b);
  else if constexpr (Op == O::Equal)
    return cplx::eq(a, b);
  else if constexpr (Op == O::NotEqual)
    return !cplx::eq(a, b);
  else if constexpr (Op == O::Less)
    return cplx::lt(a, b);
  else if constexpr (Op == O::LessEqual)
    return cplx::le(a, b);
  else if constexpr (Op == O::Greater)
    return cplx::gt(a, b);
  else if constexpr (Op == O::GreaterEqual)
    return cplx::ge(a, b);
  else
    static_assert(Op != Op, "not a two-input opcode defined on complex dtypes");
}

}  // namespace arrvm::ref
