// Gauss elimination (benchpress gauss, Bohrium's la.gauss): forward
// elimination of a random n x n matrix made diagonally dominant (so that no
// pivoting is needed), `iterations` (<= n-1) steps, then each row divided by
// its diagonal element. The bytecode has no loop, so the host loops over the
// pivot k and each step is a few instructions on shrinking slices, which is
// how Bohrium's NumPy programs do it; the kernels compile once because their
// source does not depend on the slices' sizes. Checksum: the sum of the result.
#include "programs/common.hpp"

namespace arrvm::bench {

double gauss_elimination(const Vm& vm, const Size& size) {
  const int64_t n = size.n;
  Array a = Array::random_uniform({n, n}, 3, vm);
  diagonal(a) += static_cast<double>(n);
  for (int64_t k = 0; k < size.iterations && k < n - 1; ++k) {
    const Array factor = a(Slice(k + 1, {}), k) / a(k, k);
    a(Slice(k + 1, {}), Slice(k, {})) -= column(factor) * a(k, Slice(k, {}));
  }
  const Array d = diagonal(a).copy();
  a /= column(d);
  return a.sum().item<double>();
}

}  // namespace arrvm::bench
