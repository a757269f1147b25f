// Heat equation (benchpress heat_equation): Jacobi sweeps over an n x n grid
// whose top edge is held at 40 and the other edges at -273.15 degrees, until
// the summed absolute change (delta) falls below epsilon or `iterations`
// sweeps are done. The delta is read back every sweep, as the NumPy program's
// `while delta > epsilon` does. Checksum: the sum of the interior plus the
// last delta.
#include "programs/common.hpp"

namespace arrvm::bench {

double heat_equation(const Vm& vm, const Size& size) {
  const int64_t n = size.n;
  const double epsilon = 0.005;
  Array grid = Array::zeros({n + 2, n + 2}, DType::Float64, vm);
  grid(all, 0) = -273.15;
  grid(all, -1) = -273.15;
  grid(-1, all) = -273.15;
  grid(0, all) = 40.0;

  const Slice inner(1, -1), head({}, -2), tail(2, {});
  Array center = grid(inner, inner);
  const Array north = grid(head, inner), east = grid(inner, tail), west = grid(inner, head),
              south = grid(tail, inner);
  double delta = epsilon + 1;
  int64_t iteration = 0;
  while (delta > epsilon) {
    ++iteration;
    const Array work = 0.2 * (center + north + east + west + south);
    const Array change = absolute(work - center).sum();  // its temporaries die here, before the sync
    delta = change.item<double>();
    center.assign(work);
    if (iteration >= size.iterations) break;
  }
  return center.sum().item<double>() + delta;
}

}  // namespace arrvm::bench
