/* Hand-written twin of lattice_boltzmann (D3Q19 BGK, see hand_kernels.h):
 * one pass per time step that pulls each cell's 19 densities from its
 * neighbours (streaming), takes the bounce-back at the wall, the moments and
 * the equilibrium, and writes the relaxed densities into a second lattice.
 * F is stored as the program stores it, [q][x][y][z]. */
#include "hand_common.h"
#include "hand_kernels.h"

static const int kVelocity[19][3] = {
    {0, 0, 0},   {0, 0, 1},  {0, 0, -1}, {0, 1, 0},   {0, -1, 0},  {1, 0, 0},  {-1, 0, 0},
    {1, 1, 0},   {1, -1, 0}, {-1, 1, 0}, {-1, -1, 0}, {1, 0, 1},   {1, 0, -1}, {-1, 0, 1},
    {-1, 0, -1}, {0, 1, 1},  {0, 1, -1}, {0, -1, 1},  {0, -1, -1},
};
static const int kOpposite[19] = {0, 2, 1, 4, 3, 6, 5, 10, 9, 8, 7, 14, 13, 12, 11, 18, 17, 16, 15};

static inline int64_t wrap(int64_t i, int64_t n) {
  return i < 0 ? i + n : (i >= n ? i - n : i);
}

static inline double equilibrium(double t_density, double eu, double t1) {
  return t_density * (1.0 + 3.0 * eu + 9.0 / 2.0 * (eu * eu) - t1);
}

double hand_lattice_boltzmann(int64_t n, int64_t iterations) {
  const int64_t cells = n * n * n;
  const double omega = 1.0, delta_u = 1e-7, t1 = 1 / 3.0, t2 = 1 / 18.0, t3 = 1 / 36.0;
  double* f = alloc_doubles(19 * cells);
  double* g = alloc_doubles(19 * cells);
  for (int64_t i = 0; i < 19 * cells; ++i) f[i] = 1.0 / 19.0;
  double speed = 0; /* sum(|UX| + |UY| + |UZ|) of the last step */
  for (int64_t it = 0; it < iterations; ++it) {
    double sp = 0;
#pragma omp parallel for collapse(2) reduction(+ : sp) if (cells >= PARALLEL_MIN) schedule(static)
    for (int64_t x = 0; x < n; ++x) {
      for (int64_t y = 0; y < n; ++y) {
        /* The scenery: a wall at y = 0 (bound = 1 there, bound_i = 0). */
        const double bound = y == 0 ? 1.0 : 0.0, bound_i = y == 0 ? 0.0 : 1.0;
        for (int64_t z = 0; z < n; ++z) {
          const int64_t c = (x * n + y) * n + z;
          double fs[19], bb[19], feq[19];
          fs[0] = f[c];
          for (int q = 1; q < 19; ++q) {
            const int64_t sx = wrap(x - kVelocity[q][0], n), sy = wrap(y - kVelocity[q][1], n),
                          sz = wrap(z - kVelocity[q][2], n);
            fs[q] = f[q * cells + (sx * n + sy) * n + sz];
          }
          bb[0] = 0.0;
          for (int q = 1; q < 19; ++q) bb[kOpposite[q]] = 0.0 + fs[q] * bound;
          double density = fs[0];
          for (int q = 1; q < 19; ++q) density = density + fs[q];
          double ux = fs[5] + fs[7] + fs[8] + fs[11] + fs[12] - fs[6] - fs[9] - fs[10] - fs[13] - fs[14];
          double uy = fs[3] + fs[7] + fs[9] + fs[15] + fs[16] - fs[4] - fs[8] - fs[10] - fs[17] - fs[18];
          double uz = fs[1] + fs[11] + fs[13] + fs[15] + fs[17] - fs[2] - fs[12] - fs[14] - fs[16] - fs[18];
          ux /= density;
          uy /= density;
          uz /= density;
          if (x == 0) ux += delta_u; /* inlet pressure */
          ux *= bound_i;
          uy *= bound_i;
          uz *= bound_i;
          density *= bound_i;
          sp += fabs(ux) + fabs(uy) + fabs(uz);
          const double u_squ = ux * ux + uy * uy + uz * uz;
          feq[0] = (t1 * density) * (1.0 - 3.0 * u_squ / 2.0);
          double t_1 = 3.0 / 2.0 * u_squ, t_density = t2 * density;
          feq[1] = equilibrium(t_density, uz, t_1);
          feq[2] = equilibrium(t_density, -uz, t_1);
          feq[3] = equilibrium(t_density, uy, t_1);
          feq[4] = equilibrium(t_density, -uy, t_1);
          feq[5] = equilibrium(t_density, ux, t_1);
          feq[6] = equilibrium(t_density, -ux, t_1);
          t_1 = 3.0 * u_squ / 2.0;
          t_density = t3 * density;
          const double comp[3] = {ux, uy, uz};
          for (int q = 7; q < 19; ++q) {
            double eu = 0;
            int first = 1;
            for (int k = 0; k < 3; ++k) {
              if (kVelocity[q][k] == 0) continue;
              const double term = kVelocity[q][k] > 0 ? comp[k] : -comp[k];
              eu = first ? term : eu + term;
              first = 0;
            }
            feq[q] = equilibrium(t_density, eu, t_1);
          }
          g[c] = fs[0] * (1.0 - omega) + omega * feq[0];
          for (int q = 1; q < 19; ++q)
            g[q * cells + c] = (fs[q] * (1.0 - omega) + omega * feq[q]) * bound_i + bb[q];
        }
      }
    }
    speed = sp;
    double* t = f;
    f = g;
    g = t;
  }
  double energy = 0;
#pragma omp parallel for reduction(+ : energy) if (19 * cells >= PARALLEL_MIN) schedule(static)
  for (int64_t i = 0; i < 19 * cells; ++i) energy += f[i] * f[i];
  free(f);
  free(g);
  return iterations == 0 ? energy : energy + speed;
}
