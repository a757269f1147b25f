// Shallow water (benchpress shallow_water, after Burkardt's shallow_water_2d):
// the Lax-Wendroff scheme on an n x n grid (n >= 16) of water height H and
// momenta U, V with reflecting edges, starting from two 8 x 8 droplets on a
// flat surface. Checksum: the sum of H at the end.
#include <cmath>
#include <vector>

#include "programs/common.hpp"

namespace arrvm::bench {
namespace {

constexpr double kG = 9.80665;  // gravitational acceleration

// height * exp(-5 (x^2 + y^2)) on an 8 x 8 grid of [-1, 1]^2: host data, as
// the NumPy program builds it with linspace and meshgrid.
std::vector<double> droplet(double height) {
  const int w = 8;
  std::vector<double> d(w * w);
  for (int i = 0; i < w; ++i) {
    for (int j = 0; j < w; ++j) {
      const double x = -1.0 + j * (2.0 / (w - 1)), y = -1.0 + i * (2.0 / (w - 1));
      d[i * w + j] = height * std::exp(-5.0 * (x * x + y * y));
    }
  }
  return d;
}

void step(Array& h, Array& u, Array& v) {
  const double dt = 0.02, dx = 1.0, dy = 1.0;
  const double cx = dt / (2 * dx), cy = dt / (2 * dy);
  const Slice in(1, -1), tail(1, {}), head({}, -1);
  // Reflecting boundary conditions.
  h(all, 0) = h(all, 1);
  u(all, 0) = u(all, 1);
  v(all, 0) = -v(all, 1);
  h(all, -1) = h(all, -2);
  u(all, -1) = u(all, -2);
  v(all, -1) = -v(all, -2);
  h(0, all) = h(1, all);
  u(0, all) = -u(1, all);
  v(0, all) = v(1, all);
  h(-1, all) = h(-2, all);
  u(-1, all) = -u(-2, all);
  v(-1, all) = v(-2, all);

  // First half step, in x (rows) then in y (columns).
  const Array h1 = h(tail, in), h0 = h(head, in), u1 = u(tail, in), u0 = u(head, in), v1 = v(tail, in),
              v0 = v(head, in);
  const Array hx = (h1 + h0) / 2 - cx * (u1 - u0);
  const Array ux =
      (u1 + u0) / 2 - cx * ((u1 * u1 / h1 + kG / 2 * (h1 * h1)) - (u0 * u0 / h0 + kG / 2 * (h0 * h0)));
  const Array vx = (v1 + v0) / 2 - cx * ((u1 * v1 / h1) - (u0 * v0 / h0));

  const Array hr = h(in, tail), hl = h(in, head), ur = u(in, tail), ul = u(in, head), vr = v(in, tail),
              vl = v(in, head);
  const Array hy = (hr + hl) / 2 - cy * (vr - vl);
  const Array uy = (ur + ul) / 2 - cy * ((vr * ur / hr) - (vl * ul / hl));
  const Array vy =
      (vr + vl) / 2 - cy * ((vr * vr / hr + kG / 2 * (hr * hr)) - (vl * vl / hl + kG / 2 * (hl * hl)));

  // Second half step.
  const Array ux1 = ux(tail, all), ux0 = ux(head, all), hx1 = hx(tail, all), hx0 = hx(head, all),
              vx1 = vx(tail, all), vx0 = vx(head, all);
  const Array vy1 = vy(all, tail), vy0 = vy(all, head), uy1 = uy(all, tail), uy0 = uy(all, head),
              hy1 = hy(all, tail), hy0 = hy(all, head);
  h(in, in) -= (dt / dx) * (ux1 - ux0) + (dt / dy) * (vy1 - vy0);
  u(in, in) -=
      (dt / dx) * ((ux1 * ux1 / hx1 + kG / 2 * (hx1 * hx1)) - (ux0 * ux0 / hx0 + kG / 2 * (hx0 * hx0))) +
      (dt / dy) * ((vy1 * uy1 / hy1) - (vy0 * uy0 / hy0));
  v(in, in) -=
      (dt / dx) * ((ux1 * vx1 / hx1) - (ux0 * vx0 / hx0)) +
      (dt / dy) * ((vy1 * vy1 / hy1 + kG / 2 * (hy1 * hy1)) - (vy0 * vy0 / hy0 + kG / 2 * (hy0 * hy0)));
}

}  // namespace

double shallow_water(const Vm& vm, const Size& size) {
  const int64_t n = size.n;
  Array h = Array::ones({n, n}, DType::Float64, vm);
  const Array drop = Array::from_host(droplet(8.0), {8, 8}, vm);
  for (const int64_t at : {n / 4, n / 2}) h(Slice(at, at + 8), Slice(at, at + 8)) += drop;
  Array u = Array::zeros({n, n}, DType::Float64, vm);
  Array v = Array::zeros({n, n}, DType::Float64, vm);
  for (int64_t i = 0; i < size.iterations; ++i) step(h, u, v);
  return h.sum().item<double>();
}

}  // namespace arrvm::bench
