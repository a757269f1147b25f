/* Hand-written C+OpenMP twins of the 15 benchmark programs (issue 4's
 * yardstick for the cpu backend): the same algorithm, sizes, iteration
 * counts and random inputs (the `random` opcode's Philox, same seeds) as
 * programs/<name>.cpp, written as a C programmer would write them from
 * the NumPy program: one pass per fused region, no temporaries, compiled with
 * the JIT's flags. Float expressions follow the Array programs operation for
 * operation, so elementwise results are bit-identical and the checksums agree
 * up to the order of summation. Each returns the program's checksum.
 *
 *   hand_kernels.c     black_scholes, heat_equation, leibnitz_pi, monte_carlo_pi, rosenbrock
 *   hand_grid.c        game_of_life, stencil27, sor, shallow_water
 *   hand_linalg.c      gauss, lu
 *   hand_nbody.c       nbody, nbody_nice
 *   hand_lbm.c         lattice_boltzmann
 *   hand_water_ice.c   water_ice
 *   hand_twins.c       the table below, the compulsory bytes, STREAM triad */
#ifndef ARRVM_BENCH_HAND_KERNELS_H
#define ARRVM_BENCH_HAND_KERNELS_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

double hand_black_scholes(int64_t n, int64_t iterations);
double hand_game_of_life(int64_t n, int64_t iterations);
double hand_heat_equation(int64_t n, int64_t iterations);
double hand_leibnitz_pi(int64_t n, int64_t iterations);
double hand_gauss(int64_t n, int64_t iterations);
double hand_lu(int64_t n, int64_t iterations);
double hand_monte_carlo_pi(int64_t n, int64_t iterations);
double hand_stencil27(int64_t n, int64_t iterations);
double hand_shallow_water(int64_t n, int64_t iterations);
double hand_rosenbrock(int64_t n, int64_t iterations);
double hand_sor(int64_t n, int64_t iterations);
double hand_nbody(int64_t n, int64_t iterations);
double hand_nbody_nice(int64_t n, int64_t iterations);
double hand_lattice_boltzmann(int64_t n, int64_t iterations);
double hand_water_ice(int64_t n, int64_t iterations);

/* One program's twin: its registry name (programs/registry.cpp), the
 * twin, and its compulsory traffic in bytes for a size: every input read
 * once and every output written once per pass the algorithm cannot avoid
 * (a time step, an elimination step), plus the set-up's writes and the final
 * checksum's reads; `traffic` says what that counts. Programs that converge
 * (heat_equation, sor) are counted at the iteration cap, which the default
 * and paper sizes reach. */
typedef struct {
  const char* program;
  double (*run)(int64_t n, int64_t iterations);
  double (*bytes)(int64_t n, int64_t iterations);
  const char* traffic;
} hand_twin;

extern const hand_twin hand_twins[];
extern const int hand_twin_count;

/* The twin of `program`, or NULL. */
const hand_twin* hand_find_twin(const char* program);

/* STREAM triad a[i] = b[i] + s*c[i] on `n` doubles per array, OpenMP static
 * schedule, first touch in parallel: the best of `repeat` timed runs after
 * one warm-up, in bytes per second, counting 24 bytes per element (STREAM's
 * convention: two reads, one write; write-allocate traffic not counted).
 * *check gets a checksum of a (so the loop cannot be optimised away). */
double hand_stream_triad(int64_t n, int repeat, double* check);

#ifdef __cplusplus
}
#endif

#endif
