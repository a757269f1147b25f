// 27-point stencil (benchpress point27): Jacobi sweeps of the 27-point mean
// over the interior of an n x n x n grid that starts as a hot slab (100) in a
// cold (0) box. Each sweep reads the old grid whole and then writes the
// interior, as NumPy's active[:] = sum(stencil)/27. Checksum: the sum of the grid.
#include <algorithm>
#include <vector>

#include "programs/common.hpp"

namespace arrvm::bench {

double stencil27(const Vm& vm, const Size& size) {
  const int64_t n = size.n;
  const Array data = Array::zeros({n, n, n}, DType::Float64, vm);
  const int64_t mid = n / 2, half = std::min<int64_t>(8, n / 4);
  data(Slice(mid - half, mid + half), Slice(mid - half, mid + half)) = 100.0;

  // The 27 shifted views of the interior, in (z, y, x) order.
  std::vector<Array> stencil;
  for (int64_t z = 0; z < 3; ++z) {
    for (int64_t y = 0; y < 3; ++y) {
      for (int64_t x = 0; x < 3; ++x) {
        stencil.push_back(data(Slice(z, n - 2 + z), Slice(y, n - 2 + y), Slice(x, n - 2 + x)));
      }
    }
  }
  Array active = stencil[13];  // the centre: data[1:-1, 1:-1, 1:-1]
  for (int64_t i = 0; i < size.iterations; ++i) {
    Array total = stencil[0];
    for (std::size_t s = 1; s < stencil.size(); ++s) total = total + stencil[s];
    active.assign(total / 27.0);
  }
  return data.sum().item<double>();
}

}  // namespace arrvm::bench
