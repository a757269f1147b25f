/* Hand-written C+OpenMP versions of five benchmark programs (issue 4's
 * yardstick for the cpu backend): the same computation as
 * bench/programs/<name>.cpp, as a C programmer would write it (one loop per
 * pass, no temporaries), compiled with the JIT's flags. Each returns the
 * program's checksum. */
#ifndef ARRVM_BENCH_HAND_KERNELS_H
#define ARRVM_BENCH_HAND_KERNELS_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

double hand_black_scholes(int64_t n, int64_t iterations);
double hand_heat_equation(int64_t n, int64_t iterations);
double hand_leibnitz_pi(int64_t n, int64_t iterations);
double hand_monte_carlo_pi(int64_t n, int64_t iterations);
double hand_rosenbrock(int64_t n, int64_t iterations);

#ifdef __cplusplus
}
#endif

#endif
