// What the benchmark programs share: short names for the Array API and the
// few idioms NumPy programs spell with a one-liner (a[k:, None], the flat
// diagonal a.flat[::n+1]).
//
// Float expressions are written operation for operation like their NumPy
// twins in bench/numpy/programs.py (same association, x*x where NumPy's x**2
// squares exactly), so elementwise results are bit-identical and only
// reductions (summation order) and transcendental functions (libm against
// NumPy's SIMD loops, an ulp) can tell the two apart.
#pragma once

#include <cstdint>

#include "arrvm/arrvm.hpp"
#include "programs/programs.hpp"

namespace arrvm::bench {

// NumPy's `:`.
inline const Slice all{};

// a.reshape(-1)[::n+1] of a contiguous n x n array: its diagonal as a view.
inline Array diagonal(const Array& a) {
  return a.ravel()(Slice({}, {}, a.shape()[0] + 1));
}

// a[:, None] of a 1-D array (a view when `a` is contiguous, else a copy).
inline Array column(const Array& a) {
  return a.reshape({-1, 1});
}

}  // namespace arrvm::bench
