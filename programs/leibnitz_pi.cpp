// Leibnitz pi (benchpress leibnitz_pi): pi as 4 * sum over k < n of
// 1/(4k+1) - 1/(4k+3), computed `iterations` times (one host number each).
// Checksum: the mean of the estimates.
#include "programs/common.hpp"

namespace arrvm::bench {
namespace {

// One estimate, not yet read back. As in the NumPy function, k and the
// temporaries die before the caller reads the result, so their frees reach
// the VM in the same batch and fusion can turn them into scalars. (A C++
// temporary lives to the end of its full expression: `(...).sum().item()` in
// one statement would free them only after the sync.)
Array estimate(const Vm& vm, int64_t n) {
  const Array k = Array::arange(n, DType::Int64, vm);
  return 4.0 * (1.0 / (4 * k + 1) - 1.0 / (4 * k + 3)).sum();
}

}  // namespace

double leibnitz_pi(const Vm& vm, const Size& size) {
  double total = 0;
  for (int64_t i = 0; i < size.iterations; ++i) total += estimate(vm, size.n).item<double>();
  return total / static_cast<double>(size.iterations);
}

}  // namespace arrvm::bench
