// Element conversions with the semantics of the `identity` opcode. Shared by
// the reference interpreter, constants and the frontends.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

namespace arrvm {

template <typename To, typename From>
To cast_value(From v) {
  if constexpr (std::is_same_v<To, bool>) {
    return v != From(0);  // NaN is truthy, as in NumPy
  } else if constexpr (std::is_floating_point_v<From> && std::is_integral_v<To>) {
    // C leaves out-of-range float -> int undefined; NumPy leaves it
    // unspecified. We saturate and map NaN to 0 so every backend agrees.
    if (std::isnan(v)) return To(0);
    constexpr auto lo = static_cast<long double>(std::numeric_limits<To>::min());
    constexpr auto hi = static_cast<long double>(std::numeric_limits<To>::max());
    const auto x = static_cast<long double>(v);
    if (x <= lo) return std::numeric_limits<To>::min();
    if (x >= hi) return std::numeric_limits<To>::max();
    return static_cast<To>(v);
  } else if constexpr (std::is_integral_v<From> && std::is_integral_v<To>) {
    return static_cast<To>(v);  // modular (two's complement), as NumPy
  } else {
    return static_cast<To>(v);  // int -> float rounds to nearest; float <-> float
  }
}

}  // namespace arrvm
