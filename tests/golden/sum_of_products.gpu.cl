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
#ifndef ARRVM_HELPER_f_multiply_float64
#define ARRVM_HELPER_f_multiply_float64
static inline double f_multiply_float64(double a, double b) { return a * b; }
#endif
#ifndef ARRVM_HELPER_f_add_float64
#define ARRVM_HELPER_f_add_float64
static inline double f_add_float64(double a, double b) { return a + b; }
#endif
__kernel void kernel(__global double* P0, __global double* P1, __global double* P2, __global double* R0, __global const int64_t* a, __global const uint64_t* c) {
  const int64_t n0 = a[0];
  const int64_t o0_0 = a[2];
  const int64_t s0_0 = a[3];
  const int64_t o1_0 = a[4];
  const int64_t s1_0 = a[5];
  const int64_t o2_0 = a[6];
  const int64_t s2_0 = a[7];
  double acc0 = -0.0;
  const int64_t total = n0;
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
    const int64_t o2_1 = o2_0;
    double t0;
    t0 = (double)f_multiply_float64(P0[o0_1], P1[o1_1]);
    acc0 = (double)f_add_float64(acc0, t0);
  }
  if (n0 == 0) acc0 = 0;
  R0[get_global_id(0)] = acc0;
}
