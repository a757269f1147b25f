/* What the hand-written twins share: the `random` opcode's Philox mapping,
 * aligned allocation, the cpu backend's parallel threshold. Header-only
 * (static inline), C99, compiled with the JIT's flags. */
#ifndef ARRVM_BENCH_HAND_COMMON_H
#define ARRVM_BENCH_HAND_COMMON_H

#ifndef _DEFAULT_SOURCE
#define _DEFAULT_SOURCE /* M_PI, posix_memalign */
#endif
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Below this many elements a loop runs on one thread: the cpu backend's
 * threshold (kParallelThreshold), so that both pay the same for OpenMP. */
#define PARALLEL_MIN 32768

/* Philox-4x32-10 and the float64 mapping of the `random` opcode, as
 * backends/philox.hpp defines them: block b gives elements 2b (words 0, 1)
 * and 2b + 1 (words 2, 3) of the row-major flat index. */
static inline void philox_uniform_pair(uint64_t seed, uint64_t b, double out[2]) {
  uint32_t c0 = (uint32_t)b, c1 = (uint32_t)(b >> 32), c2 = 0, c3 = 0;
  uint32_t k0 = (uint32_t)seed, k1 = (uint32_t)(seed >> 32);
  for (int r = 0; r < 10; ++r) {
    if (r > 0) {
      k0 += 0x9E3779B9u;
      k1 += 0xBB67AE85u;
    }
    const uint64_t p0 = (uint64_t)0xD2511F53u * c0, p1 = (uint64_t)0xCD9E8D57u * c2;
    const uint32_t n0 = (uint32_t)(p1 >> 32) ^ c1 ^ k0, n1 = (uint32_t)p1;
    const uint32_t n2 = (uint32_t)(p0 >> 32) ^ c3 ^ k1, n3 = (uint32_t)p0;
    c0 = n0;
    c1 = n1;
    c2 = n2;
    c3 = n3;
  }
  out[0] = (double)((((uint64_t)c0 | ((uint64_t)c1 << 32))) >> 11) * 0x1.0p-53;
  out[1] = (double)((((uint64_t)c2 | ((uint64_t)c3 << 32))) >> 11) * 0x1.0p-53;
}

/* Element `i` alone (half of its block's work is thrown away): for inputs. */
static inline double philox_uniform(uint64_t seed, uint64_t i) {
  double pair[2];
  philox_uniform_pair(seed, i >> 1, pair);
  return pair[i & 1];
}

static inline double* alloc_doubles(int64_t n) {
  double* p = NULL;
  if (posix_memalign((void**)&p, 64, (size_t)(n > 0 ? n : 1) * sizeof(double)) != 0) abort();
  return p;
}

static inline double* zero_doubles(int64_t n) {
  double* p = alloc_doubles(n);
  memset(p, 0, (size_t)(n > 0 ? n : 1) * sizeof(double));
  return p;
}

/* The `maximum` and `sign` opcodes on float64 (backends/c_emitter.cpp). */
static inline double op_maximum(double a, double b) {
  return (a >= b || isnan(a)) ? a : b;
}
static inline double op_sign(double a) {
  if (isnan(a)) return a;
  return a > 0 ? 1.0 : (a < 0 ? -1.0 : 0.0);
}

#endif
