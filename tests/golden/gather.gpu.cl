#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#pragma OPENCL FP_CONTRACT OFF
#ifndef ARRVM_OPENCL_PRELUDE
#define ARRVM_OPENCL_PRELUDE
typedef char int8_t;
typedef short int16_t;
typedef int int32_t;
typedef long int64_t;
typedef uchar uint8_t;
typedef ushort uint16_t;
typedef uint uint32_t;
typedef ulong uint64_t;
#define INT8_MIN (-128)
#define INT8_MAX 127
#define INT16_MIN (-32768)
#define INT16_MAX 32767
#define INT32_MIN (-2147483647 - 1)
#define INT32_MAX 2147483647
#define INT64_MIN (-9223372036854775807L - 1L)
#define INT64_MAX 9223372036854775807L
#define UINT8_MAX 255
#define UINT16_MAX 65535
#define UINT32_MAX 4294967295U
#define UINT64_MAX 18446744073709551615UL
#define sqrtf sqrt
#define expf exp
#define exp2f exp2
#define expm1f expm1
#define logf log
#define log2f log2
#define log10f log10
#define log1pf log1p
#define sinf sin
#define cosf cos
#define tanf tan
#define asinf asin
#define acosf acos
#define atanf atan
#define sinhf sinh
#define coshf cosh
#define tanhf tanh
#define floorf floor
#define ceilf ceil
#define truncf trunc
#define nearbyint rint
#define nearbyintf rint
#define fmodf fmod
#define copysignf copysign
#define powf pow
#define fabsf fabs
#define atan2f atan2
static inline void arrvm_copy_bytes(__private uchar* d, __global const uchar* s, size_t n) {
  for (size_t i = 0; i < n; ++i) d[i] = s[i];
}
#define memcpy(d, s, n) arrvm_copy_bytes((__private uchar*)(d), (__global const uchar*)(s), (n))
#endif
#ifndef ARRVM_HELPER_f_multiply_float32
#define ARRVM_HELPER_f_multiply_float32
static inline float f_multiply_float32(float a, float b) { return a * b; }
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
__kernel void kernel(__global int64_t* P0, __global float* P1, __global float* Q0, __global int64_t* E, __global const int64_t* a, __global const uint64_t* c) {
  const int64_t n0 = a[0];
  const int64_t o0_0 = a[2];
  const int64_t s0_0 = a[3];
  const int64_t o1_0 = a[4];
  const int64_t s1_0 = a[5];
  __global const int64_t* q0 = a + 6;
  const int64_t N0 = q0[1];
  float C0; memcpy(&C0, &c[0], sizeof(C0));
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
    const int64_t o0_1 = o0_0 + i0;
    const int64_t o1_1 = o1_0 + i0;
    const int64_t f = i0;
    float t0;
    {
      const int64_t x = P0[o0_1];
      float v = 0;
      if ((uint64_t)x < (uint64_t)N0) v = Q0[q0[0] + x * q0[3]]; else arrvm_bad_index(E + 2 * ((int64_t)get_global_id(0) * 1 + 0), f, x);
      t0 = v;
    }
    P1[o1_1] = (float)f_multiply_float32(t0, C0);
  }
}
