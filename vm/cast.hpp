// Element conversions with the semantics of the `identity` opcode. Shared by
// the reference interpreter, constants and the frontends.
#pragma once

#include <cmath>
#include <complex>
#include <cstdint>
#include <limits>
#include <type_traits>

namespace arrvm {

// float -> integer as NumPy gives it on x86-64 (C leaves out-of-range
// conversions undefined; NumPy's casts are the C conversions the compiler
// makes of them with SSE's cvttsd2si, whose out-of-range or NaN answer is
// the "integer indefinite" 0x80...0): to int64 or int32, the truncated value
// in range, else INT64_MIN / INT32_MIN; to int16, int8, uint16, uint8 the
// int32 conversion's low bits; to uint32 the int64 conversion's low bits at
// 2^31 and above, else the int32 one's; to uint64 at 2^63 and above the int64
// conversion of x - 2^63 with the top bit flipped, else the int64 one's. So
// NaN -> int64 is INT64_MIN, -1.5 -> uint8 is 255, 300.5 -> int8 is 44.
// The code generators print the same rules into kernels.
inline int64_t float_to_int64(double x) {
  return x >= -9223372036854775808.0 && x < 9223372036854775808.0 ? static_cast<int64_t>(x)
                                                                  : std::numeric_limits<int64_t>::min();
}
inline int32_t float_to_int32(double x) {
  return x > -2147483649.0 && x < 2147483648.0 ? static_cast<int32_t>(x)
                                               : std::numeric_limits<int32_t>::min();
}
template <typename To>
To float_to_int(double x) {
  if constexpr (std::is_same_v<To, int64_t>) {
    return float_to_int64(x);
  } else if constexpr (std::is_same_v<To, uint64_t>) {
    if (x >= 9223372036854775808.0)
      return static_cast<uint64_t>(float_to_int64(x - 9223372036854775808.0)) ^ (uint64_t{1} << 63);
    return static_cast<uint64_t>(float_to_int64(x));
  } else if constexpr (std::is_same_v<To, uint32_t>) {
    return x >= 2147483648.0 ? static_cast<uint32_t>(float_to_int64(x))
                             : static_cast<uint32_t>(float_to_int32(x));
  } else {
    return static_cast<To>(float_to_int32(x));  // int32 itself, or its low bits
  }
}

template <typename T>
inline constexpr bool kIsComplex = false;
template <typename T>
inline constexpr bool kIsComplex<std::complex<T>> = true;

// Complex casts as NumPy's: a real value becomes (v, 0); a complex one to a
// real type keeps its real part (NumPy warns: ComplexWarning), to bool is
// whether either part is nonzero; complex to complex casts both parts.
template <typename To, typename From>
To cast_value(From v) {
  if constexpr (kIsComplex<From> && kIsComplex<To>) {
    using P = typename To::value_type;
    return To(static_cast<P>(v.real()), static_cast<P>(v.imag()));
  } else if constexpr (kIsComplex<From>) {
    if constexpr (std::is_same_v<To, bool>) return v.real() != 0 || v.imag() != 0;
    return cast_value<To>(v.real());
  } else if constexpr (kIsComplex<To>) {
    using P = typename To::value_type;
    return To(cast_value<P>(v), P(0));
  } else if constexpr (std::is_same_v<To, bool>) {
    return v != From(0);  // NaN is truthy, as in NumPy
  } else if constexpr (std::is_floating_point_v<From> && std::is_integral_v<To>) {
    return float_to_int<To>(static_cast<double>(v));
  } else if constexpr (std::is_integral_v<From> && std::is_integral_v<To>) {
    return static_cast<To>(v);  // modular (two's complement), as NumPy
  } else {
    return static_cast<To>(v);  // int -> float rounds to nearest; float <-> float
  }
}

}  // namespace arrvm
