/* Hand-written twins of the grid programs: game_of_life, stencil27, sor,
 * shallow_water (see hand_kernels.h). Each time step is one pass over the
 * grid (two buffers where the program reads the old grid while writing the
 * new one); float expressions follow programs/<name>.cpp operation for
 * operation, so elementwise results are bit-identical and only the order of
 * the final sums differs. */
#include <omp.h>

#include "hand_common.h"
#include "hand_kernels.h"

/* ---- Game of Life: two boards with a dead border, swapped ---- */

double hand_game_of_life(int64_t n, int64_t iterations) {
  const int64_t w = n + 2;
  double* a = zero_doubles(w * w);
  double* b = zero_doubles(w * w);
#pragma omp parallel for if (n * n >= PARALLEL_MIN) schedule(static)
  for (int64_t i = 0; i < n; ++i) {
    for (int64_t j = 0; j < n; ++j) a[(i + 1) * w + j + 1] = philox_uniform(2, (uint64_t)(i * n + j)) < 0.2;
  }
  for (int64_t it = 0; it < iterations; ++it) {
#pragma omp parallel for if (n * n >= PARALLEL_MIN) schedule(static)
    for (int64_t i = 1; i <= n; ++i) {
      const double *up = a + (i - 1) * w, *mid = a + i * w, *down = a + (i + 1) * w;
      double* out = b + i * w;
      for (int64_t j = 1; j <= n; ++j) {
        const double nb =
            up[j - 1] + up[j] + up[j + 1] + mid[j - 1] + mid[j + 1] + down[j - 1] + down[j] + down[j + 1];
        const double c = mid[j];
        const double live = nb * c;
        const int stay = (live >= 2) & (live <= 3);
        const int spawn = nb * (double)(c == 0) == 3;
        out[j] = (double)(stay | spawn);
      }
    }
    double* t = a;
    a = b;
    b = t;
  }
  double sum = 0;
#pragma omp parallel for reduction(+ : sum) if (n * n >= PARALLEL_MIN) schedule(static)
  for (int64_t i = 0; i < w * w; ++i) sum += a[i];
  free(a);
  free(b);
  return sum;
}

/* ---- 27-point stencil: Jacobi sweeps, two grids swapped ---- */

double hand_stencil27(int64_t n, int64_t iterations) {
  const int64_t nn = n * n, total = nn * n;
  double* a = zero_doubles(total);
  const int64_t mid = n / 2, half = 8 < n / 4 ? 8 : n / 4;
  for (int64_t z = mid - half; z < mid + half; ++z) {
    for (int64_t y = mid - half; y < mid + half; ++y) {
      for (int64_t x = 0; x < n; ++x) a[z * nn + y * n + x] = 100.0;
    }
  }
  double* b = alloc_doubles(total);
  memcpy(b, a, (size_t)total * sizeof(double));
  const int64_t m = n - 2;
  for (int64_t it = 0; it < iterations; ++it) {
#pragma omp parallel for collapse(2) if (m * m * m >= PARALLEL_MIN) schedule(static)
    for (int64_t z = 1; z <= m; ++z) {
      for (int64_t y = 1; y <= m; ++y) {
        for (int64_t x = 1; x <= m; ++x) {
          /* stencil[0] + stencil[1] + ... in (z, y, x) order, as the program adds them. */
          double t = 0;
          int first = 1;
          for (int64_t dz = -1; dz <= 1; ++dz) {
            for (int64_t dy = -1; dy <= 1; ++dy) {
              const double* row = a + (z + dz) * nn + (y + dy) * n + x;
              if (first) {
                t = row[-1];
                first = 0;
              } else {
                t = t + row[-1];
              }
              t = t + row[0];
              t = t + row[1];
            }
          }
          b[z * nn + y * n + x] = t / 27.0;
        }
      }
    }
    double* tmp = a;
    a = b;
    b = tmp;
  }
  double sum = 0;
#pragma omp parallel for reduction(+ : sum) if (total >= PARALLEL_MIN) schedule(static)
  for (int64_t i = 0; i < total; ++i) sum += a[i];
  free(a);
  free(b);
  return sum;
}

/* ---- SOR: red-black Gauss-Seidel on four (n+2)/2 squares ----
 * Four passes per sweep, as the four statements depend on each other's
 * neighbours (b1 reads r0 of the row above); the change is summed in the last
 * pass, where all four are final. */

double hand_sor(int64_t n, int64_t iterations) {
  const int64_t h = (n + 2) / 2, m = h - 1;
  double *r0 = zero_doubles(h * h), *r1 = zero_doubles(h * h), *b0 = zero_doubles(h * h),
         *b1 = zero_doubles(h * h);
  for (int64_t j = 0; j < h; ++j) {
    r0[j] = 40.0;
    b0[j] = 40.0;
    r1[(h - 1) * h + j] = -273.15;
    b1[(h - 1) * h + j] = -273.15;
  }
  for (int64_t i = 0; i < h; ++i) {
    r0[i * h] = -273.15;
    b1[i * h] = -273.15;
    b0[i * h + h - 1] = -273.15;
    r1[i * h + h - 1] = -273.15;
  }
#define AT(a, i, j) a[(i)*h + (j)]
  const double epsilon = 0.005;
  double delta = epsilon + 1;
  int64_t iteration = 0;
  const int par = m * m >= PARALLEL_MIN;
  while (delta > epsilon) {
    ++iteration;
#pragma omp parallel for if (par) schedule(static)
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < m; ++j)
        AT(r1, i, j) =
            (AT(r1, i, j) + AT(b0, i, j) + AT(b0, i + 1, j) + AT(b1, i, j) + AT(b1, i, j + 1)) * 0.2;
#pragma omp parallel for if (par) schedule(static)
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < m; ++j)
        AT(r0, i + 1, j + 1) = (AT(r0, i + 1, j + 1) + AT(b1, i, j + 1) + AT(b1, i + 1, j + 1) +
                                AT(b0, i + 1, j) + AT(b0, i + 1, j + 1)) *
                               0.2;
#pragma omp parallel for if (par) schedule(static)
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < m; ++j)
        AT(b1, i, j + 1) =
            (AT(b1, i, j + 1) + AT(r0, i, j + 1) + AT(r0, i + 1, j + 1) + AT(r1, i, j) + AT(r1, i, j + 1)) *
            0.2;
    double d = 0;
#pragma omp parallel for reduction(+ : d) if (par) schedule(static)
    for (int64_t i = 0; i < m; ++i) {
      for (int64_t j = 0; j < m; ++j) {
        const double nb0 =
            (AT(b0, i + 1, j) + AT(r1, i, j) + AT(r1, i + 1, j) + AT(r0, i + 1, j) + AT(r0, i + 1, j + 1)) *
            0.2;
        AT(b0, i + 1, j) = nb0;
        const double vr0 = AT(r0, i + 1, j + 1), vr1 = AT(r1, i, j), vb1 = AT(b1, i, j + 1);
        d += fabs(vr0 - nb0) + fabs(vr1 - vb1) + fabs(vr0 - vb1) + fabs(nb0 - vr1);
      }
    }
    delta = d;
    if (iteration >= iterations) break;
  }
  double sum = 0;
#pragma omp parallel for reduction(+ : sum) if (h * h >= PARALLEL_MIN) schedule(static)
  for (int64_t i = 0; i < h * h; ++i) sum += r0[i] + r1[i] + b0[i] + b1[i];
#undef AT
  free(r0);
  free(r1);
  free(b0);
  free(b1);
  return sum + delta;
}

/* ---- Shallow water: Lax-Wendroff; a step is one pass over H, U, V into a
 * second set of grids, after the reflecting edges; the half-step values live
 * in three rows of buffers per thread, never in n x n temporaries. ---- */

#define SW_G 9.80665

/* The first half step in x from rows r+1 (1) and r (0) of one column. */
static inline void sw_half_x(double h1, double h0, double u1, double u0, double v1, double v0, double cx,
                             double* hx, double* ux, double* vx) {
  *hx = (h1 + h0) / 2 - cx * (u1 - u0);
  *ux = (u1 + u0) / 2 - cx * ((u1 * u1 / h1 + SW_G / 2 * (h1 * h1)) - (u0 * u0 / h0 + SW_G / 2 * (h0 * h0)));
  *vx = (v1 + v0) / 2 - cx * ((u1 * v1 / h1) - (u0 * v0 / h0));
}

/* The first half step in y from columns c+1 (r) and c (l) of one row. */
static inline void sw_half_y(double hr, double hl, double ur, double ul, double vr, double vl, double cy,
                             double* hy, double* uy, double* vy) {
  *hy = (hr + hl) / 2 - cy * (vr - vl);
  *uy = (ur + ul) / 2 - cy * ((vr * ur / hr) - (vl * ul / hl));
  *vy = (vr + vl) / 2 - cy * ((vr * vr / hr + SW_G / 2 * (hr * hr)) - (vl * vl / hl + SW_G / 2 * (hl * hl)));
}

double hand_shallow_water(int64_t n, int64_t iterations) {
  const int64_t nn = n * n;
  double *h = alloc_doubles(nn), *u = zero_doubles(nn), *v = zero_doubles(nn);
  double *h2 = alloc_doubles(nn), *u2 = zero_doubles(nn), *v2 = zero_doubles(nn);
  for (int64_t i = 0; i < nn; ++i) h[i] = 1.0;
  double drop[64];
  for (int i = 0; i < 8; ++i) {
    for (int j = 0; j < 8; ++j) {
      const double x = -1.0 + j * (2.0 / 7), y = -1.0 + i * (2.0 / 7);
      drop[i * 8 + j] = 8.0 * exp(-5.0 * (x * x + y * y));
    }
  }
  const int64_t at[2] = {n / 4, n / 2};
  for (int d = 0; d < 2; ++d) {
    for (int i = 0; i < 8; ++i)
      for (int j = 0; j < 8; ++j) h[(at[d] + i) * n + at[d] + j] += drop[i * 8 + j];
  }
  const double dt = 0.02, dx = 1.0, dy = 1.0, cx = dt / (2 * dx), cy = dt / (2 * dy);
  for (int64_t it = 0; it < iterations; ++it) {
    /* Reflecting edges, in the program's order (columns, then rows). */
    for (int64_t i = 0; i < n; ++i) {
      h[i * n] = h[i * n + 1];
      u[i * n] = u[i * n + 1];
      v[i * n] = -v[i * n + 1];
      h[i * n + n - 1] = h[i * n + n - 2];
      u[i * n + n - 1] = u[i * n + n - 2];
      v[i * n + n - 1] = -v[i * n + n - 2];
    }
    for (int64_t j = 0; j < n; ++j) {
      h[j] = h[n + j];
      u[j] = -u[n + j];
      v[j] = v[n + j];
      h[(n - 1) * n + j] = h[(n - 2) * n + j];
      u[(n - 1) * n + j] = -u[(n - 2) * n + j];
      v[(n - 1) * n + j] = v[(n - 2) * n + j];
    }
    /* The new grids keep the edges just set (the checksum sums them). */
    for (int64_t j = 0; j < n; ++j) {
      const int64_t e[2] = {j, (n - 1) * n + j};
      for (int k = 0; k < 2; ++k) {
        h2[e[k]] = h[e[k]];
        u2[e[k]] = u[e[k]];
        v2[e[k]] = v[e[k]];
      }
    }
    for (int64_t i = 0; i < n; ++i) {
      const int64_t e[2] = {i * n, i * n + n - 1};
      for (int k = 0; k < 2; ++k) {
        h2[e[k]] = h[e[k]];
        u2[e[k]] = u[e[k]];
        v2[e[k]] = v[e[k]];
      }
    }
#pragma omp parallel if ((n - 2) * (n - 2) >= PARALLEL_MIN)
    {
      /* This thread's rows lo..hi-1 of the interior 1..n-2. Each half step is
       * computed once: the x half steps of the row pairs (i-1, i) and (i, i+1)
       * roll through two row buffers, the y half steps of row i fill a third. */
      const int64_t rows = n - 2, nt = omp_get_num_threads(), me = omp_get_thread_num();
      const int64_t lo = 1 + rows * me / nt, hi = 1 + rows * (me + 1) / nt;
      double* buf = alloc_doubles(9 * n);
      double *xh0 = buf, *xu0 = buf + n, *xv0 = buf + 2 * n, *xh1 = buf + 3 * n, *xu1 = buf + 4 * n,
             *xv1 = buf + 5 * n, *yh = buf + 6 * n, *yu = buf + 7 * n, *yv = buf + 8 * n;
      if (lo < hi) {
        for (int64_t j = 1; j < n - 1; ++j) {
          const int64_t c = (lo - 1) * n + j, dn = c + n;
          sw_half_x(h[dn], h[c], u[dn], u[c], v[dn], v[c], cx, &xh0[j], &xu0[j], &xv0[j]);
        }
      }
      for (int64_t i = lo; i < hi; ++i) {
        for (int64_t j = 1; j < n - 1; ++j) {
          const int64_t c = i * n + j, dn = c + n;
          sw_half_x(h[dn], h[c], u[dn], u[c], v[dn], v[c], cx, &xh1[j], &xu1[j], &xv1[j]);
        }
        for (int64_t j = 0; j < n - 1; ++j) {
          const int64_t c = i * n + j;
          sw_half_y(h[c + 1], h[c], u[c + 1], u[c], v[c + 1], v[c], cy, &yh[j], &yu[j], &yv[j]);
        }
        for (int64_t j = 1; j < n - 1; ++j) {
          const int64_t c = i * n + j;
          const double hx1 = xh1[j], ux1 = xu1[j], vx1 = xv1[j], hx0 = xh0[j], ux0 = xu0[j], vx0 = xv0[j];
          const double hy1 = yh[j], uy1 = yu[j], vy1 = yv[j], hy0 = yh[j - 1], uy0 = yu[j - 1],
                       vy0 = yv[j - 1];
          h2[c] = h[c] - ((dt / dx) * (ux1 - ux0) + (dt / dy) * (vy1 - vy0));
          u2[c] = u[c] - ((dt / dx) * ((ux1 * ux1 / hx1 + SW_G / 2 * (hx1 * hx1)) -
                                       (ux0 * ux0 / hx0 + SW_G / 2 * (hx0 * hx0))) +
                          (dt / dy) * ((vy1 * uy1 / hy1) - (vy0 * uy0 / hy0)));
          v2[c] = v[c] - ((dt / dx) * ((ux1 * vx1 / hx1) - (ux0 * vx0 / hx0)) +
                          (dt / dy) * ((vy1 * vy1 / hy1 + SW_G / 2 * (hy1 * hy1)) -
                                       (vy0 * vy0 / hy0 + SW_G / 2 * (hy0 * hy0))));
        }
        double* t;
        t = xh0, xh0 = xh1, xh1 = t;
        t = xu0, xu0 = xu1, xu1 = t;
        t = xv0, xv0 = xv1, xv1 = t;
      }
      free(buf);
    }
    double* t;
    t = h, h = h2, h2 = t;
    t = u, u = u2, u2 = t;
    t = v, v = v2, v2 = t;
  }
  double sum = 0;
#pragma omp parallel for reduction(+ : sum) if (nn >= PARALLEL_MIN) schedule(static)
  for (int64_t i = 0; i < nn; ++i) sum += h[i];
  free(h), free(u), free(v), free(h2), free(u2), free(v2);
  return sum;
}
