// Helpers for the tests of the C++ array API (tests/test_array_api*.cpp): a VM
// on the ref backend with singleton fusion, and element checks.
#pragma once

#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "arrvm/arrvm.hpp"

namespace apitest {

using arrvm::Array;
using arrvm::DType;
using arrvm::Shape;
using arrvm::Slice;
using arrvm::Vm;

inline constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
inline constexpr double kInf = std::numeric_limits<double>::infinity();

inline Vm ref_vm() {
  return Vm({{"backend", "ref"}, {"fuser", "singleton"}});
}

// Exact comparison of the elements of `a` (read as T) with `want`.
template <typename T>
void check_values(const Array& a, const std::vector<T>& want) {
  const std::vector<T> got = a.to_vector<T>();
  REQUIRE(got.size() == want.size());
  for (std::size_t i = 0; i < want.size(); ++i) {
    CAPTURE(i);
    CHECK(got[i] == want[i]);
  }
}

// Float comparison, NaN equal to NaN, within a relative 1e-12 (1e-6 for float32).
template <typename T>
void check_close(const Array& a, const std::vector<double>& want) {
  const std::vector<T> got = a.to_vector<T>();
  REQUIRE(got.size() == want.size());
  const double tol = sizeof(T) == 4 ? 1e-6 : 1e-12;
  for (std::size_t i = 0; i < want.size(); ++i) {
    CAPTURE(i);
    const double g = static_cast<double>(got[i]);
    if (std::isnan(want[i])) {
      CHECK(std::isnan(g));
    } else if (std::isinf(want[i])) {
      CHECK(g == want[i]);
    } else {
      CHECK(std::fabs(g - want[i]) <= tol * (1.0 + std::fabs(want[i])));
    }
  }
}

}  // namespace apitest
