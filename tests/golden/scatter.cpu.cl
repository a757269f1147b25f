#ifndef ARRVM_HELPER_f_add_float64
#define ARRVM_HELPER_f_add_float64
static inline double f_add_float64(double a, double b) { return a + b; }
#endif
#ifndef ARRVM_HELPER_arrvm_index
#define ARRVM_HELPER_arrvm_index
static inline int64_t arrvm_flat(int64_t f, __global const int64_t* q, int r) {
  int64_t off = q[0];
  for (int d = r - 1; d >= 0; --d) { off += (f % q[2 + d]) * q[2 + r + d]; f /= q[2 + d]; }
  return off;
}
static inline void arrvm_bad_index(__global int64_t* e, int64_t f, int64_t x) {
  if (f < e[0]) { e[0] = f; e[1] = x; }
}
#endif
__kernel void kernel(__global double* P0, __global int64_t* P1, __global double* Q0, __global int64_t* E, __global const int64_t* a, __global const uint64_t* c) {
  const int64_t n0 = a[0];
  const int64_t o0_0 = a[2];
  const int64_t s0_0 = a[3];
  const int64_t o1_0 = a[4];
  const int64_t s1_0 = a[5];
  __global const int64_t* q0 = a + 6;
  const int64_t N0 = q0[1];
  double C0_; memcpy(&C0_, &c[0], sizeof(C0_)); const double C0 = C0_;
  const int64_t total = n0;
  if (total == 0) return;
  const int64_t chunk = (total + (int64_t)get_global_size(0) - 1) / (int64_t)get_global_size(0);
  const int64_t first = (int64_t)get_global_id(0) * chunk;
  const int64_t end = total - first < chunk ? total : first + chunk;
  for (int64_t i0 = first; i0 < end; ++i0) {
    const int64_t o0_1 = o0_0 + i0;
    const int64_t o1_1 = o1_0 + i0;
    const int64_t f = i0;
    double t0;
    t0 = (double)f_add_float64(P0[o0_1], C0);
    {
      const int64_t x = P1[o1_1];
      if ((uint64_t)x < (uint64_t)N0) Q0[q0[0] + x * q0[3]] = t0; else arrvm_bad_index(E + 2 * ((int64_t)get_global_id(0) * 1 + 0), f, x);
    }
  }
}
