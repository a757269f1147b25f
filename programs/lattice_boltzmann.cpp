// Lattice-Boltzmann D3Q19 (benchpress lbm_3d, Iain Haslam's BGK model): 19
// particle densities F[q] on a periodic n x n x n lattice with a wall at
// y = 0, streamed along their velocities, bounced back at the wall, and
// relaxed towards the equilibrium of their density and velocity, with a
// small push at the inlet. Checksum: sum(F*F) + sum(|UX|+|UY|+|UZ|) at the end.
#include <array>
#include <utility>
#include <vector>

#include "programs/common.hpp"

namespace arrvm::bench {
namespace {

// The D3Q19 velocities (x, y, z) of q = 1..18, as in the original's streaming
// and moment sums (q = 0 is at rest).
constexpr std::array<std::array<int, 3>, 19> kVelocity = {{
    {0, 0, 0},   {0, 0, 1},  {0, 0, -1}, {0, 1, 0},   {0, -1, 0},  {1, 0, 0},  {-1, 0, 0},
    {1, 1, 0},   {1, -1, 0}, {-1, 1, 0}, {-1, -1, 0}, {1, 0, 1},   {1, 0, -1}, {-1, 0, 1},
    {-1, 0, -1}, {0, 1, 1},  {0, 1, -1}, {0, -1, 1},  {0, -1, -1},
}};

// The direction each one bounces back into.
constexpr std::array<int, 19> kOpposite = {0, 2, 1, 4, 3, 6, 5, 10, 9, 8, 7, 14, 13, 12, 11, 18, 17, 16, 15};

// The pieces of a periodic shift by s (-1, 0 or +1) along one axis, as
// (destination, source) slices: +1 copies src[:-1] to dst[1:] and src[-1:] to dst[:1].
std::vector<std::pair<Slice, Slice>> shift_pieces(int s) {
  if (s > 0) return {{Slice(1, {}), Slice({}, -1)}, {Slice({}, 1), Slice(-1, {})}};
  if (s < 0) return {{Slice({}, -1), Slice(1, {})}, {Slice(-1, {}), Slice({}, 1)}};
  return {{all, all}};
}

// dst = src rolled by `shift` along its three axes (np.roll written with
// slices, as the NumPy original does).
void roll_into(const Array& dst, const Array& src, const std::array<int, 3>& shift) {
  for (const auto& [dx, sx] : shift_pieces(shift[0])) {
    for (const auto& [dy, sy] : shift_pieces(shift[1])) {
      for (const auto& [dz, sz] : shift_pieces(shift[2])) dst(dx, dy, dz) = src(sx, sy, sz);
    }
  }
}

// F[plus[0]] + F[plus[1]] + ... - F[minus[0]] - ..., accumulated in place as
// the original does (UX = F[5].copy(); UX += F[7]; ...), divided by density.
Array moment(const Array& f, std::initializer_list<int> plus, std::initializer_list<int> minus,
             const Array& density) {
  Array u = f(*plus.begin()).copy();
  for (auto q = plus.begin() + 1; q != plus.end(); ++q) u += f(*q);
  for (int q : minus) u -= f(q);
  u /= density;
  return u;
}

// t * (1 + 3 e.u + 9/2 (e.u)^2 - 3/2 u^2) for one direction, e.u given.
Array equilibrium(const Array& t_density, const Array& eu, const Array& t1) {
  return t_density * (1.0 + 3.0 * eu + 9.0 / 2.0 * (eu * eu) - t1);
}

struct Lattice {
  Array f, feq, t, bound, bound_i;
};

// One time step; returns (UX, UY, UZ).
std::array<Array, 3> step(Lattice& s) {
  const double omega = 1.0, delta_u = 1e-7, t1 = 1 / 3.0, t2 = 1 / 18.0, t3 = 1 / 36.0;
  Array& f = s.f;
  Array& t = s.t;
  // Streaming.
  t.assign(f);
  for (int q = 1; q < 19; ++q) roll_into(f(q), t(q), kVelocity[q]);
  // Densities bouncing back at the next time step.
  const Array bb = Array::zeros(f.shape(), DType::Float64, f.vm());
  t.assign(f);
  t(Slice(1, {})) *= s.bound;
  for (int q = 1; q < 19; ++q) bb(kOpposite[q]) += t(q);

  // Relaxation towards the equilibrium with F's density and velocity.
  Array density = f.sum(0);
  Array ux = moment(f, {5, 7, 8, 11, 12}, {6, 9, 10, 13, 14}, density);
  Array uy = moment(f, {3, 7, 9, 15, 16}, {4, 8, 10, 17, 18}, density);
  Array uz = moment(f, {1, 11, 13, 15, 17}, {2, 12, 14, 16, 18}, density);
  ux(0) += delta_u;  // inlet pressure
  ux *= s.bound_i;
  uy *= s.bound_i;
  uz *= s.bound_i;
  density *= s.bound_i;
  const Array u_squ = ux * ux + uy * uy + uz * uz;

  s.feq(0) = (t1 * density) * (1.0 - 3.0 * u_squ / 2.0);
  Array t_1 = 3.0 / 2.0 * u_squ;
  Array t_density = t2 * density;
  s.feq(1) = equilibrium(t_density, uz, t_1);
  s.feq(2) = equilibrium(t_density, -uz, t_1);
  s.feq(3) = equilibrium(t_density, uy, t_1);
  s.feq(4) = equilibrium(t_density, -uy, t_1);
  s.feq(5) = equilibrium(t_density, ux, t_1);
  s.feq(6) = equilibrium(t_density, -ux, t_1);
  t_1 = 3.0 * u_squ / 2.0;
  t_density = t3 * density;
  for (int q = 7; q < 19; ++q) {
    const auto& e = kVelocity[q];
    // e.u of the diagonal directions: two of the three components.
    Array eu;
    const Array* comp[3] = {&ux, &uy, &uz};
    for (int c = 0; c < 3; ++c) {
      if (e[c] == 0) continue;
      const Array term = e[c] > 0 ? *comp[c] : -*comp[c];
      eu = eu.valid() ? eu + term : term;
    }
    s.feq(q) = equilibrium(t_density, eu, t_1);
  }
  f *= (1.0 - omega);
  f += omega * s.feq;
  // Densities bouncing back at the next time step.
  f(Slice(1, {})) *= s.bound_i;
  f(Slice(1, {})) += bb(Slice(1, {}));
  return {ux, uy, uz};
}

}  // namespace

double lattice_boltzmann(const Vm& vm, const Size& size) {
  const int64_t n = size.n;
  const double density = 1.0;
  Lattice s;
  s.f = Array::full({19, n, n, n}, density / 19.0, DType::Float64, vm);
  s.feq = Array::full({19, n, n, n}, density / 19.0, DType::Float64, vm);
  s.t = Array::zeros({19, n, n, n}, DType::Float64, vm);
  // The scenery: no obstacle, a wall at y = 0.
  s.bound = Array::zeros({n, n, n}, DType::Float64, vm);
  s.bound_i = Array::ones({n, n, n}, DType::Float64, vm);
  s.bound(all, 0, all) += 1.0;
  s.bound_i(all, 0, all) *= 0.0;
  std::array<Array, 3> u;
  for (int64_t i = 0; i < size.iterations; ++i) u = step(s);
  const double energy = (s.f * s.f).sum().item<double>();
  if (size.iterations == 0) return energy;
  return energy + (absolute(u[0]) + absolute(u[1]) + absolute(u[2])).sum().item<double>();
}

}  // namespace arrvm::bench
