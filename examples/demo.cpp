// The demo: two small NumPy-style programs on the C++ Array API. Every array
// operation becomes bytecode; nothing is computed until a result is read.
// Run with ARRVM_TRACE=path to record the stream for `arrvm replay`.
#include <arrvm/arrvm.hpp>

#include <cmath>
#include <cstdio>

using arrvm::Array;
using arrvm::DType;
using arrvm::Slice;

namespace {

// Jacobi iteration of the heat equation on an n x n grid whose top edge is
// held at 100 degrees, until the largest change falls below `epsilon`.
void heat_equation(int64_t n, double epsilon) {
  Array grid = Array::zeros({n + 2, n + 2});
  grid(0, Slice()) = 100.0;
  const Slice inner(1, -1);
  int iterations = 0;
  double delta = 0;
  do {
    Array centre = grid(inner, inner);
    Array next = (centre + grid(Slice({}, -2), inner) + grid(Slice(2, {}), inner) +
                  grid(inner, Slice({}, -2)) + grid(inner, Slice(2, {}))) *
                 0.2;
    delta = arrvm::absolute(next - centre).max().item<double>();
    grid(inner, inner) = next;  // rvalue assignment writes into the view: grid[1:-1,1:-1] = next
    ++iterations;
  } while (delta > epsilon && iterations < 10000);
  const double mean = grid(inner, inner).mean().item<double>();
  std::printf("heat equation %lldx%lld: %d iterations, last delta %.3g, mean temperature %.6f\n",
              static_cast<long long>(n), static_cast<long long>(n), iterations, delta, mean);
}

// Monte Carlo estimate of pi from Philox random numbers (identical on every backend).
void monte_carlo_pi(int64_t samples) {
  Array x = Array::random_uniform({samples}, 1);
  Array y = Array::random_uniform({samples}, 2);
  Array inside = (x * x + y * y) <= 1.0;
  const double pi = 4.0 * static_cast<double>(inside.sum().item<int64_t>()) / static_cast<double>(samples);
  std::printf("monte carlo pi with %lld samples: %.6f (error %.2e)\n", static_cast<long long>(samples), pi,
              std::fabs(pi - M_PI));
}

}  // namespace

int main() {
  try {
    heat_equation(32, 0.05);
    monte_carlo_pi(1000000);
  } catch (const arrvm::Error& e) {
    std::fprintf(stderr, "demo failed: %s\n", e.what());
    return 1;
  }
  return 0;
}
