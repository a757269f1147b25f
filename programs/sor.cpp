// Successive over-relaxation (benchpress sor): red-black Gauss-Seidel on an
// n x n grid stored as four (n+2)/2 squares r0, r1, b0, b1 (even/odd rows of
// the red and the black cells), with the heat equation's edges, until the
// summed change between neighbours falls below epsilon or `iterations` sweeps
// are done (read back every sweep). Checksum: sum(r0+r1+b0+b1) + the last delta.
#include "programs/common.hpp"

namespace arrvm::bench {

double sor(const Vm& vm, const Size& size) {
  const int64_t h = (size.n + 2) / 2;
  const double epsilon = 0.005;
  Array r0 = Array::zeros({h, h}, DType::Float64, vm), r1 = Array::zeros({h, h}, DType::Float64, vm);
  Array b0 = Array::zeros({h, h}, DType::Float64, vm), b1 = Array::zeros({h, h}, DType::Float64, vm);
  r0(0, all) = 40.0;  // top
  b0(0, all) = 40.0;
  r1(-1, all) = -273.15;  // bottom
  b1(-1, all) = -273.15;
  r0(all, 0) = -273.15;  // left
  b1(all, 0) = -273.15;
  b0(all, -1) = -273.15;  // right
  r1(all, -1) = -273.15;

  const Slice head({}, -1), tail(1, {});
  double delta = epsilon + 1;
  int64_t iteration = 0;
  while (delta > epsilon) {
    ++iteration;
    r1(head, head) =
        (r1(head, head) + b0(head, head) + b0(tail, head) + b1(head, head) + b1(head, tail)) * 0.2;
    r0(tail, tail) =
        (r0(tail, tail) + b1(head, tail) + b1(tail, tail) + b0(tail, head) + b0(tail, tail)) * 0.2;
    b1(head, tail) =
        (b1(head, tail) + r0(head, tail) + r0(tail, tail) + r1(head, head) + r1(head, tail)) * 0.2;
    b0(tail, head) =
        (b0(tail, head) + r1(head, head) + r1(tail, head) + r0(tail, head) + r0(tail, tail)) * 0.2;
    // Named, so that the temporaries die before the sync (see leibnitz_pi.cpp).
    const Array change =
        absolute(r0(tail, tail) - b0(tail, head)).sum() + absolute(r1(head, head) - b1(head, tail)).sum() +
        absolute(r0(tail, tail) - b1(head, tail)).sum() + absolute(b0(tail, head) - r1(head, head)).sum();
    delta = change.item<double>();
    if (iteration >= size.iterations) break;
  }
  return (r0 + r1 + b0 + b1).sum().item<double>() + delta;
}

}  // namespace arrvm::bench
