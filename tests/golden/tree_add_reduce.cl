#ifndef ARRVM_HELPER_f_add_float64
#define ARRVM_HELPER_f_add_float64
static inline double f_add_float64(double a, double b) { return a + b; }
#endif
__kernel __attribute__((reqd_work_group_size(64, 1, 1)))
void arrvm_reduce_add_reduce_float32_float64_float32(__global float* P0, __global float* P1, __global const int64_t* a, __global const uint64_t* c) {
  const int64_t len = a[0], oi = a[1], si = a[2], oo = a[3], so = a[4];
  __local double part[64];
  __local uchar has[64];
  const int lid = (int)get_local_id(0);
  const int64_t step = (int64_t)get_global_size(0);
  double acc = (double)0;
  uchar h = 0;
  for (int64_t k = (int64_t)get_global_id(0); k < len; k += step) {
    const double x = (double)P1[oi + k * si];
    acc = h ? (double)f_add_float64(acc, x) : x;
    h = 1;
  }
  part[lid] = acc;
  has[lid] = h;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int s = 64 / 2; s > 0; s >>= 1) {
    if (lid < s && has[lid + s]) {
      part[lid] = has[lid] ? (double)f_add_float64(part[lid], part[lid + s]) : part[lid + s];
      has[lid] = 1;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (lid == 0) P0[oo + (int64_t)get_group_id(0) * so] = (float)(has[0] ? part[0] : (double)0);
}
