// Rosenbrock (benchpress rosenbrock): the n-dimensional Rosenbrock function
// at x = arange(n)/n, evaluated `iterations` times (one host number each).
// Checksum: the mean of the values.
#include "programs/common.hpp"

namespace arrvm::bench {
namespace {

// The function's value, not yet read back (the temporaries die first: see
// leibnitz_pi.cpp).
Array rosen(const Array& x) {
  const Array a = x(Slice({}, -1)), b = x(Slice(1, {}));
  const Array t = 1 - a, u = b - a * a;
  return (t * t + 100.0 * (u * u)).sum();
}

}  // namespace

double rosenbrock(const Vm& vm, const Size& size) {
  const Array x = Array::arange(size.n, DType::Int64, vm) / size.n;
  double total = 0;
  for (int64_t i = 0; i < size.iterations; ++i) total += rosen(x).item<double>();
  return total / static_cast<double>(size.iterations);
}

}  // namespace arrvm::bench
