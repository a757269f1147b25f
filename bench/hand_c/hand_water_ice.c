/* Hand-written twin of water_ice (see hand_kernels.h): two passes per step.
 * Pass 1, per cell: density p (UNESCO 1983), heat capacity, and what the
 * neighbours need or the update reuses: p*S, m*c_w, p*thickness. Pass 2, per
 * column: ice cover, the vertical, surface and horizontal heat and salt
 * fluxes (neighbours' T from the old grid), and the forward-Euler update of
 * T (into a second grid), S and V (in place). Float expressions follow
 * programs/water_ice.cpp operation for operation, the horizontal
 * exchanges in its order (subtract the flux to i+1, then add the one from i-1,
 * along axis 0 then axis 1). T, S are [n][n][4], V is [n][n]. */
#include "hand_common.h"
#include "hand_kernels.h"

#define WI_DT (60.0 * 60 * 24 * 365 / 200)
#define WI_AIR_T (-20.0)
#define WI_AIR_K 20.0
#define WI_ICE_K 2.2
#define WI_FREEZE_T (-1.8)
#define WI_ICE_RHO 910.0
#define WI_LATENT 3.34e5
#define WI_HORIZ_K 50.0
#define WI_HORIZ_S 1e-3

static inline double dens0(double s, double t) {
  const double a0 = 999.842594, a1 = 6.793952e-2, a2 = -9.095290e-3, a3 = 1.001685e-4, a4 = -1.120083e-6,
               a5 = 6.536332e-9;
  const double b0 = 8.24493e-1, b1 = -4.0899e-3, b2 = 7.6438e-5, b3 = -8.2467e-7, b4 = 5.3875e-9;
  const double c0 = -5.72466e-3, c1 = 1.0227e-4, c2 = -1.6546e-6, d0 = 4.8314e-4;
  const double smow = a0 + (a1 + (a2 + (a3 + (a4 + a5 * t) * t) * t) * t) * t;
  const double rb = b0 + (b1 + (b2 + (b3 + b4 * t) * t) * t) * t;
  const double rc = c0 + (c1 + c2 * t) * t;
  return smow + rb * s + rc * pow(s, 1.5) + d0 * s * s;
}

static inline double seck(double s, double t, double p) {
  const double aw = 3.239908 + (1.43713e-3 + (1.16092e-4 + -5.77905e-7 * t) * t) * t;
  const double bw = 8.50935e-5 + (-6.12293e-6 + 5.2787e-8 * t) * t;
  const double kw = 19652.21 + (148.4206 + (-2.327105 + (1.360477e-2 + -5.155288e-5 * t) * t) * t) * t;
  const double sr = sqrt(s);
  const double a = aw + (2.2838e-3 + (-1.0981e-5 + -1.6078e-6 * t) * t + 1.91075e-4 * sr) * s;
  const double k0 = kw + (54.6746 + (-0.603459 + (1.09987e-2 + -6.1670e-5 * t) * t) * t +
                          (7.944e-2 + (1.6483e-2 + -5.3009e-4 * t) * t) * sr) *
                             s;
  const double b = bw + (-9.9348e-7 + (2.0816e-8 + 9.1697e-10 * t) * t) * s;
  return k0 + (a + b * p) * p;
}

static inline double heat_capacity(double s, double t) {
  const double cp0 = 4217.4 + (-3.720283 + (0.1412855 + (-2.654387e-3 + 2.093236e-5 * t) * t) * t) * t;
  const double a = -7.64357 + (0.1072763 + -1.38385e-3 * t) * t;
  const double b = 0.1770383 + (-4.07718e-3 + 5.148e-5 * t) * t;
  return cp0 + a * s + b * pow(s, 1.5);
}

double hand_water_ice(int64_t n, int64_t iterations) {
  static const double thickness[4] = {50, 300, 400, 1800}, depth[4] = {50, 350, 800, 3000};
  static const double pres[4] = {60.4, 360, 814, 3030};
  static const double half_span[3] = {(50 + 350) / 2.0, (350 + 800) / 2.0, (800 + 3000) / 2.0};
  static const double depth_sum[3] = {50 + 350, 350 + 800, 800 + 3000};
  static const double vertical_k[3] = {5.0, 1.0, 0.5};
  static const double salt_k_ice[3] = {1e-4, 1e-6, 1e-8}, salt_k_open[3] = {6e-4, 1e-6, 1e-8};
  static const double t0[4] = {-1.5, 0.1, 5.0, 2.0}, s0[4] = {33.0, 34.5, 32.0, 35.0};
  double pressure[4];
  for (int k = 0; k < 4; ++k) pressure[k] = 0.1 * pres[k];
  const int64_t cols = n * n, cells = 4 * cols;
  double *t = alloc_doubles(cells), *t2 = alloc_doubles(cells), *s = alloc_doubles(cells),
         *v = alloc_doubles(cols);
  double *ps = alloc_doubles(cells), *mcw = alloc_doubles(cells), *pth = alloc_doubles(cells);
  const int par1 = cells >= PARALLEL_MIN, par2 = cols >= PARALLEL_MIN;
#pragma omp parallel for if (par1) schedule(static)
  for (int64_t i = 0; i < cells; ++i) {
    t[i] = t0[i % 4] + 0.5 * philox_uniform(30, (uint64_t)i);
    s[i] = s0[i % 4] + 0.1 * philox_uniform(31, (uint64_t)i);
  }
  for (int64_t i = 0; i < cols; ++i) v[i] = 0.3 + 2 * philox_uniform(32, (uint64_t)i);

  for (int64_t it = 0; it < iterations; ++it) {
#pragma omp parallel for if (par1) schedule(static)
    for (int64_t i = 0; i < cells; ++i) {
      const int k = (int)(i % 4);
      const double p = dens0(s[i], t[i]) / (1 - pressure[k] / seck(s[i], t[i], pressure[k]));
      const double c_w = heat_capacity(s[i], t[i]);
      const double m = thickness[k] * p;
      ps[i] = p * s[i];
      mcw[i] = m * c_w;
      pth[i] = p * thickness[k];
    }
#pragma omp parallel for collapse(2) if (par2) schedule(static)
    for (int64_t a = 0; a < n; ++a) {
      for (int64_t b = 0; b < n; ++b) {
        const int64_t col = a * n + b, c = 4 * col;
        const double vv = v[col];
        const double thin = vv <= 0.5;
        const double h_ice = (double)(!(vv <= 0.5)) * vv + thin * (sqrt(op_maximum(vv, 0.0)) / 2.0);
        const double x_ice = (double)(!(vv <= 0.5)) * 1.0 + thin * (2 * h_ice);
        const double* tc = t + c;
        const double surface_t = tc[0];
        double q[4] = {0, 0, 0, 0}, w[4] = {0, 0, 0, 0};
        /* Heat between layers, at the surface, then between columns. */
        for (int k = 0; k < 3; ++k) q[k] = q[k] - vertical_k[k] * (tc[k] - tc[k + 1]) / half_span[k];
        for (int k = 0; k < 3; ++k) q[k + 1] = q[k + 1] + vertical_k[k] * (tc[k] - tc[k + 1]) / half_span[k];
        const double conduct = x_ice * WI_ICE_K / (h_ice + 0.1);
        q[0] = q[0] + ((1 - x_ice) * WI_AIR_K * (WI_AIR_T - surface_t) + conduct * (WI_FREEZE_T - surface_t));
        for (int k = 0; k < 4; ++k) {
          if (a < n - 1) q[k] = q[k] - WI_HORIZ_K * (tc[k] - t[c + 4 * n + k]);
          if (a > 0) q[k] = q[k] + WI_HORIZ_K * (t[c - 4 * n + k] - tc[k]);
          if (b < n - 1) q[k] = q[k] - WI_HORIZ_K * (tc[k] - tc[4 + k]);
          if (b > 0) q[k] = q[k] + WI_HORIZ_K * (tc[k - 4] - tc[k]);
        }
        const double dv_dt =
            (WI_FREEZE_T - surface_t) * (conduct + (1 - x_ice) * WI_AIR_K * 0.01) / (WI_ICE_RHO * WI_LATENT);
        /* Salt: between layers, brine or melt water, then between columns. */
        const double* pc = ps + c;
        for (int k = 0; k < 3; ++k) {
          const double k_salt = salt_k_ice[k] * x_ice + (1 - x_ice) * salt_k_open[k];
          w[k] = w[k] - 2 * k_salt * (pc[k] - pc[k + 1]) / depth_sum[k];
        }
        for (int k = 0; k < 3; ++k) {
          const double k_salt = salt_k_ice[k] * x_ice + (1 - x_ice) * salt_k_open[k];
          w[k + 1] = w[k + 1] + 2 * k_salt * (pc[k] - pc[k + 1]) / depth_sum[k];
        }
        const double growing = dv_dt > 0;
        const double w_ice = WI_ICE_RHO * 34 * dv_dt / (1 - 34 / 1000.0);
        w[0] = w[0] + (double)(!(dv_dt > 0)) * w_ice;
        w[1] = w[1] + growing * w_ice;
        for (int k = 0; k < 4; ++k) {
          if (a < n - 1) w[k] = w[k] - WI_HORIZ_S * (pc[k] - ps[c + 4 * n + k]) / depth[k];
          if (a > 0) w[k] = w[k] + WI_HORIZ_S * (ps[c - 4 * n + k] - pc[k]) / depth[k];
          if (b < n - 1) w[k] = w[k] - WI_HORIZ_S * (pc[k] - pc[4 + k]) / depth[k];
          if (b > 0) w[k] = w[k] + WI_HORIZ_S * (pc[k - 4] - pc[k]) / depth[k];
        }
        for (int k = 0; k < 4; ++k) {
          t2[c + k] = tc[k] + WI_DT * (q[k] / mcw[c + k]);
          s[c + k] = s[c + k] + WI_DT * (w[k] / pth[c + k]);
        }
        v[col] = op_maximum(vv + WI_DT * dv_dt, 0.0);
      }
    }
    double* tmp = t;
    t = t2;
    t2 = tmp;
  }
  double st = 0, ss = 0, sv = 0;
#pragma omp parallel for reduction(+ : st, ss) if (par1) schedule(static)
  for (int64_t i = 0; i < cells; ++i) {
    st += t[i];
    ss += s[i];
  }
  for (int64_t i = 0; i < cols; ++i) sv += v[i];
  free(t), free(t2), free(s), free(v), free(ps), free(mcw), free(pth);
  return st + ss + sv;
}
