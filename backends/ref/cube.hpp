// ref's cube opcode (x**3 of a float array), apart from scalar_ops.hpp's
// dispatch: the one function whose bits the kernels' printed form
// (backends/c_emitter.cpp).must follow line by line.
#pragma once

#include <bit>
#include <cmath>
#include <cstdint>
#include <type_traits>

namespace arrvm::ref {

// x**3 rounded once (NumPy's pow rounds it within 0.52 ulp, or SVML's pow
// within 1; x * x * x rounds twice): x * x = h + l and h * x = p + e exactly
// (fma), then p + (l * x + e). A tiny x (double: |x| < 2^-256, float:
// 2^-32) is scaled by that power of two's inverse first, so that l and e
// stay normal, and the result back after (a subnormal result rounds twice).
// An x whose cube may pass 2^1023 (float: 2^127), an infinity or a NaN is
// x * x * x; the rounded-once path then runs on +0, so that no lane ever
// computes inf - inf (GCC, told that flags do not matter, moves selects
// past the fmas), and the tests read exponent bits as integers (a
// vectorized float comparison of a NaN raises invalid, engine/runtime_fp.cpp;
// NumPy's x**3 raises none). A zero keeps its sign. The cpu and OpenCL
// kernels print the same (backends/c_emitter.cpp).
template <typename T>
T cube(T a) {
  constexpr bool kDouble = sizeof(T) == 8;
  using Bits = std::conditional_t<kDouble, uint64_t, uint32_t>;
  constexpr int kMantissa = kDouble ? 52 : 23;
  constexpr Bits kExponent = kDouble ? 0x7ff : 0xff, kBias = kDouble ? 1023 : 127;
  constexpr Bits kTiny = kDouble ? 256 : 32, kBig = kDouble ? 341 : 42;
  const Bits ex = (std::bit_cast<Bits>(a) >> kMantissa) & kExponent;
  const bool tiny = ex < kBias - kTiny, big = ex >= kBias + kBig;
  const T xo = std::bit_cast<T>(std::bit_cast<Bits>(a) & (Bits(0) - Bits(!big)));
  // The scale factors' bits by integer arithmetic: a float select here
  // lets GCC run the whole computation scaled and unscaled (overflowing).
  const Bits one = std::bit_cast<Bits>(T(1)), tiny_mask = Bits(0) - Bits(tiny);
  const T x = xo * std::bit_cast<T>(Bits(one + (tiny_mask & (kTiny << kMantissa))));
  const T h = x * x, p = h * x, l = std::fma(x, x, -h), e = std::fma(h, x, -p);
  const T r = (p == 0 ? p : p + std::fma(l, x, e)) *
              std::bit_cast<T>(Bits(one - (tiny_mask & ((3 * kTiny) << kMantissa))));
  return big ? a * a * a : r;
}

}  // namespace arrvm::ref
