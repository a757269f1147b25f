#ifndef ARRVM_HELPER_f_divide_float64
#define ARRVM_HELPER_f_divide_float64
static inline double f_divide_float64(double a, double b) { return a / b; }
#endif
#ifndef ARRVM_HELPER_f_multiply_float64
#define ARRVM_HELPER_f_multiply_float64
static inline double f_multiply_float64(double a, double b) { return a * b; }
#endif
#ifndef ARRVM_HELPER_f_subtract_float64
#define ARRVM_HELPER_f_subtract_float64
static inline double f_subtract_float64(double a, double b) { return a - b; }
#endif
__kernel void kernel(__global double* P0, __global double* P1, __global double* P2, __global double* P3, __global double* P4, __global const int64_t* a, __global const uint64_t* c) {
  const int64_t n0 = a[0];
  const int64_t n1 = a[1];
  const int64_t o0_0 = a[3];
  const int64_t s0_0 = a[4];
  const int64_t s0_1 = a[5];
  const int64_t o1_0 = a[6];
  const int64_t s1_0 = a[7];
  const int64_t s1_1 = a[8];
  const int64_t o2_0 = a[9];
  const int64_t s2_0 = a[10];
  const int64_t s2_1 = a[11];
  const int64_t o3_0 = a[12];
  const int64_t s3_0 = a[13];
  const int64_t s3_1 = a[14];
  const int64_t o4_0 = a[15];
  const int64_t s4_0 = a[16];
  const int64_t s4_1 = a[17];
  const int64_t total = n0;
  if (total == 0) return;
  const int64_t chunk = (total + (int64_t)get_global_size(0) - 1) / (int64_t)get_global_size(0);
  const int64_t first = (int64_t)get_global_id(0) * chunk;
  const int64_t end = total - first < chunk ? total : first + chunk;
  for (int64_t i0 = first; i0 < end; ++i0) {
    const int64_t o0_1 = o0_0 + i0 * s0_0;
    const int64_t o1_1 = o1_0 + i0 * s1_0;
    const int64_t o2_1 = o2_0 + i0 * s2_0;
    const int64_t o3_1 = o3_0 + i0 * s3_0;
    const int64_t o4_1 = o4_0 + i0 * s4_0;
    double t0;
    t0 = (double)f_divide_float64(P0[o0_1], P1[o1_1]);
    for (int64_t i1 = 0; i1 < n1; ++i1) {
      const int64_t o0_2 = o0_1;
      const int64_t o1_2 = o1_1;
      const int64_t o2_2 = o2_1 + i1;
      const int64_t o3_2 = o3_1 + i1;
      const int64_t o4_2 = o4_1 + i1;
      double t1;
      t1 = (double)f_multiply_float64(t0, P2[o2_2]);
      P4[o4_2] = (double)f_subtract_float64(P3[o3_2], t1);
    }
  }
}
