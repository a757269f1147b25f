// LU factorization (benchpress lu, Bohrium's la.lu): Doolittle's method
// without pivoting on a random n x n matrix made diagonally dominant, for
// `iterations` (<= n-1) columns, keeping L (unit diagonal) and U. Like Gauss,
// the host loops over the column and each step works on slices. Checksum:
// sum(L) + sum(U).
#include "programs/common.hpp"

namespace arrvm::bench {

double lu_factorization(const Vm& vm, const Size& size) {
  const int64_t n = size.n;
  Array u = Array::random_uniform({n, n}, 4, vm);
  diagonal(u) += static_cast<double>(n);
  Array l = Array::zeros({n, n}, DType::Float64, vm);
  diagonal(l) = 1.0;
  for (int64_t k = 0; k < size.iterations && k < n - 1; ++k) {
    const Array factor = u(Slice(k + 1, {}), k) / u(k, k);
    l(Slice(k + 1, {}), k) = factor;
    u(Slice(k + 1, {}), Slice(k, {})) -= column(factor) * u(k, Slice(k, {}));
  }
  return l.sum().item<double>() + u.sum().item<double>();
}

}  // namespace arrvm::bench
