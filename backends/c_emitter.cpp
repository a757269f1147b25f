#include "backends/c_emitter.hpp"

#include <algorithm>
#include <set>
#include <string_view>

#include "vm/error.hpp"

namespace arrvm::codegen {

namespace {

std::string name_of(DType t) {
  return std::string(dtype_name(t));
}

}  // namespace

// Replaces $T (element type), $U (wide unsigned type, as ref's Wide<T>),
// $V (unsigned type of T's width), $B (bits), $F (libm suffix: f or empty).
std::string subst(std::string_view text, DType t) {
  const std::size_t size = dtype_size(t);
  const std::string ct = c_type(t);
  const std::string wide = size <= 4 ? "uint32_t" : "uint64_t";
  const std::string narrow = "uint" + std::to_string(size * 8) + "_t";
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '$' || i + 1 == text.size()) {
      out += text[i];
      continue;
    }
    switch (text[++i]) {
      case 'T':
        out += ct;
        break;
      case 'U':
        out += wide;
        break;
      case 'V':
        out += narrow;
        break;
      case 'B':
        out += std::to_string(size * 8);
        break;
      case 'F':
        out += t == DType::Float32 || t == DType::Complex64 ? "f" : "";
        break;
      case 'P':  // a complex dtype's part type
        out += c_type(real_dtype(t));
        break;
      case 'C':  // the complex constructor (CDialect::complex_prelude)
        out += std::string(c_type(complex_dtype(t))) + "_of";
        break;
      default:
        out += '$';
        out += text[i];
    }
  }
  return out;
}

namespace {

const char* libm_name(Opcode op) {
  switch (op) {
    case Opcode::Sqrt:
      return "sqrt";
    case Opcode::Exp:
      return "exp";
    case Opcode::Exp2:
      return "exp2";
    case Opcode::Expm1:
      return "expm1";
    case Opcode::Log:
      return "log";
    case Opcode::Log2:
      return "log2";
    case Opcode::Log10:
      return "log10";
    case Opcode::Log1p:
      return "log1p";
    case Opcode::Sin:
      return "sin";
    case Opcode::Cos:
      return "cos";
    case Opcode::Tan:
      return "tan";
    case Opcode::Arcsin:
      return "asin";
    case Opcode::Arccos:
      return "acos";
    case Opcode::Arctan:
      return "atan";
    case Opcode::Sinh:
      return "sinh";
    case Opcode::Cbrt:
      return "cbrt";
    case Opcode::Arcsinh:
      return "asinh";
    case Opcode::Arccosh:
      return "acosh";
    case Opcode::Arctanh:
      return "atanh";
    case Opcode::Cosh:
      return "cosh";
    case Opcode::Tanh:
      return "tanh";
    case Opcode::Floor:
      return "floor";
    case Opcode::Ceil:
      return "ceil";
    case Opcode::Trunc:
      return "trunc";
    case Opcode::Rint:
      return "nearbyint";  // half to even, as ref
    default:
      return nullptr;
  }
}

// The body of the helper for elementwise `op` on input dtype t (a, b, c are
// the inputs). Mirrors backends/ref/scalar_ops.hpp.
std::string op_body(Opcode op, DType t, bool library) {
  using O = Opcode;
  if (is_complex(t) && op != O::Where) return complex_op_body(op, t, library);
  if (op == O::Complex) return subst("return $C(a, b);", t);
  const bool f = is_float(t), s = is_signed_int(t), b = is_bool(t);
  if (const char* m = libm_name(op)) return subst(std::string("return ") + m + "$F(a);", t);
  switch (op) {
    case O::Add:
      return f ? "return a + b;" : subst("return ($T)(($U)a + ($U)b);", t);
    case O::Subtract:
      return f ? "return a - b;" : subst("return ($T)(($U)a - ($U)b);", t);
    case O::Multiply:
      return f ? "return a * b;" : subst("return ($T)(($U)a * ($U)b);", t);
    case O::Divide:
      if (f) return "return a / b;";
      if (s) {
        return subst(
            "if (b == 0) { ARRVM_DIV0(); return 0; } if (b == -1) return ($T)(($U)0 - ($U)a);"
            " $T q = ($T)(a / b); if (($T)(a % b) != 0 && ((a < 0) != (b < 0))) --q; return q;",
            t);
      }
      return subst("if (b == 0) { ARRVM_DIV0(); return 0; } return ($T)(a / b);", t);
    case O::Mod:
      if (f) {
        return subst(
            "$T m = fmod$F(a, b); if (b == 0) return m;"
            " if (m != 0) { if ((b < 0) != (m < 0)) m += b; } else { m = copysign$F(($T)0, b); }"
            " return m;",
            t);
      }
      if (s) {
        return subst(
            "if (b == 0) { ARRVM_DIV0(); return 0; } if (b == -1) return 0; $T r = ($T)(a % b);"
            " if (r != 0 && ((r < 0) != (b < 0))) r = ($T)(r + b); return r;",
            t);
      }
      return subst("if (b == 0) { ARRVM_DIV0(); return 0; } return ($T)(a % b);", t);
    case O::Cube:  // (ref's cube, backends/ref/cube.hpp: line by line)
      return subst(
                 t == DType::Float32
                     ? "union { float f; uint32_t u; } v; v.f = a; uint32_t ex = (v.u >> 23) & 0xff;"
                       " int tiny = ex < 127 - 32, big = ex >= 127 + 42; v.u &= (uint32_t)0 - (uint32_t)!big;"
                       " uint32_t tm = (uint32_t)0 - (uint32_t)tiny; float x = v.f; v.u = 0x3f800000u + (tm "
                       "& (32u << 23)); x *= v.f;"
                     : "union { double f; uint64_t u; } v; v.f = a; uint64_t ex = (v.u >> 52) & 0x7ff;"
                       " int tiny = ex < 1023 - 256, big = ex >= 1023 + 341; v.u &= (uint64_t)0 - "
                       "(uint64_t)!big;"
                       " uint64_t tm = (uint64_t)0 - (uint64_t)tiny; double x = v.f; v.u = "
                       "0x3ff0000000000000ul + (tm & (256ul << 52));"
                       " x *= v.f;",
                 t) +
             subst(
                 " $T h = x * x, p = h * x, l = fma$F(x, x, -h), e = fma$F(h, x, -p);"
                 " $T r = p == 0 ? p : p + fma$F(l, x, e);",
                 t) +
             (t == DType::Float32 ? " v.u = 0x3f800000u - (tm & (96u << 23));"
                                  : " v.u = 0x3ff0000000000000ul - (tm & (768ul << 52));") +
             " r *= v.f; return big ? a * a * a : r;";
    case O::Power:
      if (f) return subst("return pow$F(a, b);", t);
      return subst(
          std::string(s ? "if (b < 0) { if (a == 1) return 1; if (a == -1) return (b & 1) ? ($T)-1 : ($T)1;"
                          " return 0; } "
                        : "") +
              "$U result = 1, base = ($U)a; for ($V e = ($V)b; e != 0; e >>= 1) {"
              " if (e & 1u) result *= base; base *= base; } return ($T)result;",
          t);
    case O::Maximum:
      return f ? "return (a >= b || isnan(a)) ? a : b;" : "return a >= b ? a : b;";
    case O::Minimum:
      return f ? "return (a <= b || isnan(a)) ? a : b;" : "return a <= b ? a : b;";
    case O::Equal:
      return "return a == b;";
    case O::NotEqual:
      return "return a != b;";
    case O::Less:
      return "return a < b;";
    case O::LessEqual:
      return "return a <= b;";
    case O::Greater:
      return "return a > b;";
    case O::GreaterEqual:
      return "return a >= b;";
    case O::LogicalAnd:
      return "return a && b;";
    case O::LogicalOr:
      return "return a || b;";
    case O::LogicalXor:
      return "return a != b;";
    case O::LogicalNot:
      return "return !a;";
    case O::BitwiseAnd:
      return b ? "return a && b;" : subst("return ($T)(a & b);", t);
    case O::BitwiseOr:
      return b ? "return a || b;" : subst("return ($T)(a | b);", t);
    case O::BitwiseXor:
      return b ? "return a != b;" : subst("return ($T)(a ^ b);", t);
    case O::Invert:
      return b ? "return !a;" : subst("return ($T)(~($U)a);", t);
    case O::LeftShift:
      return subst(
          std::string(s ? "if (b < 0) return 0; " : "") + "if (b >= $B) return 0; return ($T)(($U)a << b);",
          t);
    case O::RightShift:
      if (s) return subst("if (b < 0 || b >= $B) return a < 0 ? ($T)-1 : ($T)0; return ($T)(a >> b);", t);
      return subst("if (b >= $B) return 0; return ($T)(a >> b);", t);
    case O::Negative:
      return f ? "return -a;" : subst("return ($T)(($U)0 - ($U)a);", t);
    case O::Absolute:
      if (f) return subst("return fabs$F(a);", t);
      return s ? subst("return a < 0 ? ($T)(($U)0 - ($U)a) : a;", t) : "return a;";
    case O::Sign:
      if (f) return subst("if (isnan(a)) return a; return a > 0 ? ($T)1 : (a < 0 ? ($T)-1 : ($T)0);", t);
      return s ? subst("return ($T)((a > 0) - (a < 0));", t) : "return a > 0 ? 1 : 0;";
    case O::Arctan2:
      return subst("return atan2$F(a, b);", t);
    case O::Hypot:
      return subst("return hypot$F(a, b);", t);
    case O::Isnan:
      return f ? "return isnan(a) ? 1 : 0;" : "return 0;";
    case O::Isinf:
      return f ? "return isinf(a) ? 1 : 0;" : "return 0;";
    case O::Isfinite:
      return f ? "return isfinite(a) ? 1 : 0;" : "return 1;";
    case O::Where:
      return "return a ? b : c;";
    default:
      throw InternalError("c emitter: no scalar helper for " + std::string(opcode_name(op)));
  }
}

bool returns_bool(Opcode op) {
  const TypeRule r = opcode_type_rule(op);
  return r == TypeRule::Compare || r == TypeRule::Predicate || r == TypeRule::Logical;
}

// vm/cast.hpp's float_to_int: x86-64's conversions (NumPy's on this platform),
// every comparison made before a conversion, so no C conversion is out of range.
std::string float_to_int_body(DType from, DType to, const CDialect& d, const std::string& v = "v") {
  // In the source type where the device may lack double (OpenCL): the bounds
  // are powers of two, exact in float (and no float lies in (-2^31 - 1, -2^31)).
  const bool narrow = d.saturate_in_source_type && from == DType::Float32;
  const std::string T = narrow ? "float" : "double", f = narrow ? "f" : "";
  const std::string i64 = c_type(DType::Int64), i32 = c_type(DType::Int32), u64 = c_type(DType::UInt64),
                    u32 = c_type(DType::UInt32), to_t = c_type(to);
  const std::string min64 = c_limit(DType::Int64, false), min32 = c_limit(DType::Int32, false);
  const std::string lo32 = narrow ? "x >= -2147483648.0f" : "x > -2147483649.0";
  auto as64 = [&](const std::string& x) {
    return "((" + x + ") >= -9223372036854775808.0" + f + " && (" + x + ") < 9223372036854775808.0" + f +
           " ? (" + i64 + ")(" + x + ") : " + min64 + ")";
  };
  const std::string as32 = "(" + lo32 + " && x < 2147483648.0" + f + " ? (" + i32 + ")x : " + min32 + ")";
  std::string body = "const " + T + " x = (" + T + ")" + v + "; ";
  switch (to) {
    case DType::Int64:
      return body + "return " + as64("x") + ";";
    case DType::UInt64:
      return body + "if (x >= 9223372036854775808.0" + f + ") return (" + u64 + ")" +
             as64("x - 9223372036854775808.0" + f) + " ^ ((" + u64 + ")1 << 63); return (" + u64 + ")" +
             as64("x") + ";";
    case DType::UInt32:
      return body + "if (x >= 2147483648.0" + f + ") return (" + u32 + ")" + as64("x") + "; return (" + u32 +
             ")" + as32 + ";";
    default:  // int32, or its low bits
      return body + "return (" + to_t + ")(" + u32 + ")" + as32 + ";";
  }
}

// identity: vm/cast.hpp's cast_value<To>(From).
std::string cast_body(DType from, DType to, const CDialect& d) {
  if (is_complex(from) && is_integer(to)) return float_to_int_body(real_dtype(from), to, d, "ARRVM_RE(v)");
  if (is_complex(from) || is_complex(to)) return complex_cast_body(from, to);
  if (is_bool(to)) return "return v != 0;";  // NaN is truthy
  if (is_float(from) && is_integer(to)) return float_to_int_body(from, to, d);
  // A bool as a conditional: gcc does not vectorize a mask converted to a
  // float (`(double)(a < b)`), but does a select.
  if (is_bool(from) && is_float(to))
    return std::string("return v ? (") + c_type(to) + ")1 : (" + c_type(to) + ")0;";
  // An integer's float is never -0, but under -fno-trapping-math gcc folds
  // the float -> integer -> float of a fused chain (`(double)(int64_t)x`)
  // into trunc(x), which is -0 for x in (-1, 0) (NumPy: 0). The select
  // keeps +0 whatever the compiler made of the conversion, and vectorizes.
  if (is_integer(from) && is_float(to)) {
    const std::string t = c_type(to);
    return "const " + t + " r = (" + t + ")v; return r == (" + t + ")0 ? (" + t + ")0 : r;";
  }
  return std::string("return (") + c_type(to) + ")v;";
}

const char* kPhilox =
    "static inline void arrvm_philox(uint32_t c[4], uint64_t seed) {\n"
    "  uint32_t k0 = (uint32_t)seed, k1 = (uint32_t)(seed >> 32);\n"
    "  for (int r = 0; r < 10; ++r) {\n"
    "    if (r > 0) { k0 += 0x9E3779B9u; k1 += 0xBB67AE85u; }\n"
    "    uint64_t p0 = (uint64_t)0xD2511F53u * c[0];\n"
    "    uint64_t p1 = (uint64_t)0xCD9E8D57u * c[2];\n"
    "    uint32_t n0 = (uint32_t)(p1 >> 32) ^ c[1] ^ k0, n1 = (uint32_t)p1;\n"
    "    uint32_t n2 = (uint32_t)(p0 >> 32) ^ c[3] ^ k1, n3 = (uint32_t)p0;\n"
    "    c[0] = n0; c[1] = n1; c[2] = n2; c[3] = n3;\n"
    "  }\n"
    "}\n";

// Chunked random (CDialect::chunked_random): element i's words come from a
// memo of the 8 blocks of its aligned group of 16 elements (a block serves
// two: backends/philox.hpp), one memo per random statement, private to each
// thread (c_printer.cpp). arrvm_philox8 computes the 8 blocks at once, 8
// lanes wide with AVX2 (32-bit multiplies giving 64-bit products, even and
// odd lanes, blended back), else one block at a time. The memo is keyed by
// seed and group, so a stale one from another kernel or call holds the same
// values: Philox is a pure function of (seed, counter). The low word of an
// aligned group's block counters never wraps inside it (8 divides 2^32), so
// the high word is common to the 8.
const char* kPhilox8 =
    "#ifdef __AVX2__\n"
    "#include <immintrin.h>\n"
    "#endif\n"
    "static void arrvm_philox8(uint64_t seed, uint64_t b0, uint32_t w[4][8]) {\n"
    "#ifdef __AVX2__\n"
    "  __m256i c0 = _mm256_add_epi32(_mm256_set1_epi32((int)(uint32_t)b0), _mm256_setr_epi32(0, 1, 2, 3, 4, "
    "5, 6, 7));\n"
    "  __m256i c1 = _mm256_set1_epi32((int)(uint32_t)(b0 >> 32)), c2 = _mm256_setzero_si256(), c3 = c2;\n"
    "  const __m256i m0 = _mm256_set1_epi32((int)0xD2511F53u), m1 = _mm256_set1_epi32((int)0xCD9E8D57u);\n"
    "  uint32_t k0 = (uint32_t)seed, k1 = (uint32_t)(seed >> 32);\n"
    "  for (int r = 0; r < 10; ++r) {\n"
    "    if (r > 0) { k0 += 0x9E3779B9u; k1 += 0xBB67AE85u; }\n"
    "    const __m256i e0 = _mm256_mul_epu32(c0, m0), o0 = _mm256_mul_epu32(_mm256_srli_epi64(c0, 32), m0);\n"
    "    const __m256i e1 = _mm256_mul_epu32(c2, m1), o1 = _mm256_mul_epu32(_mm256_srli_epi64(c2, 32), m1);\n"
    "    const __m256i h0 = _mm256_blend_epi32(_mm256_srli_epi64(e0, 32), o0, 0xAA);\n"
    "    const __m256i l0 = _mm256_blend_epi32(e0, _mm256_slli_epi64(o0, 32), 0xAA);\n"
    "    const __m256i h1 = _mm256_blend_epi32(_mm256_srli_epi64(e1, 32), o1, 0xAA);\n"
    "    const __m256i l1 = _mm256_blend_epi32(e1, _mm256_slli_epi64(o1, 32), 0xAA);\n"
    "    c0 = _mm256_xor_si256(_mm256_xor_si256(h1, c1), _mm256_set1_epi32((int)k0));\n"
    "    c2 = _mm256_xor_si256(_mm256_xor_si256(h0, c3), _mm256_set1_epi32((int)k1));\n"
    "    c1 = l1; c3 = l0;\n"
    "  }\n"
    "  _mm256_storeu_si256((__m256i*)w[0], c0); _mm256_storeu_si256((__m256i*)w[1], c1);\n"
    "  _mm256_storeu_si256((__m256i*)w[2], c2); _mm256_storeu_si256((__m256i*)w[3], c3);\n"
    "#else\n"
    "  for (int j = 0; j < 8; ++j) {\n"
    "    uint32_t c[4] = {(uint32_t)b0 + (uint32_t)j, (uint32_t)(b0 >> 32), 0, 0}; arrvm_philox(c, seed);\n"
    "    w[0][j] = c[0]; w[1][j] = c[1]; w[2][j] = c[2]; w[3][j] = c[3];\n"
    "  }\n"
    "#endif\n"
    "}\n"
    "struct arrvm_rmemo { uint64_t seed; int64_t group; uint32_t w[4][8]; };\n"
    "static inline void arrvm_philox_words(uint64_t seed, int64_t i, uint32_t r[4], struct arrvm_rmemo* m) "
    "{\n"
    "  const int64_t g = i >> 4;\n"
    "  if (g != m->group || seed != m->seed) {\n"
    "    arrvm_philox8(seed, (uint64_t)g << 3, m->w); m->group = g; m->seed = seed;\n"
    "  }\n"
    "  const int b = (int)(i & 15) >> 1, odd = (int)(i & 1);\n"
    "  r[0] = m->w[2 * odd][b]; r[1] = m->w[2 * odd + 1][b];\n"
    "}\n";

// An element's value from its words r[0], r[1] and r64 = r[0] | r[1] << 32
// (backends/philox.hpp's random_value).
std::string random_value(DType t) {
  // Below 2^53 a signed conversion is exact and has an instruction without
  // AVX-512 (unsigned 64-bit to double has none on AVX2).
  if (t == DType::Float64) return "(double)(int64_t)(r64 >> 11) * 0x1.0p-53";
  if (is_bool(t)) return "r[0] & 1u";
  if (t == DType::Float32) return "(float)(r[0] >> 8) * 0x1.0p-24f";
  if (dtype_size(t) == 8) return std::string("(") + c_type(t) + ")r64";
  return std::string("(") + c_type(t) + ")r[0]";
}

std::string random_body(DType t, bool chunked) {
  std::string s =
      chunked
          ? "uint32_t r[4]; arrvm_philox_words(seed, i, r, m);"
            " uint64_t r64 = (uint64_t)r[0] | ((uint64_t)r[1] << 32); (void)r64; "
          : "const uint64_t b = (uint64_t)i >> 1; uint32_t r[4] = {(uint32_t)b, (uint32_t)(b >> 32), 0, 0};"
            " arrvm_philox(r, seed); if (i & 1) { r[0] = r[2]; r[1] = r[3]; }"
            " uint64_t r64 = (uint64_t)r[0] | ((uint64_t)r[1] << 32); (void)r64; ";
  return s + "return " + random_value(t) + ";";
}

// The 16 values of aligned group g (elements 16g .. 16g + 15) at once, from
// one arrvm_philox8: what a rank-1 kernel's loop over groups reads
// (CPrinter::print), so that its element loop has no state and vectorizes.
std::string random_fill(DType t) {
  return std::string("static inline void fill_random_") + name_of(t) + "(uint64_t seed, int64_t g, " +
         c_type(t) +
         " v[16]) { uint32_t w[4][8]; arrvm_philox8(seed, (uint64_t)g << 3, w);"
         " for (int j = 0; j < 16; ++j) { const uint32_t r[4] = {w[2 * (j & 1)][j >> 1],"
         " w[2 * (j & 1) + 1][j >> 1], 0, 0}; const uint64_t r64 = (uint64_t)r[0] | ((uint64_t)r[1] << 32);"
         " (void)r64; v[j] = " +
         random_value(t) + "; } }\n";
}

std::string helper_name(const Stmt& st) {
  if (st.op == Opcode::Identity) return "cast_" + name_of(st.in[0].dtype) + "_" + name_of(st.out.dtype);
  if (st.op == Opcode::Range) return "cast_int64_" + name_of(st.out.dtype);
  if (st.op == Opcode::Random) return "random_" + name_of(st.out.dtype);
  const DType t = st.op == Opcode::Where ? st.in[1].dtype : st.in[0].dtype;
  return "f_" + std::string(opcode_name(st.op)) + "_" + name_of(t);
}

// `text` inside an include guard named after `name`.
std::string guarded(const std::string& name, const std::string& text) {
  return "#ifndef ARRVM_HELPER_" + name + "\n#define ARRVM_HELPER_" + name + "\n" + text + "#endif\n";
}

// `omp declare simd` for the libm function that elementwise `st` calls on
// float type t, when the dialect has its vector variant (else "").
// (A complex absolute value is hypot of its parts: np.abs(z) in the escape
// test of a Mandelbrot loop, scalar hypot calls 5 ns an element.)
std::string vector_declaration(const Stmt& st, DType t, const CDialect& d) {
  const bool complex_abs = st.op == Opcode::Absolute && is_complex(t);
  if (complex_abs) t = real_dtype(t);
  if (!is_float(t) || d.vector_functions.empty()) return "";
  const bool binary =
      st.op == Opcode::Power || st.op == Opcode::Arctan2 || st.op == Opcode::Hypot || complex_abs;
  const char* fn = st.op == Opcode::Power                  ? "pow"
                   : st.op == Opcode::Arctan2              ? "atan2"
                   : st.op == Opcode::Hypot || complex_abs ? "hypot"
                                                           : libm_name(st.op);
  if (fn == nullptr ||
      std::find(d.vector_functions.begin(), d.vector_functions.end(), fn) == d.vector_functions.end())
    return "";
  const std::string type = c_type(t);
  const std::string name = std::string(fn) + (t == DType::Float32 ? "f" : "");
  const std::string params = binary ? type + ", " + type : type;
  return "#pragma omp declare simd notinbranch\n" + type + " " + name + "(" + params + ");\n";
}

std::string helper_def(const Stmt& st, const CDialect& d) {
  if (d.guard_helpers) {
    CDialect plain = d;
    plain.guard_helpers = false;
    return guarded(helper_name(st), helper_def(st, plain));
  }
  const std::string name = helper_name(st);
  const std::string out = c_type(st.out.dtype);
  if (st.op == Opcode::Identity || st.op == Opcode::Range) {
    const DType from = st.op == Opcode::Range ? DType::Int64 : st.in[0].dtype;
    return "static inline " + out + " " + name + "(" + c_type(from) + " v) { " +
           cast_body(from, st.out.dtype, d) + " }\n";
  }
  if (st.op == Opcode::Random) {
    const std::string memo = d.chunked_random ? ", struct arrvm_rmemo* m" : "";
    return "static inline " + out + " " + name + "(uint64_t seed, int64_t i" + memo + ") { " +
           random_body(st.out.dtype, d.chunked_random) + " }\n" +
           (d.chunked_random ? random_fill(st.out.dtype) : std::string());
  }
  std::string params;
  const char* names[3] = {"a", "b", "c"};
  for (int k = 0; k < st.nin; ++k) {
    params += std::string(k ? ", " : "") + c_type(st.in[k].dtype) + " " + names[k];
  }
  const DType t = st.op == Opcode::Where ? st.in[1].dtype : st.in[0].dtype;
  const bool part = (st.op == Opcode::Absolute || st.op == Opcode::Imag) && is_complex(t);
  const std::string ret = returns_bool(st.op)        ? "uint8_t"
                          : part                     ? c_type(real_dtype(t))
                          : st.op == Opcode::Complex ? c_type(complex_dtype(t))
                                                     : c_type(t);
  return vector_declaration(st, t, d) + "static inline " + ret + " " + name + "(" + params + ") { " +
         op_body(st.op, t, d.complex_library) + " }\n";
}

}  // namespace

const char* c_type(DType t) {
  switch (t) {
    case DType::Bool:
      return "uint8_t";
    case DType::Int8:
      return "int8_t";
    case DType::Int16:
      return "int16_t";
    case DType::Int32:
      return "int32_t";
    case DType::Int64:
      return "int64_t";
    case DType::UInt8:
      return "uint8_t";
    case DType::UInt16:
      return "uint16_t";
    case DType::UInt32:
      return "uint32_t";
    case DType::UInt64:
      return "uint64_t";
    case DType::Float32:
      return "float";
    case DType::Float64:
      return "double";
    case DType::Complex64:
      return "arrvm_complex64";
    case DType::Complex128:
      return "arrvm_complex128";
  }
  return "void";
}

const char* c_limit(DType t, bool max) {
  switch (t) {
    case DType::Int8:
      return max ? "INT8_MAX" : "INT8_MIN";
    case DType::Int16:
      return max ? "INT16_MAX" : "INT16_MIN";
    case DType::Int32:
      return max ? "INT32_MAX" : "INT32_MIN";
    case DType::Int64:
      return max ? "INT64_MAX" : "INT64_MIN";
    case DType::UInt8:
      return max ? "UINT8_MAX" : "0";
    case DType::UInt16:
      return max ? "UINT16_MAX" : "0";
    case DType::UInt32:
      return max ? "UINT32_MAX" : "0";
    case DType::UInt64:
      return max ? "UINT64_MAX" : "0";
    default:
      return max ? "1" : "0";
  }
}

std::string combine_helper(Opcode op, DType t, const CDialect& d, std::string* name) {
  // A complex product starts from (1, +0) (start_value), which a complex
  // multiply would not leave exactly as the first factor at infinities,
  // NaNs and signed zeros (NumPy's product starts from the first element):
  // the first factor is taken as it is. (A partial product that is exactly
  // (1, +0) before such a factor takes it as it is too.)
  if (is_complex(t) && (op == Opcode::MultiplyReduce || op == Opcode::MultiplyAccumulate)) {
    *name = "f_product_" + name_of(t);
    const std::string text = subst(
        "static inline $T " + *name +
            "($T a, $T b) { if (ARRVM_RE(a) == 1 && ARRVM_IM(a) == 0 && !signbit(ARRVM_IM(a))) return b;"
            " return $C(ARRVM_RE(a) * ARRVM_RE(b) - ARRVM_IM(a) * ARRVM_IM(b),"
            " ARRVM_RE(a) * ARRVM_IM(b) + ARRVM_IM(a) * ARRVM_RE(b)); }\n",
        t);
    return d.guard_helpers ? guarded(*name, text) : text;
  }
  Stmt combine;
  switch (op) {
    case Opcode::AddReduce:
    case Opcode::AddAccumulate:
      combine.op = Opcode::Add;
      break;
    case Opcode::MultiplyReduce:
    case Opcode::MultiplyAccumulate:
      combine.op = Opcode::Multiply;
      break;
    case Opcode::MinimumReduce:
    case Opcode::MinimumAccumulate:
      combine.op = Opcode::Minimum;
      break;
    case Opcode::MaximumReduce:
    case Opcode::MaximumAccumulate:
      combine.op = Opcode::Maximum;
      break;
    case Opcode::LogicalAndReduce:
      combine.op = Opcode::LogicalAnd;
      break;
    case Opcode::LogicalOrReduce:
      combine.op = Opcode::LogicalOr;
      break;
    default:
      throw InternalError("c emitter: not a reduction or scan: " + std::string(opcode_name(op)));
  }
  combine.nin = 2;
  combine.in[0] = combine.in[1] = Arg{ArgKind::View, 0, t};
  combine.out = Arg{ArgKind::View, 0,
                    combine.op == Opcode::LogicalAnd || combine.op == Opcode::LogicalOr ? DType::Bool : t};
  *name = helper_name(combine);
  return helper_def(combine, d);
}

std::string scalar_helpers(const std::vector<Stmt>& body, const CDialect& d) {
  bool random = false;
  std::set<std::string> seen;
  std::string helpers;
  for (const Stmt& st : body) {
    const OpKind k = opcode_kind(st.op);
    if (k != OpKind::Elementwise && k != OpKind::Generator) continue;
    random = random || st.op == Opcode::Random;
    if (!seen.insert(helper_name(st)).second) continue;
    const DType t = st.op == Opcode::Where ? st.in[1].dtype : st.in[0].dtype;
    // (each library once, before the first helper that calls it)
    if (!d.complex_library && st.nin > 0 && is_complex(t) && uses_complex_math(st.op) &&
        seen.insert("library " + std::string(dtype_name(t))).second)
      helpers += complex_math_library(t);
    helpers += helper_def(st, d);
  }
  if (!random) return helpers;
  std::string philox = d.chunked_random ? std::string(kPhilox) + kPhilox8 : std::string(kPhilox);
  return (d.guard_helpers ? guarded("arrvm_philox", philox) : philox) + helpers;
}

std::string scalar_helper_name(const Stmt& st) {
  return helper_name(st);
}

std::string guard_helper(const std::string& name, const std::string& text, const CDialect& d) {
  return d.guard_helpers ? guarded(name, text) : text;
}

}  // namespace arrvm::codegen
