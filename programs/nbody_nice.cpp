// N-body Nice (benchpress nbody_nice): 40 planets around a central mass of a
// million suns, and n asteroids that feel the planets but not each other.
// Each step computes planet-planet forces (40 x 40) and asteroid-planet
// forces (n x 40), then moves everything. The random host scalars of the
// original's set-up are fixed numbers here. Checksum: the sum of |vx|+|vy|+|vz|
// over planets and asteroids at the end.
#include <cmath>

#include "programs/common.hpp"

namespace arrvm::bench {
namespace {

constexpr double kSolarMass = 1.98892e30;
constexpr double kMax = 1e18;  // x_max = y_max = z_max
constexpr double kDt = 1e12;
constexpr int64_t kPlanets = 40;

struct Bodies {
  Array x, y, z, vx, vy, vz, m;
};

// Speed of a circular orbit around the central mass at distance |r|.
Array circle_speed(const Array& x, const Array& y, const Array& z) {
  const Array r = sqrt(x * x + y * y + z * z);
  const double numerator = 6.67e-11 * 1e6 * kSolarMass;
  return sqrt(numerator / r);
}

// n bodies in a flat disc on circular orbits; seeds seed..seed+6.
Bodies random_system(const Vm& vm, int64_t n, uint64_t seed, double dist_offset, double mass_floor) {
  Bodies b;
  b.x = Array::random_uniform({n}, seed, vm);
  b.y = Array::random_uniform({n}, seed + 1, vm);
  b.z = Array::random_uniform({n}, seed + 2, vm) * 0.01;
  const Array dist = (1.0 / sqrt(b.x * b.x + b.y * b.y + b.z * b.z)) - dist_offset;
  const Array sx = sign(0.5 - Array::random_uniform({n}, seed + 3, vm));
  const Array sy = sign(0.5 - Array::random_uniform({n}, seed + 4, vm));
  const Array sz = sign(0.5 - Array::random_uniform({n}, seed + 5, vm));
  b.x = kMax * b.x * dist * sx;
  b.y = kMax * b.y * dist * sy;
  b.z = kMax * b.z * dist * sz;
  const Array speed = circle_speed(b.x, b.y, b.z);
  const Array theta = M_PI / 2 - arctan(absolute(b.y / b.x));
  b.vx = -1 * sign(b.y) * cos(theta) * speed;
  b.vy = sign(b.x) * sin(theta) * speed;
  b.vz = Array::zeros({n}, DType::Float64, vm);
  b.m = Array::random_uniform({n}, seed + 6, vm) * kSolarMass * 10 + mass_floor;
  return b;
}

// Adds to a's velocities the pull of b over dt (a and b the same: no self-force).
void pull(Bodies& a, const Bodies& b, bool same) {
  const double g = 6.673e-11;
  const Array dx = b.x - column(a.x), dy = b.y - column(a.y), dz = b.z - column(a.z);
  const Array pm = b.m * column(a.m);
  const Array r = sqrt(dx * dx + dy * dy + dz * dz);
  const Array scale = g * pm / (r * r);
  Array fx = scale * (dx / r), fy = scale * (dy / r), fz = scale * (dz / r);
  if (same) {
    // 0/0 on the diagonal: the force of a body on itself is zero.
    diagonal(fx) = 0.0;
    diagonal(fy) = 0.0;
    diagonal(fz) = 0.0;
  }
  a.vx += fx.sum(1) / a.m * kDt;
  a.vy += fy.sum(1) / a.m * kDt;
  a.vz += fz.sum(1) / a.m * kDt;
}

void move(Bodies& b) {
  b.x += b.vx * kDt;
  b.y += b.vy * kDt;
  b.z += b.vz * kDt;
}

double speed_sum(const Bodies& b) {
  return (absolute(b.vx) + absolute(b.vy) + absolute(b.vz)).sum().item<double>();
}

}  // namespace

double nbody_nice(const Vm& vm, const Size& size) {
  Bodies planets = random_system(vm, kPlanets, 10, 0.75, 1e20);
  // The central mass, at rest at the origin.
  planets.m(0) = 1e6 * kSolarMass;
  for (Array* a : {&planets.x, &planets.y, &planets.z, &planets.vx, &planets.vy, &planets.vz}) (*a)(0) = 0.0;
  Bodies asteroids = random_system(vm, size.n, 20, 0.1, 1e14);
  for (int64_t i = 0; i < size.iterations; ++i) {
    pull(planets, planets, true);
    pull(asteroids, planets, false);
    move(planets);
    move(asteroids);
  }
  return speed_sum(planets) + speed_sum(asteroids);
}

}  // namespace arrvm::bench
