// Monte Carlo pi (benchpress montecarlo_pi): the fraction of n random points
// of the unit square inside the quarter circle, `iterations` times with new
// points (Philox streams under seeds 100+2i and 101+2i, which the NumPy twin
// reproduces). Checksum: the mean of the estimates.
#include "programs/common.hpp"

namespace arrvm::bench {
namespace {

// The number of points inside, not yet read back (x, y and the temporaries
// die first: see leibnitz_pi.cpp).
Array count_inside(const Vm& vm, int64_t n, uint64_t seed) {
  const Array x = Array::random_uniform({n}, seed, vm);
  const Array y = Array::random_uniform({n}, seed + 1, vm);
  return (sqrt(x * x + y * y) <= 1.0).sum();
}

}  // namespace

double monte_carlo_pi(const Vm& vm, const Size& size) {
  double total = 0;
  for (int64_t i = 0; i < size.iterations; ++i) {
    const auto inside = count_inside(vm, size.n, static_cast<uint64_t>(100 + 2 * i)).item<int64_t>();
    total += static_cast<double>(inside) * 4.0 / static_cast<double>(size.n);
  }
  return total / static_cast<double>(size.iterations);
}

}  // namespace arrvm::bench
