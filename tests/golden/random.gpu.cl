#ifndef ARRVM_HELPER_arrvm_philox
#define ARRVM_HELPER_arrvm_philox
static inline void arrvm_philox(uint32_t c[4], uint64_t seed) {
  uint32_t k0 = (uint32_t)seed, k1 = (uint32_t)(seed >> 32);
  for (int r = 0; r < 10; ++r) {
    if (r > 0) { k0 += 0x9E3779B9u; k1 += 0xBB67AE85u; }
    uint64_t p0 = (uint64_t)0xD2511F53u * c[0];
    uint64_t p1 = (uint64_t)0xCD9E8D57u * c[2];
    uint32_t n0 = (uint32_t)(p1 >> 32) ^ c[1] ^ k0, n1 = (uint32_t)p1;
    uint32_t n2 = (uint32_t)(p0 >> 32) ^ c[3] ^ k1, n3 = (uint32_t)p0;
    c[0] = n0; c[1] = n1; c[2] = n2; c[3] = n3;
  }
}
#endif
#ifndef ARRVM_HELPER_random_float64
#define ARRVM_HELPER_random_float64
static inline double random_float64(uint64_t seed, int64_t i) { const uint64_t b = (uint64_t)i >> 1; uint32_t r[4] = {(uint32_t)b, (uint32_t)(b >> 32), 0, 0}; arrvm_philox(r, seed); if (i & 1) { r[0] = r[2]; r[1] = r[3]; } uint64_t r64 = (uint64_t)r[0] | ((uint64_t)r[1] << 32); (void)r64; return (double)(int64_t)(r64 >> 11) * 0x1.0p-53; }
#endif
#ifndef ARRVM_HELPER_f_multiply_float64
#define ARRVM_HELPER_f_multiply_float64
static inline double f_multiply_float64(double a, double b) { return a * b; }
#endif
__kernel void kernel(__global double* P0, __global const int64_t* a, __global const uint64_t* c) {
  const int64_t n0 = a[0];
  const int64_t n1 = a[1];
  const int64_t o0_0 = a[3];
  const int64_t s0_0 = a[4];
  const int64_t s0_1 = a[5];
  uint64_t C0_; memcpy(&C0_, &c[0], sizeof(C0_)); const uint64_t C0 = C0_;
  double C1_; memcpy(&C1_, &c[1], sizeof(C1_)); const double C1 = C1_;
  const int64_t total = n0 * n1;
  if (total == 0) return;
  int64_t i0, i1;
  {
    int64_t rem = (int64_t)get_global_id(0);
    i1 = rem % n1; rem /= n1;
    i0 = rem;
  }
  int64_t d0, d1;
  {
    int64_t rem = (int64_t)get_global_size(0);
    d1 = rem % n1; rem /= n1;
    d0 = rem;
  }
  for (int64_t w = (int64_t)get_global_id(0); w < total; w += (int64_t)get_global_size(0), i1 += d1, i0 += d0 + (i1 >= n1 ? (i1 -= n1, 1) : 0)) {
    const int64_t o0_1 = o0_0 + i0 * s0_0;
    const int64_t o0_2 = o0_1 + i1;
    const int64_t f = (i0) * n1 + i1;
    double t0;
    t0 = (double)random_float64(C0, f);
    P0[o0_2] = (double)f_multiply_float64(t0, C1);
  }
}
