// N-body (benchpress nbody): n bodies of about a solar mass, initially at
// rest in a cube of a hundredth of a light year, moved by their pairwise
// Newtonian gravity in `iterations` steps of a year: O(n^2) work per step on
// n x n matrices. Checksum: the sum of |vx|+|vy|+|vz| at the end (positions
// hardly change in 20 years; the velocities are made of the forces).
#include "programs/common.hpp"

namespace arrvm::bench {
namespace {

constexpr double kG = 6.67384e-11;             // m / (kg s^2)
constexpr double kDt = 60 * 60 * 24 * 365.25;  // a year in seconds
constexpr double kLightYear = 9.4607e15;       // m
constexpr double kSolarMass = 1.9891e30;       // kg

// The force per unit of dt on each body along one axis, from the distance
// matrix d (d[i, j] = x_i - x_j), the masses as a column and r^3.
Array force_sum(const Array& d, const Array& m_column, const Array& r3) {
  Array f = kG * m_column * d / r3;
  diagonal(f) = 0.0;  // a body exerts no force on itself
  return f.sum(0);
}

}  // namespace

double nbody(const Vm& vm, const Size& size) {
  const int64_t n = size.n;
  const Array m = (Array::random_uniform({n}, 5, vm) + 10) * (kSolarMass / 10);
  Array x = (Array::random_uniform({n}, 6, vm) - 0.5) * (kLightYear / 100);
  Array y = (Array::random_uniform({n}, 7, vm) - 0.5) * (kLightYear / 100);
  Array z = (Array::random_uniform({n}, 8, vm) - 0.5) * (kLightYear / 100);
  Array vx = Array::zeros({n}, DType::Float64, vm), vy = Array::zeros({n}, DType::Float64, vm),
        vz = Array::zeros({n}, DType::Float64, vm);
  for (int64_t i = 0; i < size.iterations; ++i) {
    const Array dx = column(x) - x, dy = column(y) - y, dz = column(z) - z;
    Array r = sqrt(dx * dx + dy * dy + dz * dz);
    diagonal(r) = 1.0;
    const Array mask = r < 1.0;  // prevent collisions
    r = r * ~mask + 1.0 * mask;
    const Array r3 = r * r * r;
    const Array mc = column(m);
    vx += kDt * force_sum(dx, mc, r3);
    vy += kDt * force_sum(dy, mc, r3);
    vz += kDt * force_sum(dz, mc, r3);
    x += kDt * vx;
    y += kDt * vy;
    z += kDt * vz;
  }
  return (absolute(vx) + absolute(vy) + absolute(vz)).sum().item<double>();
}

}  // namespace arrvm::bench
