// Element comparison for the mpi tests: equal, or within the trace format's
// tolerances for floats (a distributed reduction adds in another order);
// NaN equals NaN.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <vector>

#include "vm/cast.hpp"
#include "vm/dtype.hpp"

namespace arrvm::mpitest {

template <typename T>
bool close(T a, T b) {
  if constexpr (std::is_floating_point_v<T>) {
    if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
    if (a == b) return true;
    if (std::isinf(a) || std::isinf(b)) return false;
    const double rtol = sizeof(T) == 4 ? 1e-5 : 1e-12, atol = sizeof(T) == 4 ? 1e-6 : 1e-14;
    return std::fabs(double(a) - double(b)) <= atol + rtol * std::fabs(double(b));
  } else if constexpr (kIsComplex<T>) {
    return close(a.real(), b.real()) && close(a.imag(), b.imag());
  } else {
    return a == b;
  }
}

// The first differing element, or -1.
inline int64_t first_difference(DType dtype, const std::vector<uint8_t>& got,
                                const std::vector<uint8_t>& want) {
  return visit_dtype(dtype, [&](auto t) -> int64_t {
    using T = std::conditional_t<std::is_same_v<decltype(t), bool>, uint8_t, decltype(t)>;
    const int64_t n = static_cast<int64_t>(want.size() / sizeof(T));
    for (int64_t i = 0; i < n; ++i) {
      T a, b;
      std::memcpy(&a, got.data() + i * sizeof(T), sizeof(T));
      std::memcpy(&b, want.data() + i * sizeof(T), sizeof(T));
      if (!close(a, b)) return i;
    }
    return -1;
  });
}

}  // namespace arrvm::mpitest
