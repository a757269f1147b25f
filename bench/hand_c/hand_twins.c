/* The table of hand-written twins, their compulsory traffic, and the STREAM
 * triad (see hand_kernels.h). 8 bytes a float64; "it" is the iteration count. */
#include <omp.h>

#include "hand_common.h"
#include "hand_kernels.h"

#define D 8.0 /* bytes per float64 */

static double sq(int64_t n) {
  return (double)n * (double)n;
}
static double cube(int64_t n) {
  return (double)n * (double)n * (double)n;
}

static double bytes_black_scholes(int64_t n, int64_t it) {
  return D * n * (1 + it);
}
static double bytes_game_of_life(int64_t n, int64_t it) {
  return D * sq(n) * (2 + 2 * it);
}
static double bytes_heat_equation(int64_t n, int64_t it) {
  return D * sq(n + 2) + D * sq(n) * (2 * it + 1);
}
static double bytes_none(int64_t n, int64_t it) {
  return 0;
}
static double bytes_rosenbrock(int64_t n, int64_t it) {
  return D * n * (1 + it);
}
static double bytes_gauss(int64_t n, int64_t it) {
  double b = D * sq(n) * 3; /* set-up write; final divide: read and write */
  for (int64_t k = 0; k < it && k < n - 1; ++k) b += D * (2.0 * (n - k - 1) * (n - k) + (n - k));
  return b;
}
static double bytes_lu(int64_t n, int64_t it) {
  double b = D * sq(n) * 4; /* set-up writes L and U; the sums read both */
  for (int64_t k = 0; k < it && k < n - 1; ++k)
    b += D * (2.0 * (n - k - 1) * (n - k) + (n - k) + (n - k - 1));
  return b;
}
static double bytes_stencil27(int64_t n, int64_t it) {
  return D * (2 * cube(n) + it * (cube(n) + cube(n - 2)));
}
static double bytes_shallow_water(int64_t n, int64_t it) {
  return D * sq(n) * (3 + 6 * it + 1);
}
static double bytes_sor(int64_t n, int64_t it) {
  const int64_t h = (n + 2) / 2;
  return D * (8 * sq(h) + it * 4 * (sq(h) + sq(h - 1)));
}
static double bytes_nbody(int64_t n, int64_t it) {
  return D * n * (7 + 13 * it + 3);
}
static double bytes_nbody_nice(int64_t n, int64_t it) {
  return D * (n + 40) * (7 + 13 * it + 3);
}
static double bytes_lattice_boltzmann(int64_t n, int64_t it) {
  return D * 19 * cube(n) * (2 + 2 * it);
}
static double bytes_water_ice(int64_t n, int64_t it) {
  return D * 9 * sq(n) * (2 + 2 * it);
}

const hand_twin hand_twins[] = {
    {"black_scholes", hand_black_scholes, bytes_black_scholes, "write S; per step read S"},
    {"game_of_life", hand_game_of_life, bytes_game_of_life,
     "write board; per generation read + write board; sum reads it"},
    {"heat_equation", hand_heat_equation, bytes_heat_equation,
     "write grid; per sweep read + write interior; sum reads it"},
    {"leibnitz_pi", hand_leibnitz_pi, bytes_none, "none (computed from the index)"},
    {"gauss", hand_gauss, bytes_gauss,
     "write A; step k read + write A[k+1:, k:], read row k; divide reads + writes A"},
    {"lu", hand_lu, bytes_lu, "write L, U; step k as gauss plus write L[k+1:, k]; sums read L, U"},
    {"monte_carlo_pi", hand_monte_carlo_pi, bytes_none, "none (random numbers from the index)"},
    {"stencil27", hand_stencil27, bytes_stencil27,
     "write grid; per sweep read grid, write interior; sum reads it"},
    {"shallow_water", hand_shallow_water, bytes_shallow_water,
     "write H, U, V; per step read + write H, U, V; sum reads H"},
    {"rosenbrock", hand_rosenbrock, bytes_rosenbrock, "write x; per trial read x"},
    {"sor", hand_sor, bytes_sor,
     "write 4 squares; per sweep read them, write their updated parts; sum reads them"},
    {"nbody", hand_nbody, bytes_nbody,
     "write m, x, v; per step read m, x, v, write x, v (O(n), the n^2 pairs are compute)"},
    {"nbody_nice", hand_nbody_nice, bytes_nbody_nice, "as nbody over the 40 planets and n asteroids"},
    {"lattice_boltzmann", hand_lattice_boltzmann, bytes_lattice_boltzmann,
     "write F (19 n^3); per step read + write F; sum reads F"},
    {"water_ice", hand_water_ice, bytes_water_ice,
     "write T, S (4 n^2 each), V; per step read + write T, S, V; sums read them"},
};

const int hand_twin_count = (int)(sizeof hand_twins / sizeof hand_twins[0]);

const hand_twin* hand_find_twin(const char* program) {
  for (int i = 0; i < hand_twin_count; ++i) {
    if (strcmp(hand_twins[i].program, program) == 0) return &hand_twins[i];
  }
  return NULL;
}

double hand_stream_triad(int64_t n, int repeat, double* check) {
  double *a = alloc_doubles(n), *b = alloc_doubles(n), *c = alloc_doubles(n);
#pragma omp parallel for schedule(static)
  for (int64_t i = 0; i < n; ++i) {
    a[i] = 0.0;
    b[i] = 1.0;
    c[i] = 2.0;
  }
  const double s = 3.0;
  double best = 1e300;
  for (int r = -1; r < repeat; ++r) {
    const double start = omp_get_wtime();
#pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < n; ++i) a[i] = b[i] + s * c[i];
    const double t = omp_get_wtime() - start;
    if (r >= 0 && t < best) best = t;
  }
  double sum = 0;
#pragma omp parallel for reduction(+ : sum) schedule(static)
  for (int64_t i = 0; i < n; ++i) sum += a[i];
  *check = sum;
  free(a);
  free(b);
  free(c);
  return 24.0 * (double)n / best;
}
