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
#define atan2f atan2
static inline void arrvm_copy_bytes(__private uchar* d, __global const uchar* s, size_t n) {
  for (size_t i = 0; i < n; ++i) d[i] = s[i];
}
#define memcpy(d, s, n) arrvm_copy_bytes((__private uchar*)(d), (__global const uchar*)(s), (n))
#endif
)";

const char* identity_of(Opcode op) {
  return (op == Opcode::MultiplyReduce || op == Opcode::LogicalAndReduce) ? "1" : "0";
}

}  // namespace

codegen::CDialect dialect(bool fp64) {
  codegen::CDialect d;
  d.prelude = kPrelude;
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

std::string reduce_tree_name(Opcode op, TreeTypes t) {
  std::string name = "arrvm_reduce_" + std::string(opcode_name(op)) + "_" + std::string(dtype_name(t.in));
  if (t.acc != t.in || t.out != t.in)
    name += "_" + std::string(dtype_name(t.acc)) + "_" + std::string(dtype_name(t.out));
  return name;
}

std::string reduce_tree_source(Opcode op, TreeTypes t, int local_size, const codegen::CDialect& d) {
  ARRVM_ASSERT(opcode_kind(op) == OpKind::Reduce && local_size > 0 && (local_size & (local_size - 1)) == 0);
  std::string f;
  std::string src = d.prelude + codegen::combine_helper(op, t.acc, d, &f);
  const std::string T = codegen::c_type(t.acc), I = codegen::c_type(t.in), O = codegen::c_type(t.out),
                    L = std::to_string(local_size);
  src += "__kernel __attribute__((reqd_work_group_size(" + L + ", 1, 1)))\n";
  src += "void " + reduce_tree_name(op, t) + "(__global " + O + "* P0, __global " + I +
         "* P1, __global const int64_t* a, __global const uint64_t* c) {\n";
  src += "  const int64_t len = a[0], oi = a[1], si = a[2], oo = a[3], so = a[4];\n";
  src += "  __local " + T + " part[" + L + "];\n";
  src += "  __local uchar has[" + L + "];\n";
  src += "  const int lid = (int)get_local_id(0);\n";
  src += "  const int64_t step = (int64_t)get_global_size(0);\n";
  // Each work item folds its elements in index order; `h` says whether it
  // has any (no identity enters the fold, so min/max need none).
  src += "  " + T + " acc = (" + T + ")0;\n";
  src += "  uchar h = 0;\n";
  src += "  for (int64_t k = (int64_t)get_global_id(0); k < len; k += step) {\n";
  src += "    const " + T + " x = (" + T + ")P1[oi + k * si];\n";
  src += "    acc = h ? (" + T + ")" + f + "(acc, x) : x;\n";
  src += "    h = 1;\n";
  src += "  }\n";
  src += "  part[lid] = acc;\n";
  src += "  has[lid] = h;\n";
  src += "  barrier(CLK_LOCAL_MEM_FENCE);\n";
  src += "  for (int s = " + L + " / 2; s > 0; s >>= 1) {\n";
  src += "    if (lid < s && has[lid + s]) {\n";
  src += "      part[lid] = has[lid] ? (" + T + ")" + f + "(part[lid], part[lid + s]) : part[lid + s];\n";
  src += "      has[lid] = 1;\n";
  src += "    }\n";
  src += "    barrier(CLK_LOCAL_MEM_FENCE);\n";
  src += "  }\n";
  src += "  if (lid == 0) P0[oo + (int64_t)get_group_id(0) * so] = (" + O + ")(has[0] ? part[0] : (" + T +
         ")" + identity_of(op) + ");\n";
  src += "}\n";
  return src;
}

std::string scan_totals_name(Opcode op, DType t) {
  return "arrvm_scan_totals_" + std::string(opcode_name(op)) + "_" + std::string(dtype_name(t));
}
std::string scan_prefix_name(Opcode op, DType t) {
  return "arrvm_scan_prefix_" + std::string(opcode_name(op)) + "_" + std::string(dtype_name(t));
}
std::string scan_apply_name(Opcode op, DType t) {
  return "arrvm_scan_apply_" + std::string(opcode_name(op)) + "_" + std::string(dtype_name(t));
}

std::string scan_source(Opcode op, DType t, int local_size, const codegen::CDialect& d) {
  ARRVM_ASSERT(opcode_kind(op) == OpKind::Accumulate && local_size > 0 &&
               (local_size & (local_size - 1)) == 0);
  std::string f;
  std::string src = d.prelude + codegen::combine_helper(op, t, d, &f);
  const std::string T = codegen::c_type(t), L = std::to_string(local_size);
  const std::string args =
      "  const int64_t len = a[0], oi = a[1], si = a[2], oo = a[3], so = a[4], chunk = a[5], chunks = "
      "a[6];\n";
  // Chunk w = [start, end) of the input, for each w of this work item.
  const std::string range =
      "  for (int64_t w = (int64_t)get_global_id(0); w < chunks; w += (int64_t)get_global_size(0)) {\n"
      "  const int64_t start = w * chunk, end = min(start + chunk, len);\n";
  src += "__kernel void " + scan_totals_name(op, t) + "(__global " + T + "* P0, __global " + T +
         "* P1, __global const int64_t* a, __global const uint64_t* c) {\n" + args + range;
  src += "  " + T + " acc = P1[oi + start * si];\n";
  src += "  for (int64_t k = start + 1; k < end; ++k) acc = (" + T + ")" + f + "(acc, P1[oi + k * si]);\n";
  src += "  P0[w] = acc;\n  }\n}\n";
  // Exclusive prefixes of the chunk totals: each work item folds a block of
  // them, work item 0 scans the block sums, each work item then walks its
  // block. prefix[0] is never read (chunk 0 starts from its first element).
  src += "__kernel __attribute__((reqd_work_group_size(" + L + ", 1, 1)))\n";
  src += "void " + scan_prefix_name(op, t) + "(__global " + T + "* P0, __global " + T +
         "* P1, __global const int64_t* a, __global const uint64_t* c) {\n" + args;
  src += "  __local " + T + " sum[" + L + "];\n";
  src += "  __local uchar has[" + L + "];\n";
  src += "  const int lid = (int)get_local_id(0);\n";
  src += "  const int64_t block = (chunks + " + L + " - 1) / " + L + ";\n";
  src += "  const int64_t b0 = lid * block, b1 = min(b0 + block, chunks);\n";
  src += "  " + T + " acc = (" + T + ")0;\n";
  src += "  uchar h = 0;\n";
  src +=
      "  for (int64_t j = b0; j < b1; ++j) { acc = h ? (" + T + ")" + f + "(acc, P1[j]) : P1[j]; h = 1; }\n";
  src += "  sum[lid] = acc;\n";
  src += "  has[lid] = h;\n";
  src += "  barrier(CLK_LOCAL_MEM_FENCE);\n";
  src += "  if (lid == 0) {\n";
  src += "    " + T + " run = (" + T + ")0;\n";
  src += "    uchar rh = 0;\n";
  src += "    for (int j = 0; j < " + L + "; ++j) {\n";
  src += "      const " + T + " s = sum[j];\n";
  src += "      const uchar sh = has[j];\n";
  src += "      sum[j] = run;\n";
  src += "      has[j] = rh;\n";
  src += "      if (sh) { run = rh ? (" + T + ")" + f + "(run, s) : s; rh = 1; }\n";
  src += "    }\n";
  src += "  }\n";
  src += "  barrier(CLK_LOCAL_MEM_FENCE);\n";
  src += "  " + T + " run = sum[lid];\n";
  src += "  uchar rh = has[lid];\n";
  src += "  for (int64_t j = b0; j < b1; ++j) {\n";
  src += "    if (rh) P0[j] = run;\n";
  src += "    run = rh ? (" + T + ")" + f + "(run, P1[j]) : P1[j];\n";
  src += "    rh = 1;\n";
  src += "  }\n}\n";
  src += "__kernel void " + scan_apply_name(op, t) + "(__global " + T + "* P0, __global " + T +
         "* P1, __global " + T + "* P2, __global const int64_t* a, __global const uint64_t* c) {\n" + args +
         range;
  src +=
      "  " + T + " acc = w == 0 ? P1[oi + start * si] : (" + T + ")" + f + "(P2[w], P1[oi + start * si]);\n";
  src += "  P0[oo + start * so] = acc;\n";
  src += "  for (int64_t k = start + 1; k < end; ++k) {\n";
  src += "    acc = (" + T + ")" + f + "(acc, P1[oi + k * si]);\n";
  src += "    P0[oo + k * so] = acc;\n";
  src += "  }\n  }\n}\n";
  return src;
}

}  // namespace arrvm::opencl
