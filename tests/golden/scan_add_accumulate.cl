#ifndef ARRVM_HELPER_f_add_float64
#define ARRVM_HELPER_f_add_float64
static inline double f_add_float64(double a, double b) { return a + b; }
#endif
__kernel void kernel_totals(__global double* P0, __global double* P1, __global double* S, __global double* X, __global const int64_t* a, __global const uint64_t* c) {
  const int64_t n0 = a[0];
  const int64_t o0_0 = a[2], s0_0 = a[3];
  const int64_t o1_0 = a[4], s1_0 = a[5];
  const int64_t chunk = a[6], chunks = a[7];
  for (int64_t w = (int64_t)get_global_id(0); w < chunks; w += (int64_t)get_global_size(0)) {
    const int64_t start = w * chunk, end = min(start + chunk, n0);
    double acc = (double)P0[o0_0 + (start) * s0_0];
    for (int64_t k = start + 1; k < end; ++k) acc = (double)f_add_float64(acc, (double)P0[o0_0 + (k) * s0_0]);
    S[w] = acc;
  }
}
__kernel __attribute__((reqd_work_group_size(64, 1, 1))) void kernel_prefix(__global double* P0, __global double* P1, __global double* S, __global double* X, __global const int64_t* a, __global const uint64_t* c) {
  const int64_t n0 = a[0];
  const int64_t o0_0 = a[2], s0_0 = a[3];
  const int64_t o1_0 = a[4], s1_0 = a[5];
  const int64_t chunk = a[6], chunks = a[7];
  __local double sum[64];
  __local uchar has[64];
  const int lid = (int)get_local_id(0);
  const int64_t block = (chunks + 64 - 1) / 64;
  const int64_t b0 = lid * block, b1 = min(b0 + block, chunks);
  double acc = (double)0;
  uchar h = 0;
  for (int64_t j = b0; j < b1; ++j) { acc = h ? (double)f_add_float64(acc, S[j]) : S[j]; h = 1; }
  sum[lid] = acc;
  has[lid] = h;
  barrier(CLK_LOCAL_MEM_FENCE);
  if (lid == 0) {
    double run = (double)0;
    uchar rh = 0;
    for (int j = 0; j < 64; ++j) {
      const double s = sum[j];
      const uchar sh = has[j];
      sum[j] = run;
      has[j] = rh;
      if (sh) { run = rh ? (double)f_add_float64(run, s) : s; rh = 1; }
    }
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  double run = sum[lid];
  uchar rh = has[lid];
  for (int64_t j = b0; j < b1; ++j) {
    if (rh) X[j] = run;
    run = rh ? (double)f_add_float64(run, S[j]) : S[j];
    rh = 1;
  }
}
__kernel void kernel_apply(__global double* P0, __global double* P1, __global double* S, __global double* X, __global const int64_t* a, __global const uint64_t* c) {
  const int64_t n0 = a[0];
  const int64_t o0_0 = a[2], s0_0 = a[3];
  const int64_t o1_0 = a[4], s1_0 = a[5];
  const int64_t chunk = a[6], chunks = a[7];
  for (int64_t w = (int64_t)get_global_id(0); w < chunks; w += (int64_t)get_global_size(0)) {
    const int64_t start = w * chunk, end = min(start + chunk, n0);
    double acc = w == 0 ? (double)P0[o0_0 + (start) * s0_0] : (double)f_add_float64(X[w], (double)P0[o0_0 + (start) * s0_0]);
    P1[o1_0 + (start) * s1_0] = (double)acc;
    for (int64_t k = start + 1; k < end; ++k) {
      acc = (double)f_add_float64(acc, (double)P0[o0_0 + (k) * s0_0]);
      P1[o1_0 + (k) * s1_0] = (double)acc;
    }
  }
}
