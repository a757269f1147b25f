// Water-Ice simulation, condensed from WISP (benchpress wisp, the
// Water-Ice Simulation Program of R. Nordfang): an n x n grid of ocean
// columns, each of four layers (mixed layer, pycnocline, deep Atlantic,
// abyss) with temperature T and salinity S, under a sea-ice volume V. Each
// forward-Euler step computes the ice cover by mask arithmetic, the density
// (UNESCO 1983, as WISP's density module) and heat capacity (UNESCO 1983) of
// every cell, heat exchange between layers, with the air and under the ice,
// and horizontally between neighbouring columns, ice growth, and the salt
// fluxes (brine rejection, melt water, vertical and horizontal mixing).
// Checksum: sum(T) + sum(S) + sum(V) at the end.
#include <vector>

#include "programs/common.hpp"

namespace arrvm::bench {
namespace {

constexpr double kDt = 60.0 * 60 * 24 * 365 / 200;   // a two-hundredth of a year
constexpr double kAirT = -20.0, kAirK = 20.0;        // air temperature, open-water heat transfer
constexpr double kIceK = 2.2, kFreezeT = -1.8;       // ice conductivity, freezing point
constexpr double kIceRho = 910.0, kLatent = 3.34e5;  // ice density, latent heat of fusion
constexpr double kHorizK = 50.0, kHorizS = 1e-3;     // horizontal heat and salt mixing

Array host(const std::vector<double>& v, const Vm& vm) {
  return Array::from_host(v, vm);
}

// Density of seawater at zero pressure.
Array dens0(const Array& s, const Array& t) {
  const double a0 = 999.842594, a1 = 6.793952e-2, a2 = -9.095290e-3, a3 = 1.001685e-4, a4 = -1.120083e-6,
               a5 = 6.536332e-9;
  const double b0 = 8.24493e-1, b1 = -4.0899e-3, b2 = 7.6438e-5, b3 = -8.2467e-7, b4 = 5.3875e-9;
  const double c0 = -5.72466e-3, c1 = 1.0227e-4, c2 = -1.6546e-6, d0 = 4.8314e-4;
  const Array smow = a0 + (a1 + (a2 + (a3 + (a4 + a5 * t) * t) * t) * t) * t;
  const Array rb = b0 + (b1 + (b2 + (b3 + b4 * t) * t) * t) * t;
  const Array rc = c0 + (c1 + c2 * t) * t;
  return smow + rb * s + rc * power(s, 1.5) + d0 * s * s;
}

// Secant bulk modulus at pressure p (bar).
Array seck(const Array& s, const Array& t, const Array& p) {
  const Array aw = 3.239908 + (1.43713e-3 + (1.16092e-4 + -5.77905e-7 * t) * t) * t;
  const Array bw = 8.50935e-5 + (-6.12293e-6 + 5.2787e-8 * t) * t;
  const Array kw = 19652.21 + (148.4206 + (-2.327105 + (1.360477e-2 + -5.155288e-5 * t) * t) * t) * t;
  const Array sr = sqrt(s);
  const Array a = aw + (2.2838e-3 + (-1.0981e-5 + -1.6078e-6 * t) * t + 1.91075e-4 * sr) * s;
  const Array k0 = kw + (54.6746 + (-0.603459 + (1.09987e-2 + -6.1670e-5 * t) * t) * t +
                         (7.944e-2 + (1.6483e-2 + -5.3009e-4 * t) * t) * sr) *
                            s;
  const Array b = bw + (-9.9348e-7 + (2.0816e-8 + 9.1697e-10 * t) * t) * s;
  return k0 + (a + b * p) * p;
}

Array density(const Array& s, const Array& t, const Array& p) {
  return dens0(s, t) / (1 - p / seck(s, t, p));
}

// Specific heat of seawater at zero pressure, J/(kg K).
Array heat_capacity(const Array& s, const Array& t) {
  const Array cp0 = 4217.4 + (-3.720283 + (0.1412855 + (-2.654387e-3 + 2.093236e-5 * t) * t) * t) * t;
  const Array a = -7.64357 + (0.1072763 + -1.38385e-3 * t) * t;
  const Array b = 0.1770383 + (-4.07718e-3 + 5.148e-5 * t) * t;
  return cp0 + a * s + b * power(s, 1.5);
}

// Adds to `acc` the exchange `flux` between neighbours along `axis` (flux
// from index i to i+1): acc[:-1] -= flux, acc[1:] += flux.
void exchange(const Array& acc, const Array& flux, int axis) {
  const Slice head({}, -1), tail(1, {});
  if (axis == 0) {
    acc(head) -= flux;
    acc(tail) += flux;
  } else if (axis == 1) {
    acc(all, head) -= flux;
    acc(all, tail) += flux;
  } else {
    acc(all, all, head) -= flux;
    acc(all, all, tail) += flux;
  }
}

// The difference of x's neighbours along `axis`: x[:-1] - x[1:].
Array neighbour_diff(const Array& x, int axis) {
  const Slice head({}, -1), tail(1, {});
  if (axis == 0) return x(head) - x(tail);
  if (axis == 1) return x(all, head) - x(all, tail);
  return x(all, all, head) - x(all, all, tail);
}

}  // namespace

double water_ice(const Vm& vm, const Size& size) {
  const int64_t n = size.n;
  const Array thickness = host({50, 300, 400, 1800}, vm);   // m, per layer
  const Array depth = host({50, 350, 800, 3000}, vm);       // m, to the layer's bottom
  const std::vector<double> pres = {60.4, 360, 814, 3030};  // dbar
  const Array pressure = host({0.1 * pres[0], 0.1 * pres[1], 0.1 * pres[2], 0.1 * pres[3]}, vm);  // bar
  // Heat and salt exchange between layers k and k+1, over half their depths.
  const Array half_span = host({(50 + 350) / 2.0, (350 + 800) / 2.0, (800 + 3000) / 2.0}, vm);
  const Array depth_sum = host({50 + 350, 350 + 800, 800 + 3000}, vm);
  const Array vertical_k = host({5.0, 1.0, 0.5}, vm);
  const Array salt_k_ice = host({1e-4, 1e-6, 1e-8}, vm), salt_k_open = host({6e-4, 1e-6, 1e-8}, vm);

  Array t = host({-1.5, 0.1, 5.0, 2.0}, vm) + 0.5 * Array::random_uniform({n, n, 4}, 30, vm);
  Array s = host({33.0, 34.5, 32.0, 35.0}, vm) + 0.1 * Array::random_uniform({n, n, 4}, 31, vm);
  Array v = 0.3 + 2 * Array::random_uniform({n, n}, 32, vm);
  for (int64_t i = 0; i < size.iterations; ++i) {
    // Ice: thick ice covers its cell; thin ice (V <= 0.5) is a partial cover.
    const Array thin = v <= 0.5;
    const Array h_ice = ~thin * v + thin * (sqrt(maximum(v, 0.0)) / 2.0);
    const Array x_ice = ~thin * 1.0 + thin * (2 * h_ice);
    const Array x_col = x_ice.reshape({n, n, 1});

    const Array p = density(s, t, pressure);
    const Array c_w = heat_capacity(s, t);
    const Array m = thickness * p;  // kg per m^2

    // Heat: between layers, at the surface (open water and through the ice), between columns.
    const Array q = Array::zeros({n, n, 4}, DType::Float64, vm);
    exchange(q, vertical_k * neighbour_diff(t, 2) / half_span, 2);
    const Array surface_t = t(all, all, 0);
    const Array conduct = x_ice * kIceK / (h_ice + 0.1);
    q(all, all, 0) += (1 - x_ice) * kAirK * (kAirT - surface_t) + conduct * (kFreezeT - surface_t);
    exchange(q, kHorizK * neighbour_diff(t, 0), 0);
    exchange(q, kHorizK * neighbour_diff(t, 1), 1);
    const Array dt_dt = q / (m * c_w);
    // Ice grows where the surface is below freezing, melts where it is above.
    const Array dv_dt = (kFreezeT - surface_t) * (conduct + (1 - x_ice) * kAirK * 0.01) / (kIceRho * kLatent);

    // Salt: brine from growing ice into the pycnocline, melt water into the
    // mixed layer, mixing between layers and between columns.
    const Array ps = p * s;
    const Array k_salt = salt_k_ice * x_col + (1 - x_col) * salt_k_open;
    const Array w = Array::zeros({n, n, 4}, DType::Float64, vm);
    exchange(w, 2 * k_salt * neighbour_diff(ps, 2) / depth_sum, 2);
    const Array growing = dv_dt > 0;
    const Array w_ice = kIceRho * 34 * dv_dt / (1 - 34 / 1000.0);
    w(all, all, 0) += ~growing * w_ice;
    w(all, all, 1) += growing * w_ice;
    exchange(w, kHorizS * neighbour_diff(ps, 0) / depth, 0);
    exchange(w, kHorizS * neighbour_diff(ps, 1) / depth, 1);
    const Array ds_dt = w / (p * thickness);

    t += kDt * dt_dt;
    s += kDt * ds_dt;
    v = maximum(v + kDt * dv_dt, 0.0);
  }
  return t.sum().item<double>() + s.sum().item<double>() + v.sum().item<double>();
}

}  // namespace arrvm::bench
