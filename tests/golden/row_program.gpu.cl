#ifndef ARRVM_HELPER_f_divide_float64
#define ARRVM_HELPER_f_divide_float64
static inline double f_divide_float64(double a, double b) { return a / b; }
#endif
#ifndef ARRVM_HELPER_f_add_float64
#define ARRVM_HELPER_f_add_float64
static inline double f_add_float64(double a, double b) { return a + b; }
#endif
__kernel void kernel(__global double* P0, __global double* P1, __global const int64_t* a, __global const uint64_t* c) {
  const int64_t n0 = a[0];
  const int64_t n1 = a[1];
  const int64_t o0_0 = a[3];
  const int64_t s0_0 = a[4];
  const int64_t s0_1 = a[5];
  const int64_t o1_0 = a[6];
  const int64_t s1_0 = a[7];
  const int64_t s1_1 = a[8];
  const int64_t total = n0;
  if (total == 0) return;
  int64_t i0;
  {
    int64_t rem = (int64_t)get_global_id(0);
    i0 = rem;
  }
  int64_t d0;
  {
    int64_t rem = (int64_t)get_global_size(0);
    d0 = rem;
  }
  for (int64_t w = (int64_t)get_global_id(0); w < total; w += (int64_t)get_global_size(0), i0 += d0) {
    const int64_t o0_1 = o0_0 + i0 * s0_0;
    const int64_t o1_1 = o1_0 + i0 * s1_0;
    double t0;
    double acc0 = -0.0;
    for (int64_t i1 = 0; i1 < n1; ++i1) {
      const int64_t o0_2 = o0_1 + i1;
      const int64_t o1_2 = o1_1 + i1;
      acc0 = (double)f_add_float64(acc0, P0[o0_2]);
    }
    if (n1 == 0) acc0 = 0;
    t0 = acc0;
    for (int64_t i1 = 0; i1 < n1; ++i1) {
      const int64_t o0_2 = o0_1 + i1;
      const int64_t o1_2 = o1_1 + i1;
      P1[o1_2] = (double)f_divide_float64(P0[o0_2], t0);
    }
  }
}
