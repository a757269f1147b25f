// The scalar semantics of every elementwise opcode (docs/reference.md "Semantics"),
// as small templates over the element type. This is the definition the
// reference interpreter runs and every other backend is tested against.
//
// Integer arithmetic is done in an unsigned type of at least `unsigned int`
// width, so that overflow wraps instead of being undefined (C++ promotes
// int8/int16/uint16 to int, where e.g. 65535 * 65535 would overflow), and the
// result is converted back modularly (well defined since C++20).
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "backends/ref/complex_ops.hpp"
#include "backends/ref/cube.hpp"
#include "vm/cast.hpp"
#include "vm/opcode.hpp"

namespace arrvm::ref {

template <typename T>
inline constexpr bool kIsBool = std::is_same_v<T, bool>;
template <typename T>
inline constexpr bool kIsInt = std::is_integral_v<T> && !kIsBool<T>;
template <typename T>
inline constexpr bool kIsSigned = kIsInt<T>&& std::is_signed_v<T>;
template <typename T>
inline constexpr bool kIsFloat = std::is_floating_point_v<T>;

// Whether an instruction with type rule R accepts T as the dtype of its value
// operands (the input dtype for Compare/Predicate, the output dtype for
// Select, Numeric and Index). Mirrors vm/validate.cpp; Cast and Control
// accept everything.
template <TypeRule R, typename T>
constexpr bool rule_accepts() {
  switch (R) {
    case TypeRule::Arith:
      return kIsInt<T> || kIsFloat<T>;
    case TypeRule::Logical:
      return kIsBool<T>;
    case TypeRule::Bitwise:
      return kIsInt<T> || kIsBool<T>;
    case TypeRule::Shift:
      return kIsInt<T>;
    case TypeRule::Float:
      return kIsFloat<T>;
    case TypeRule::Numeric:
      return true;  // range: ints+floats, random: also bool; bool is harmless
    default:
      return true;
  }
}

// Whether opcode Op (of type rule R) is instantiated for T: complex types
// for the opcodes defined on them (vm/opcode.hpp), the rest by the rule.
template <Opcode Op, TypeRule R, typename T>
constexpr bool op_accepts() {
  if constexpr (Op == Opcode::Imag || Op == Opcode::Conjugate)
    return kIsComplex<T>;
  else if constexpr (Op == Opcode::Complex)
    return std::is_floating_point_v<T>;  // (the inputs' dtype)
  else if constexpr (kIsComplex<T>)
    return complex_opcode(Op);
  else
    return rule_accepts<R, T>();
}

// Unsigned type in which T's arithmetic wraps without promotion surprises.
template <typename T>
using Wide = std::conditional_t<(sizeof(T) < sizeof(unsigned)), unsigned, std::make_unsigned_t<T>>;

template <typename T>
constexpr int kBits = static_cast<int>(sizeof(T) * 8);

// ---- arithmetic --------------------------------------------------------------

template <typename T>
T add(T a, T b) {
  if constexpr (kIsInt<T>)
    return static_cast<T>(Wide<T>(a) + Wide<T>(b));
  else
    return a + b;
}

template <typename T>
T subtract(T a, T b) {
  if constexpr (kIsInt<T>)
    return static_cast<T>(Wide<T>(a) - Wide<T>(b));
  else
    return a - b;
}

template <typename T>
T multiply(T a, T b) {
  if constexpr (kIsInt<T>)
    return static_cast<T>(Wide<T>(a) * Wide<T>(b));
  else
    return a * b;
}

// An integer division by zero: the divide-by-zero flag, as NumPy raises it
// (vm/fp_flags.hpp).
inline void raise_divide_by_zero() {
  volatile double z = 0.0;
  z = 1.0 / z;
}

// Integers: floor division, x/0 = 0, MIN/-1 wraps to MIN. Floats: true division.
template <typename T>
T divide(T a, T b) {
  if constexpr (kIsFloat<T>) {
    return a / b;
  } else {
    if (b == 0) {
      raise_divide_by_zero();
      return 0;
    }
    if constexpr (kIsSigned<T>) {
      if (b == -1) return static_cast<T>(Wide<T>(0) - Wide<T>(a));  // MIN/-1 == MIN
      T q = static_cast<T>(a / b);
      if (static_cast<T>(a % b) != 0 && ((a < 0) != (b < 0))) --q;  // round toward -inf
      return q;
    } else {
      return static_cast<T>(a / b);
    }
  }
}

// Integers: remainder with the divisor's sign, x%0 = 0, MIN%-1 = 0.
// Floats: NumPy's remainder (fmod, moved to the divisor's sign; a zero result
// takes the divisor's sign; b == 0 gives NaN).
template <typename T>
T mod(T a, T b) {
  if constexpr (kIsFloat<T>) {
    T m = std::fmod(a, b);
    if (b == 0) return m;  // NaN
    if (m != 0) {
      if ((b < 0) != (m < 0)) m += b;
    } else {
      m = std::copysign(T(0), b);
    }
    return m;
  } else {
    if (b == 0) {
      raise_divide_by_zero();
      return 0;
    }
    if constexpr (kIsSigned<T>) {
      if (b == -1) return 0;  // avoids MIN % -1, which C++ leaves undefined
      T r = static_cast<T>(a % b);
      if (r != 0 && ((r < 0) != (b < 0))) r = static_cast<T>(r + b);  // opposite signs: no overflow
      return r;
    } else {
      return static_cast<T>(a % b);
    }
  }
}

// Integers: repeated squaring with wrap; a negative exponent gives 1 for base
// 1, +-1 by parity for base -1, else 0 (the truncated reciprocal). Floats: pow.
template <typename T>
T power(T a, T b) {
  if constexpr (kIsFloat<T>) {
    return std::pow(a, b);
  } else {
    if constexpr (kIsSigned<T>) {
      if (b < 0) {
        if (a == 1) return 1;
        if (a == -1) return (b & 1) ? T(-1) : T(1);
        return 0;
      }
    }
    Wide<T> result = 1, base = static_cast<Wide<T>>(a);
    for (auto e = static_cast<std::make_unsigned_t<T>>(b); e != 0; e >>= 1) {
      if (e & 1u) result *= base;
      base *= base;
    }
    return static_cast<T>(result);
  }
}

// NaN propagates (NumPy's maximum/minimum): `a` wins ties and when it is NaN.
template <typename T>
T maximum(T a, T b) {
  if constexpr (kIsFloat<T>)
    return (a >= b || std::isnan(a)) ? a : b;
  else
    return a >= b ? a : b;
}

template <typename T>
T minimum(T a, T b) {
  if constexpr (kIsFloat<T>)
    return (a <= b || std::isnan(a)) ? a : b;
  else
    return a <= b ? a : b;
}

template <typename T>
T negative(T a) {
  if constexpr (kIsInt<T>)
    return static_cast<T>(Wide<T>(0) - Wide<T>(a));  // -MIN == MIN
  else
    return -a;
}

template <typename T>
T absolute(T a) {
  if constexpr (kIsFloat<T>)
    return std::fabs(a);
  else if constexpr (kIsSigned<T>)
    return a < 0 ? negative(a) : a;  // abs(MIN) == MIN
  else
    return a;
}

// -1, 0 or 1 (unsigned: 0 or 1); NaN stays NaN and -0.0 gives 0.0, as NumPy.
template <typename T>
T sign(T a) {
  if constexpr (kIsFloat<T>) {
    if (std::isnan(a)) return a;
    return a > 0 ? T(1) : (a < 0 ? T(-1) : T(0));
  } else if constexpr (kIsSigned<T>) {
    return static_cast<T>((a > 0) - (a < 0));
  } else {
    return a > 0 ? T(1) : T(0);
  }
}

// ---- bitwise (bool: logical) -------------------------------------------------

template <typename T>
T bitwise_and(T a, T b) {
  if constexpr (kIsBool<T>)
    return a && b;
  else
    return static_cast<T>(a & b);
}

template <typename T>
T bitwise_or(T a, T b) {
  if constexpr (kIsBool<T>)
    return a || b;
  else
    return static_cast<T>(a | b);
}

template <typename T>
T bitwise_xor(T a, T b) {
  if constexpr (kIsBool<T>)
    return a != b;
  else
    return static_cast<T>(a ^ b);
}

template <typename T>
T invert(T a) {
  if constexpr (kIsBool<T>)
    return !a;
  else
    return static_cast<T>(~Wide<T>(a));
}

// A shift by an amount outside [0, bits of T) gives 0 (or -1 when shifting a
// negative value right), as if done one bit at a time.
template <typename T>
bool shift_out_of_range(T b) {
  if constexpr (kIsSigned<T>) {
    if (b < 0) return true;
  }
  return b >= kBits<T>;
}

template <typename T>
T left_shift(T a, T b) {
  if (shift_out_of_range(b)) return 0;
  return static_cast<T>(Wide<T>(a) << b);
}

template <typename T>
T right_shift(T a, T b) {
  if (shift_out_of_range(b)) {
    if constexpr (kIsSigned<T>) return a < 0 ? T(-1) : T(0);
    return 0;
  }
  return static_cast<T>(a >> b);  // arithmetic for signed values (defined in C++20)
}

// ---- predicates --------------------------------------------------------------

template <typename T>
bool isnan_(T a) {
  if constexpr (kIsFloat<T>)
    return std::isnan(a);
  else
    return false;
}

template <typename T>
bool isinf_(T a) {
  if constexpr (kIsFloat<T>)
    return std::isinf(a);
  else
    return false;
}

template <typename T>
bool isfinite_(T a) {
  if constexpr (kIsFloat<T>)
    return std::isfinite(a);
  else
    return true;
}

// ---- dispatch ----------------------------------------------------------------

// The scalar function of a one-input elementwise opcode (not identity, which
// casts). Only instantiated for a T that Op's type rule accepts. Returns T, or
// bool for predicates.
template <Opcode Op, typename T>
auto unary(T a) {
  using O = Opcode;
  if constexpr (kIsComplex<T>)
    return complex_unary<Op>(a);
  else if constexpr (Op == O::LogicalNot)
    return !a;
  else if constexpr (Op == O::Invert)
    return invert(a);
  else if constexpr (Op == O::Negative)
    return negative(a);
  else if constexpr (Op == O::Absolute)
    return absolute(a);
  else if constexpr (Op == O::Sign)
    return sign(a);
  else if constexpr (Op == O::Sqrt)
    return T(std::sqrt(a));
  else if constexpr (Op == O::Exp)
    return T(std::exp(a));
  else if constexpr (Op == O::Exp2)
    return T(std::exp2(a));
  else if constexpr (Op == O::Expm1)
    return T(std::expm1(a));
  else if constexpr (Op == O::Log)
    return T(std::log(a));
  else if constexpr (Op == O::Log2)
    return T(std::log2(a));
  else if constexpr (Op == O::Log10)
    return T(std::log10(a));
  else if constexpr (Op == O::Log1p)
    return T(std::log1p(a));
  else if constexpr (Op == O::Sin)
    return T(std::sin(a));
  else if constexpr (Op == O::Cos)
    return T(std::cos(a));
  else if constexpr (Op == O::Tan)
    return T(std::tan(a));
  else if constexpr (Op == O::Arcsin)
    return T(std::asin(a));
  else if constexpr (Op == O::Arccos)
    return T(std::acos(a));
  else if constexpr (Op == O::Arctan)
    return T(std::atan(a));
  else if constexpr (Op == O::Sinh)
    return T(std::sinh(a));
  else if constexpr (Op == O::Cbrt)
    return T(std::cbrt(a));
  else if constexpr (Op == O::Cube)
    return cube<T>(a);
  else if constexpr (Op == O::Arcsinh)
    return T(std::asinh(a));
  else if constexpr (Op == O::Arccosh)
    return T(std::acosh(a));
  else if constexpr (Op == O::Arctanh)
    return T(std::atanh(a));
  else if constexpr (Op == O::Cosh)
    return T(std::cosh(a));
  else if constexpr (Op == O::Tanh)
    return T(std::tanh(a));
  else if constexpr (Op == O::Floor)
    return T(std::floor(a));
  else if constexpr (Op == O::Ceil)
    return T(std::ceil(a));
  else if constexpr (Op == O::Trunc)
    return T(std::trunc(a));
  else if constexpr (Op == O::Rint)
    return T(std::nearbyint(a));  // half to even
  else if constexpr (Op == O::Isnan)
    return isnan_(a);
  else if constexpr (Op == O::Isinf)
    return isinf_(a);
  else if constexpr (Op == O::Isfinite)
    return isfinite_(a);
  else
    static_assert(Op != Op, "not a one-input elementwise opcode");
}

// The scalar function of a two-input elementwise opcode; both inputs have
// dtype T. Returns T, or bool for comparisons and logical ops.
template <Opcode Op, typename T>
auto binary(T a, T b) {
  using O = Opcode;
  if constexpr (kIsComplex<T>)
    return complex_binary<Op>(a, b);
  else if constexpr (Op == O::Complex)
    return std::complex<T>(a, b);
  else if constexpr (Op == O::Add)
    return add(a, b);
  else if constexpr (Op == O::Subtract)
    return subtract(a, b);
  else if constexpr (Op == O::Multiply)
    return multiply(a, b);
  else if constexpr (Op == O::Divide)
    return divide(a, b);
  else if constexpr (Op == O::Power)
    return power(a, b);
  else if constexpr (Op == O::Mod)
    return mod(a, b);
  else if constexpr (Op == O::Maximum)
    return maximum(a, b);
  else if constexpr (Op == O::Minimum)
    return minimum(a, b);
  else if constexpr (Op == O::Equal)
    return a == b;
  else if constexpr (Op == O::NotEqual)
    return a != b;
  else if constexpr (Op == O::Less)
    return a < b;
  else if constexpr (Op == O::LessEqual)
    return a <= b;
  else if constexpr (Op == O::Greater)
    return a > b;
  else if constexpr (Op == O::GreaterEqual)
    return a >= b;
  else if constexpr (Op == O::LogicalAnd)
    return a && b;
  else if constexpr (Op == O::LogicalOr)
    return a || b;
  else if constexpr (Op == O::LogicalXor)
    return a != b;
  else if constexpr (Op == O::BitwiseAnd)
    return bitwise_and(a, b);
  else if constexpr (Op == O::BitwiseOr)
    return bitwise_or(a, b);
  else if constexpr (Op == O::BitwiseXor)
    return bitwise_xor(a, b);
  else if constexpr (Op == O::LeftShift)
    return left_shift(a, b);
  else if constexpr (Op == O::RightShift)
    return right_shift(a, b);
  else if constexpr (Op == O::Arctan2)
    return T(std::atan2(a, b));
  else if constexpr (Op == O::Hypot)
    return T(std::hypot(a, b));
  else
    static_assert(Op != Op, "not a two-input elementwise opcode");
}

// The combining function and starting value of a reduction or scan opcode.
template <Opcode Op>
struct Reducer {
  static_assert(Op != Op, "not a reduction or scan opcode");
};
template <>
struct Reducer<Opcode::AddReduce> {
  template <typename T>
  static T combine(T a, T b) {
    return add(a, b);
  }
  template <typename T>
  static T identity() {
    return T(0);
  }
};
template <>
struct Reducer<Opcode::MultiplyReduce> {
  template <typename T>
  static T combine(T a, T b) {
    if constexpr (kIsComplex<T>)
      return cplx::mul(a, b);
    else
      return multiply(a, b);
  }
  template <typename T>
  static T identity() {
    return T(1);
  }
};
// minimum/maximum have no identity: they start from the first element (the
// validator rejects an empty axis), which also keeps NaN propagation exact.
template <>
struct Reducer<Opcode::MinimumReduce> {
  template <typename T>
  static T combine(T a, T b) {
    if constexpr (kIsComplex<T>)
      return cplx::minimum(a, b);
    else
      return minimum(a, b);
  }
};
template <>
struct Reducer<Opcode::MaximumReduce> {
  template <typename T>
  static T combine(T a, T b) {
    if constexpr (kIsComplex<T>)
      return cplx::maximum(a, b);
    else
      return maximum(a, b);
  }
};
template <>
struct Reducer<Opcode::LogicalAndReduce> {
  template <typename T>
  static T combine(T a, T b) {
    return a && b;
  }
  template <typename T>
  static T identity() {
    return true;
  }
};
template <>
struct Reducer<Opcode::LogicalOrReduce> {
  template <typename T>
  static T combine(T a, T b) {
    return a || b;
  }
  template <typename T>
  static T identity() {
    return false;
  }
};
// Reducer<MinimumReduce / MaximumReduce>'s fold over p[0, n) (n >= 1) of
// floats, with four running extremes instead of one chain of dependent
// compares (~4x faster: `x.max()` on the eager path). The same bits as the
// fold: with a NaN the fold ends at the first NaN (a NaN accumulator stays,
// a NaN element replaces a number); without, at the first element equal to
// the extreme (an element replaces the accumulator only when strictly
// beyond it), whose bits are the extreme's unless it is a zero (-0.0 ==
// 0.0): then the first zero is looked up.
template <bool Max, typename T>
T float_extreme(const T* p, int64_t n) {
  static_assert(std::is_floating_point_v<T>);
  auto beyond = [](T x, T m) { return Max ? x > m : x < m; };
  T m[4] = {p[0], p[0], p[0], p[0]};
  bool nan = false;
  int64_t i = 1;
  for (; i + 4 <= n; i += 4) {
    for (int k = 0; k < 4; ++k) {
      const T x = p[i + k];
      nan |= x != x;
      m[k] = beyond(x, m[k]) ? x : m[k];
    }
  }
  for (; i < n; ++i) {
    nan |= p[i] != p[i];
    m[0] = beyond(p[i], m[0]) ? p[i] : m[0];
  }
  nan |= p[0] != p[0];
  if (nan) {
    for (i = 0; p[i] == p[i]; ++i) {
    }
    return p[i];
  }
  T r = m[0];
  for (int k = 1; k < 4; ++k) r = beyond(m[k], r) ? m[k] : r;
  if (r != T(0)) return r;
  for (i = 0; p[i] != T(0); ++i) {
  }
  return p[i];
}

template <>
struct Reducer<Opcode::AddAccumulate> : Reducer<Opcode::AddReduce> {};
template <>
struct Reducer<Opcode::MultiplyAccumulate> : Reducer<Opcode::MultiplyReduce> {};
template <>
struct Reducer<Opcode::MinimumAccumulate> : Reducer<Opcode::MinimumReduce> {};
template <>
struct Reducer<Opcode::MaximumAccumulate> : Reducer<Opcode::MaximumReduce> {};

template <Opcode Op>
concept HasIdentity = requires {
  Reducer<Op>::template identity<int>();
};

}  // namespace arrvm::ref
