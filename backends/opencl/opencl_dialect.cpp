#include "backends/opencl/opencl_dialect.hpp"

#include "vm/error.hpp"

namespace arrvm::opencl {

namespace {

// What OpenCL C lacks of the C the emitter prints: the <stdint.h> names and
// limits, libm's float-suffixed names (OpenCL overloads instead), and
// memcpy, which the emitter uses to load a constant from the low bytes of
// its 64-bit slot (a __global source, a __private destination).
constexpr const char* kPrelude = R"(#pragma OPENCL FP_CONTRACT OFF
#ifndef ARRVM_OPENCL_PRELUDE
#define ARRVM_OPENCL_PRELUDE
#define ARRVM_DIV0() ((void)0)
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
#define cbrtf cbrt
#define asinhf asinh
#define acoshf acosh
#define atanhf atanh
#define hypotf hypot
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
#define fmaf fma
#define atan2f atan2
static inline void arrvm_copy_bytes(__private uchar* d, __global const uchar* s, size_t n) {
  for (size_t i = 0; i < n; ++i) d[i] = s[i];
}
#define memcpy(d, s, n) arrvm_copy_bytes((__private uchar*)(d), (__global const uchar*)(s), (n))
#endif
)";

// Complex values as 2-vectors (x: real part, y: imaginary part; the
// layout of std::complex and NumPy's), so that +, - and unary - are the
// vector operations; everything else is written on the parts.
constexpr const char* kComplexPrelude = R"(#ifndef ARRVM_COMPLEX
#define ARRVM_COMPLEX
typedef float2 arrvm_complex64;
#ifdef cl_khr_fp64
typedef double2 arrvm_complex128;
#endif
#define ARRVM_RE(z) ((z).x)
#define ARRVM_IM(z) ((z).y)
#define arrvm_complex64_of(r, i) ((float2)((float)(r), (float)(i)))
#define arrvm_complex128_of(r, i) ((double2)((double)(r), (double)(i)))
#endif
)";

}  // namespace

codegen::CDialect dialect(bool fp64) {
  codegen::CDialect d;
  d.prelude = kPrelude;
  d.complex_prelude = kComplexPrelude;
  d.complex_library = false;
  if (fp64) d.prelude = "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n" + d.prelude;
  d.kernel_qualifier = "__kernel ";
  d.global_qualifier = "__global ";
  d.saturate_in_source_type = true;
  d.guard_helpers = true;
  return d;
}

std::string build_options(bool correctly_rounded_divide_sqrt) {
  std::string o = "-cl-std=CL1.2";
  if (correctly_rounded_divide_sqrt) o += " -cl-fp32-correctly-rounded-divide-sqrt";
  return o;
}

}  // namespace arrvm::opencl
