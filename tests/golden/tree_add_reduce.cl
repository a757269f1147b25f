#ifndef ARRVM_HELPER_f_add_float64
#define ARRVM_HELPER_f_add_float64
static inline double f_add_float64(double a, double b) { return a + b; }
#endif
__kernel __attribute__((reqd_work_group_size(64, 1, 1))) void kernel(__global float* P0, __global double* P1, __global const int64_t* a, __global const uint64_t* c) {
  const int64_t n0 = a[0];
  const int64_t o0_0 = a[2];
  const int64_t s0_0 = a[3];
  const int64_t o1_0 = a[4];
  const int64_t s1_0 = a[5];
  double acc0 = -0.0;
  for (int64_t i0 = (int64_t)get_global_id(0); i0 < n0; i0 += (int64_t)get_global_size(0)) {
    const int64_t o0_1 = o0_0;
    const int64_t o1_1 = o1_0 + i0;
    acc0 = (double)f_add_float64(acc0, P1[o1_1]);
  }
  if (n0 == 0) acc0 = 0;
  __local double arrvm_part[64];
  const int arrvm_lid = (int)get_local_id(0);
  arrvm_part[arrvm_lid] = acc0;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int arrvm_s = 64 / 2; arrvm_s > 0; arrvm_s >>= 1) {
    if (arrvm_lid < arrvm_s) arrvm_part[arrvm_lid] = (double)f_add_float64(arrvm_part[arrvm_lid], arrvm_part[arrvm_lid + arrvm_s]);
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (arrvm_lid == 0) P0[o0_0 + (int64_t)get_group_id(0) * s0_0] = (float)arrvm_part[0];
}
