#ifndef ARRVM_HELPER_f_maximum_int32
#define ARRVM_HELPER_f_maximum_int32
static inline int32_t f_maximum_int32(int32_t a, int32_t b) { return a >= b ? a : b; }
#endif
__kernel __attribute__((reqd_work_group_size(64, 1, 1)))
void arrvm_reduce_maximum_reduce_int32(__global int32_t* P0, __global int32_t* P1, __global const int64_t* a, __global const uint64_t* c) {
  const int64_t len = a[0], oi = a[1], si = a[2], oo = a[3], so = a[4];
  __local int32_t part[64];
  __local uchar has[64];
  const int lid = (int)get_local_id(0);
  const int64_t step = (int64_t)get_global_size(0);
  int32_t acc = (int32_t)0;
  uchar h = 0;
  for (int64_t k = (int64_t)get_global_id(0); k < len; k += step) {
    const int32_t x = (int32_t)P1[oi + k * si];
    acc = h ? (int32_t)f_maximum_int32(acc, x) : x;
    h = 1;
  }
  part[lid] = acc;
  has[lid] = h;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int s = 64 / 2; s > 0; s >>= 1) {
    if (lid < s && has[lid + s]) {
      part[lid] = has[lid] ? (int32_t)f_maximum_int32(part[lid], part[lid + s]) : part[lid + s];
      has[lid] = 1;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (lid == 0) P0[oo + (int64_t)get_group_id(0) * so] = (int32_t)(has[0] ? part[0] : (int32_t)0);
}
