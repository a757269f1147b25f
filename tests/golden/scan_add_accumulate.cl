#ifndef ARRVM_HELPER_f_add_float64
#define ARRVM_HELPER_f_add_float64
static inline double f_add_float64(double a, double b) { return a + b; }
#endif
__kernel void arrvm_scan_totals_add_accumulate_float64(__global double* P0, __global double* P1, __global const int64_t* a, __global const uint64_t* c) {
  const int64_t len = a[0], oi = a[1], si = a[2], oo = a[3], so = a[4], chunk = a[5], chunks = a[6];
  for (int64_t w = (int64_t)get_global_id(0); w < chunks; w += (int64_t)get_global_size(0)) {
  const int64_t start = w * chunk, end = min(start + chunk, len);
  double acc = P1[oi + start * si];
  for (int64_t k = start + 1; k < end; ++k) acc = (double)f_add_float64(acc, P1[oi + k * si]);
  P0[w] = acc;
  }
}
__kernel __attribute__((reqd_work_group_size(64, 1, 1)))
void arrvm_scan_prefix_add_accumulate_float64(__global double* P0, __global double* P1, __global const int64_t* a, __global const uint64_t* c) {
  const int64_t len = a[0], oi = a[1], si = a[2], oo = a[3], so = a[4], chunk = a[5], chunks = a[6];
  __local double sum[64];
  __local uchar has[64];
  const int lid = (int)get_local_id(0);
  const int64_t block = (chunks + 64 - 1) / 64;
  const int64_t b0 = lid * block, b1 = min(b0 + block, chunks);
  double acc = (double)0;
  uchar h = 0;
  for (int64_t j = b0; j < b1; ++j) { acc = h ? (double)f_add_float64(acc, P1[j]) : P1[j]; h = 1; }
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
    if (rh) P0[j] = run;
    run = rh ? (double)f_add_float64(run, P1[j]) : P1[j];
    rh = 1;
  }
}
__kernel void arrvm_scan_apply_add_accumulate_float64(__global double* P0, __global double* P1, __global double* P2, __global const int64_t* a, __global const uint64_t* c) {
  const int64_t len = a[0], oi = a[1], si = a[2], oo = a[3], so = a[4], chunk = a[5], chunks = a[6];
  for (int64_t w = (int64_t)get_global_id(0); w < chunks; w += (int64_t)get_global_size(0)) {
  const int64_t start = w * chunk, end = min(start + chunk, len);
  double acc = w == 0 ? P1[oi + start * si] : (double)f_add_float64(P2[w], P1[oi + start * si]);
  P0[oo + start * so] = acc;
  for (int64_t k = start + 1; k < end; ++k) {
    acc = (double)f_add_float64(acc, P1[oi + k * si]);
    P0[oo + k * so] = acc;
  }
  }
}
