#include "backends/c_emitter.hpp"

#include "vm/error.hpp"

// The scalar helpers of complex dtypes (split from c_emitter.cpp):
// backends/ref/complex_ops.hpp written in C.
namespace arrvm::codegen {

namespace {

// NumPy's lexicographic comparisons of complex x and y (ref's cplx::lt ...),
// as C expressions; `rel` is <, <=, > or >=.
std::string complex_order(const std::string& rel, const std::string& x, const std::string& y) {
  const std::string xr = "ARRVM_RE(" + x + ")", xi = "ARRVM_IM(" + x + ")", yr = "ARRVM_RE(" + y + ")",
                    yi = "ARRVM_IM(" + y + ")";
  const std::string strict = rel.substr(0, 1);
  return "((" + xr + " " + strict + " " + yr + " && !isnan(" + xi + ") && !isnan(" + yi + ")) || (" + xr +
         " == " + yr + " && " + xi + " " + rel + " " + yi + "))";
}

}  // namespace

// The helpers of complex dtypes: backends/ref/complex_ops.hpp in C, in the
// terms of CDialect::complex_prelude (ARRVM_RE, ARRVM_IM, $C); the C
// library's complex functions as GCC's builtins, or (no `library`) the
// functions of complex_math_library.
std::string complex_op_body(Opcode op, DType t, bool library) {
  const std::string lib = library ? "__builtin_" : "arrvm_";
  using O = Opcode;
  const char* fn = nullptr;
  switch (op) {
    case O::Sqrt:
      fn = "csqrt";
      break;
    case O::Exp:
      fn = "cexp";
      break;
    case O::Log:
      fn = "clog";
      break;
    case O::Sin:
      fn = "csin";
      break;
    case O::Cos:
      fn = "ccos";
      break;
    case O::Tan:
      fn = "ctan";
      break;
    case O::Arcsin:
      fn = "casin";
      break;
    case O::Arccos:
      fn = "cacos";
      break;
    case O::Arctan:
      fn = "catan";
      break;
    case O::Sinh:
      fn = "csinh";
      break;
    case O::Cosh:
      fn = "ccosh";
      break;
    case O::Tanh:
      fn = "ctanh";
      break;
    case O::Arcsinh:
      fn = "casinh";
      break;
    case O::Arccosh:
      fn = "cacosh";
      break;
    case O::Arctanh:
      fn = "catanh";
      break;
    default:
      break;
  }
  if (fn != nullptr) return subst("return " + lib + fn + "$F(a);", t);
  const std::string mul =
      "$C(ARRVM_RE(x) * ARRVM_RE(y) - ARRVM_IM(x) * ARRVM_IM(y),"
      " ARRVM_RE(x) * ARRVM_IM(y) + ARRVM_IM(x) * ARRVM_RE(y))";
  switch (op) {
    case O::Add:
      return "return a + b;";
    case O::Subtract:
      return "return a - b;";
    case O::Multiply:
      return subst("const $T x = a, y = b; return " + mul + ";", t);
    case O::Divide:
      return subst(
          "const $P ar = ARRVM_RE(a), ai = ARRVM_IM(a), br = ARRVM_RE(b), bi = ARRVM_IM(b);"
          " const $P abr = fabs$F(br), abi = fabs$F(bi);"
          " if (abr >= abi) { if (abr == 0 && abi == 0) return $C(ar / abr, ai / abr);"
          " const $P rat = bi / br, scl = ($P)1 / (br + bi * rat);"
          " return $C((ar + ai * rat) * scl, (ai - ar * rat) * scl); }"
          " const $P rat = br / bi, scl = ($P)1 / (bi + br * rat);"
          " return $C((ar * rat + ai) * scl, (ai * rat - ar) * scl);",
          t);
    case O::Power:
      return subst(
          "const $P br = ARRVM_RE(b), bi = ARRVM_IM(b);"
          " if (br == 0 && bi == 0) return $C(($P)1, ($P)0);"
          " if (ARRVM_RE(a) == 0 && ARRVM_IM(a) == 0) { if (br > 0) return $C(($P)0, ($P)0);"
          " volatile $P z = ($P)INFINITY; z = z - ($P)INFINITY; return $C(($P)NAN, ($P)NAN); }"
          " if (bi == 0 && br > -100 && br < 100 && ($P)(long)br == br) { long n = (long)br; $T x, y;"
          " if (n == 1) return a; if (n == 2) { x = a; y = a; return " +
              mul +
              "; }"
              " if (n == 3) { x = a; y = a; const $T sq = " +
              mul + "; x = a; y = sq; return " + mul +
              "; }"
              " $T acc = $C(($P)1, ($P)0), p = a; if (n < 0) n = -n;"
              " for (long mask = 1;; mask <<= 1) { if (n & mask) { x = acc; y = p; acc = " +
              mul +
              "; }"
              " if (n < (mask << 1)) break; x = p; y = p; p = " +
              mul +
              "; }"
              " if (br >= 0) return acc; const $P abr = fabs$F(ARRVM_RE(acc)), abi = fabs$F(ARRVM_IM(acc));"
              " if (abr >= abi) { if (abr == 0 && abi == 0) return $C(($P)1 / abr, ($P)0 / "
              "abr);"
              " const $P rat = ARRVM_IM(acc) / ARRVM_RE(acc), scl = ($P)1 / (ARRVM_RE(acc) + ARRVM_IM(acc) * "
              "rat);"
              " return $C((($P)1 + ($P)0 * rat) * scl, (($P)0 - ($P)1 * rat) * scl); }"
              " const $P rat = ARRVM_RE(acc) / ARRVM_IM(acc), scl = ($P)1 / (ARRVM_IM(acc) + ARRVM_RE(acc) * "
              "rat);"
              " return $C((($P)1 * rat + ($P)0) * scl, (($P)0 * rat - ($P)1) * scl); }"
              " return " +
              lib + "cpow$F(a, b);",
          t);
    case O::Maximum:
      return "return (isnan(ARRVM_RE(a)) || isnan(ARRVM_IM(a)) || " + complex_order(">=", "a", "b") +
             ") ? a : b;";
    case O::Minimum:
      return "return (isnan(ARRVM_RE(a)) || isnan(ARRVM_IM(a)) || " + complex_order("<=", "a", "b") +
             ") ? a : b;";
    case O::Equal:
      return "return ARRVM_RE(a) == ARRVM_RE(b) && ARRVM_IM(a) == ARRVM_IM(b);";
    case O::NotEqual:
      return "return ARRVM_RE(a) != ARRVM_RE(b) || ARRVM_IM(a) != ARRVM_IM(b);";
    case O::Less:
      return "return " + complex_order("<", "a", "b") + ";";
    case O::LessEqual:
      return "return " + complex_order("<=", "a", "b") + ";";
    case O::Greater:
      return "return " + complex_order(">", "a", "b") + ";";
    case O::GreaterEqual:
      return "return " + complex_order(">=", "a", "b") + ";";
    case O::Negative:
      return "return -a;";
    case O::Absolute:
      return subst("return hypot$F(ARRVM_RE(a), ARRVM_IM(a));", t);
    case O::Sign:
      return subst("const $T z = $C(($P)0, ($P)0); return $C(" + complex_order(">", "a", "z") +
                       " ? ($P)1 : " + complex_order("<", "a", "z") +
                       " ? ($P)-1 : ARRVM_RE(a) == 0 && ARRVM_IM(a) == 0 ? ($P)0 : ($P)NAN, ($P)0);",
                   t);
    case O::Exp2:
      return subst(
          "const $P l = ($P)0.693147180559945309417232121458176568;"
          " return " +
              lib + "cexp$F($C(ARRVM_RE(a) * l, ARRVM_IM(a) * l));",
          t);
    case O::Expm1:
      return subst(
          "const $P h = sin$F(ARRVM_IM(a) / 2);"
          " return $C(expm1$F(ARRVM_RE(a)) * cos$F(ARRVM_IM(a)) - 2 * h * h,"
          " exp$F(ARRVM_RE(a)) * sin$F(ARRVM_IM(a)));",
          t);
    case O::Log2:
    case O::Log10:
      return subst(std::string("const $P k = ($P)") +
                       (op == O::Log2 ? "1.442695040888963407359924681001892137"
                                      : "0.434294481903251827651128918916605082") +
                       "; const $T l = " + lib + "clog$F(a); return $C(ARRVM_RE(l) * k, ARRVM_IM(l) * k);",
                   t);
    case O::Log1p:
      return subst(
          "const $P l = hypot$F(ARRVM_RE(a) + 1, ARRVM_IM(a));"
          " return $C(log$F(l), atan2$F(ARRVM_IM(a), ARRVM_RE(a) + 1));",
          t);
    case O::Rint:
      return subst("return $C(nearbyint$F(ARRVM_RE(a)), nearbyint$F(ARRVM_IM(a)));", t);
    case O::Isnan:
      return "return isnan(ARRVM_RE(a)) || isnan(ARRVM_IM(a)) ? 1 : 0;";
    case O::Isinf:
      return "return isinf(ARRVM_RE(a)) || isinf(ARRVM_IM(a)) ? 1 : 0;";
    case O::Isfinite:
      return "return isfinite(ARRVM_RE(a)) && isfinite(ARRVM_IM(a)) ? 1 : 0;";
    case O::Where:
      return "return a ? b : c;";
    case O::Imag:
      return "return ARRVM_IM(a);";
    case O::Conjugate:
      return subst("return $C(ARRVM_RE(a), -ARRVM_IM(a));", t);
    default:
      throw InternalError("c emitter: no complex helper for " + std::string(opcode_name(op)));
  }
}

}  // namespace arrvm::codegen

namespace arrvm::codegen {

namespace {

// The complex functions in C on the parts (CDialect::complex_prelude's
// terms; $T complex, $P its part type, $F the libm suffix, $C the
// constructor), for a dialect without the C library's (OpenCL). The special
// values (infinities, NaNs, signed zeros) are C99 Annex G's, as glibc's,
// whose functions NumPy calls; the finite values follow Kahan ("Branch cuts
// for complex elementary functions", 1987): the inverse functions from
// square roots of 1 - z and 1 + z, and the real part of log near |z| = 1
// through log1p. @BIG@, @TINY@, @UP@, @DOWN@, @TANH@, @SQRTBIG@, @EXPMAX@ are the
// part type's bounds (complex_math_of).
constexpr const char* kComplexMath = R"(static inline $T arrvm_cexp$F($T z) {
  const $P x = ARRVM_RE(z), y = ARRVM_IM(z);
  if (isinf(x) && !isfinite(y)) return x < 0 ? $C(0, copysign$F(($P)0, y)) : $C(x, y - y);
  if (y == 0) return $C(exp$F(x), y);
  if (x > ($P)@EXPMAX@) { /* exp(x) overflows where exp(x) sin(y) may not: in halves */
    const $P h = exp$F(x / 2);
    return $C(h * cos$F(y) * h, h * sin$F(y) * h);
  }
  const $P e = exp$F(x);
  return $C(e * cos$F(y), e * sin$F(y));
}
static inline $T arrvm_clog$F($T z) {
  const $P x = ARRVM_RE(z), y = ARRVM_IM(z), ax = fabs$F(x), ay = fabs$F(y);
  $P re;
  if (isinf(x) || isinf(y)) {
    re = ($P)INFINITY;
  } else if (isnan(x) || isnan(y)) {
    re = ($P)NAN;
  } else {
    const $P big = ax > ay ? ax : ay, small = ax > ay ? ay : ax, h = hypot$F(x, y);
    if (big == 1) re = log1p$F(small * small) / 2;
    else if (h > ($P)0.71 && h < ($P)1.73) re = log1p$F((big - 1) * (big + 1) + small * small) / 2;
    else re = log$F(h);
  }
  return $C(re, atan2$F(y, x));
}
static inline $T arrvm_csqrt$F($T z) {
  const $P x = ARRVM_RE(z), y = ARRVM_IM(z);
  if (isinf(y)) return $C(($P)INFINITY, y);
  if (isnan(x)) return $C(x, x);
  if (isinf(x)) {
    if (x > 0) return $C(x, isnan(y) ? y : copysign$F(($P)0, y));
    return $C(isnan(y) ? y : ($P)0, copysign$F(($P)INFINITY, y));
  }
  if (isnan(y)) return $C(y, y);
  if (x == 0 && y == 0) return $C(($P)0, y);
  $P ax = fabs$F(x), ay = fabs$F(y), scale = 1;
  if (ax > ($P)@BIG@ || ay > ($P)@BIG@) {
    ax *= ($P)0.25;
    ay *= ($P)0.25;
    scale = 2;
  } else if (ax < ($P)@TINY@ && ay < ($P)@TINY@) {
    ax *= ($P)@UP@;
    ay *= ($P)@UP@;
    scale = ($P)@DOWN@;
  }
  const $P t = sqrt$F((ax + hypot$F(ax, ay)) * ($P)0.5), u = ay / (2 * t);
  return x >= 0 ? $C(t * scale, copysign$F(u * scale, y)) : $C(u * scale, copysign$F(t * scale, y));
}
static inline $T arrvm_csinh$F($T z) {
  const $P x = ARRVM_RE(z), y = ARRVM_IM(z);
  if (y == 0) return $C(sinh$F(x), y);
  if (!isfinite(y)) return $C(x == 0 || isinf(x) ? x : y - y, y - y);
  if (isnan(x)) return $C(x, x);
  if (fabs$F(x) > ($P)@EXPMAX@) { /* sinh, cosh = +-exp(|x|) / 2, in halves (as cexp) */
    const $P h = exp$F(fabs$F(x) / 2), s = copysign$F(($P)0.5, x);
    return $C(h * (s * cos$F(y)) * h, h * ($P)0.5 * sin$F(y) * h);
  }
  return $C(sinh$F(x) * cos$F(y), cosh$F(x) * sin$F(y));
}
static inline $T arrvm_ccosh$F($T z) {
  const $P x = ARRVM_RE(z), y = ARRVM_IM(z);
  if (y == 0) return $C(cosh$F(x), isnan(x) ? y : y * copysign$F(($P)1, x));
  if (!isfinite(y)) return $C(isinf(x) ? ($P)INFINITY : y - y, x == 0 ? ($P)0 : y - y);
  if (isnan(x)) return $C(x, x);
  if (fabs$F(x) > ($P)@EXPMAX@) {
    const $P h = exp$F(fabs$F(x) / 2), s = copysign$F(($P)0.5, x);
    return $C(h * ($P)0.5 * cos$F(y) * h, h * (s * sin$F(y)) * h);
  }
  return $C(cosh$F(x) * cos$F(y), sinh$F(x) * sin$F(y));
}
static inline $T arrvm_ctanh$F($T z) {
  const $P x = ARRVM_RE(z), y = ARRVM_IM(z);
  if (isnan(x)) return $C(x, y == 0 ? y : x);
  if (isinf(x)) return $C(copysign$F(($P)1, x), copysign$F(($P)0, isfinite(y) ? sin$F(y) * cos$F(y) : y));
  if (!isfinite(y)) return $C(x == 0 ? x : y - y, y - y); /* (C11: tanh(+-0 + i inf) = +-0 + i NaN) */
  if (fabs$F(x) >= ($P)@TANH@) {
    const $P e = exp$F(-fabs$F(x));
    return $C(copysign$F(($P)1, x), 4 * sin$F(y) * cos$F(y) * e * e);
  }
  const $P t = tan$F(y), b = 1 + t * t, s = sinh$F(x), r = sqrt$F(1 + s * s), d = 1 + b * s * s;
  return $C(b * r * s / d, t / d);
}
static inline $T arrvm_casin_kahan$F($T z) {  /* finite z */
  const $P x = ARRVM_RE(z), y = ARRVM_IM(z);
  const $T a = arrvm_csqrt$F($C(1 - x, -y)), b = arrvm_csqrt$F($C(1 + x, y));
  return $C(atan2$F(x, ARRVM_RE(a) * ARRVM_RE(b) - ARRVM_IM(a) * ARRVM_IM(b)),
            asinh$F(ARRVM_RE(a) * ARRVM_IM(b) - ARRVM_IM(a) * ARRVM_RE(b)));
}
static inline $T arrvm_casinh$F($T z) {
  const $P x = ARRVM_RE(z), y = ARRVM_IM(z);
  if (isinf(x) || isinf(y)) {
    const $P im = isinf(x) && isinf(y) ? ($P)0.785398163397448309615660845819875721
                  : isinf(y)           ? ($P)1.570796326794896619231321691639751442
                                       : 0;
    return $C(copysign$F(($P)INFINITY, x), isnan(x) || isnan(y) ? x + y : copysign$F(im, y));
  }
  if (isnan(x) || isnan(y)) return $C(x + y, y == 0 ? y : x + y);
  const $T w = arrvm_casin_kahan$F($C(-y, x));
  return $C(ARRVM_IM(w), -ARRVM_RE(w));
}
static inline $T arrvm_casin$F($T z) {
  const $T w = arrvm_casinh$F($C(-ARRVM_IM(z), ARRVM_RE(z)));
  return $C(ARRVM_IM(w), -ARRVM_RE(w));
}
static inline $T arrvm_cacos$F($T z) {
  const $P x = ARRVM_RE(z), y = ARRVM_IM(z);
  if (isinf(x) || isinf(y)) {
    if (isnan(x) || isnan(y)) return $C(x + y, -copysign$F(($P)INFINITY, y));
    const $P re = !isinf(x)  ? ($P)1.570796326794896619231321691639751442
                  : isinf(y) ? (x > 0 ? ($P)0.785398163397448309615660845819875721
                                      : ($P)2.356194490192344928846982537459627163)
                  : x > 0    ? ($P)0
                             : ($P)3.141592653589793238462643383279502884;
    return $C(re, -copysign$F(($P)INFINITY, y));
  }
  if (isnan(x) || isnan(y))
    return $C(x == 0 ? ($P)1.570796326794896619231321691639751442 : x + y, x + y);
  const $T a = arrvm_csqrt$F($C(1 - x, -y)), b = arrvm_csqrt$F($C(1 + x, y));
  return $C(2 * atan2$F(ARRVM_RE(a), ARRVM_RE(b)), asinh$F(ARRVM_RE(b) * ARRVM_IM(a) - ARRVM_IM(b) * ARRVM_RE(a)));
}
static inline $T arrvm_cacosh$F($T z) {
  const $P x = ARRVM_RE(z), y = ARRVM_IM(z);
  if (isinf(x) || isinf(y)) {
    const $P im = isnan(x) || isnan(y) ? x + y
                  : !isinf(x)          ? ($P)1.570796326794896619231321691639751442
                  : isinf(y)           ? (x > 0 ? ($P)0.785398163397448309615660845819875721
                                                : ($P)2.356194490192344928846982537459627163)
                  : x > 0              ? ($P)0
                                       : ($P)3.141592653589793238462643383279502884;
    return $C(($P)INFINITY, copysign$F(im, y));
  }
  if (isnan(x) || isnan(y)) /* (glibc: acosh(+-0 + i NaN) = NaN + i pi/2) */
    return $C(x + y, x == 0 ? ($P)1.570796326794896619231321691639751442 : x + y);
  const $T a = arrvm_csqrt$F($C(x - 1, y)), b = arrvm_csqrt$F($C(x + 1, y));
  return $C(asinh$F(ARRVM_RE(a) * ARRVM_RE(b) + ARRVM_IM(a) * ARRVM_IM(b)), 2 * atan2$F(ARRVM_IM(a), ARRVM_RE(b)));
}
static inline $T arrvm_catanh$F($T z) {
  const $P x = ARRVM_RE(z), y = ARRVM_IM(z);
  if (isinf(x) || isinf(y))
    return $C(copysign$F(($P)0, x), isnan(y) ? y : copysign$F(($P)1.570796326794896619231321691639751442, y));
  if (isnan(x) || isnan(y)) return $C(x == 0 ? x : x + y, x + y);
  /* odd: computed at (|x|, +-y), where log1p has no cancellation (no recursion in OpenCL C) */
  const $P s = signbit(x) ? -1 : 1, ax = s * x, ay = s * y, xm = 1 - ax;
  if (ax > ($P)@SQRTBIG@ || fabs$F(ay) > ($P)@SQRTBIG@) { /* 1/z + i pi/2 (the squares would overflow) */
    const $P h = hypot$F(ax, ay);
    return $C(s * (ax / h / h), s * copysign$F(($P)1.570796326794896619231321691639751442, ay));
  }
  return $C(s * (log1p$F(4 * ax / (xm * xm + ay * ay)) / 4), s * (atan2$F(2 * ay, xm * (1 + ax) - ay * ay) / 2));
}
static inline $T arrvm_csin$F($T z) {
  const $T w = arrvm_csinh$F($C(-ARRVM_IM(z), ARRVM_RE(z)));
  return $C(ARRVM_IM(w), -ARRVM_RE(w));
}
static inline $T arrvm_ccos$F($T z) {
  return arrvm_ccosh$F($C(-ARRVM_IM(z), ARRVM_RE(z)));
}
static inline $T arrvm_ctan$F($T z) {
  const $T w = arrvm_ctanh$F($C(-ARRVM_IM(z), ARRVM_RE(z)));
  return $C(ARRVM_IM(w), -ARRVM_RE(w));
}
static inline $T arrvm_catan$F($T z) {
  const $T w = arrvm_catanh$F($C(-ARRVM_IM(z), ARRVM_RE(z)));
  return $C(ARRVM_IM(w), -ARRVM_RE(w));
}
static inline $T arrvm_cpow$F($T a, $T b) {
  const $T l = arrvm_clog$F(a);
  return arrvm_cexp$F($C(ARRVM_RE(b) * ARRVM_RE(l) - ARRVM_IM(b) * ARRVM_IM(l),
                         ARRVM_RE(b) * ARRVM_IM(l) + ARRVM_IM(b) * ARRVM_RE(l)));
}
)";

constexpr const char* kComplexMathNames[] = {"cexp",   "clog",   "csqrt", "csinh", "ccosh",
                                             "ctanh",  "casinh", "casin", "cacos", "cacosh",
                                             "catanh", "csin",   "ccos",  "ctan",  "catan"};

std::string replace_all(std::string s, const std::string& from, const std::string& to) {
  for (std::size_t i = s.find(from); i != std::string::npos; i = s.find(from, i + to.size()))
    s.replace(i, from.size(), to);
  return s;
}

// kComplexMath for complex dtype t, guarded by its own name.
std::string complex_math_of(DType t) {
  const bool f = t == DType::Complex64;
  std::string s = subst(kComplexMath, t);
  // Scaling (csqrt): above BIG, x / 4; below TINY, x * UP and the root
  // * DOWN (= 1 / sqrt(UP)). TANH: where tanh(x) is 1 to the last bit.
  s = replace_all(s, "@BIG@", f ? "8.5e37" : "4.4e307");
  s = replace_all(s, "@TINY@", f ? "4.7e-38" : "8.9e-308");
  s = replace_all(s, "@UP@", f ? "281474976710656.0" : "324518553658426726783156020576256.0");
  s = replace_all(s, "@DOWN@", f ? "5.9604644775390625e-08" : "5.5511151231257827e-17");
  s = replace_all(s, "@TANH@", f ? "9" : "22");
  s = replace_all(s, "@SQRTBIG@", f ? "1e18" : "1e150");
  s = replace_all(s, "@EXPMAX@", f ? "88" : "709");
  const std::string guard = "ARRVM_CMATH_" + std::string(dtype_name(t));
  return "#ifndef " + guard + "\n#define " + guard + "\n" + s + "#endif\n";
}

}  // namespace

std::string complex_cast_body(DType from, DType to) {
  // NumPy's complex conversions, spelled out (C's conversions are the same,
  // OpenCL's 2-vectors have none): a complex to a real type keeps its real
  // part, to bool tests both parts, a real one gets imaginary part 0.
  if (is_complex(from) && is_bool(to)) return "return ARRVM_RE(v) != 0 || ARRVM_IM(v) != 0;";
  if (is_complex(from) && is_complex(to)) return subst("return $C(ARRVM_RE(v), ARRVM_IM(v));", to);
  if (is_complex(from)) return std::string("return (") + c_type(to) + ")ARRVM_RE(v);";
  if (is_bool(from)) return subst("return v ? $C(1, 0) : $C(0, 0);", to);
  // (+0 for an integer's 0: see cast_body in c_emitter.cpp)
  if (is_integer(from)) return subst("const $P r = ($P)v; return $C(r == ($P)0 ? ($P)0 : r, 0);", to);
  return subst("return $C(v, 0);", to);
}

bool uses_complex_math(Opcode op) {
  using O = Opcode;
  switch (op) {
    case O::Sqrt:
    case O::Exp:
    case O::Exp2:
    case O::Log:
    case O::Log2:
    case O::Log10:
    case O::Sin:
    case O::Cos:
    case O::Tan:
    case O::Arcsin:
    case O::Arccos:
    case O::Arctan:
    case O::Sinh:
    case O::Cosh:
    case O::Tanh:
    case O::Arcsinh:
    case O::Arccosh:
    case O::Arctanh:
    case O::Power:
      return true;
    default:
      return false;
  }
}

std::string complex_math_library(DType t) {
  if (t == DType::Complex128) return "#ifdef cl_khr_fp64\n" + complex_math_of(t) + "#endif\n";
  // complex64: in complex128 where the device has doubles (each result
  // then rounds once from a more accurate one), else in float.
  std::string wrappers;
  for (const char* fn : kComplexMathNames) {
    wrappers += std::string("static inline arrvm_complex64 arrvm_") + fn +
                "f(arrvm_complex64 z) { return convert_float2(arrvm_" + fn + "(convert_double2(z))); }\n";
  }
  wrappers +=
      "static inline arrvm_complex64 arrvm_cpowf(arrvm_complex64 a, arrvm_complex64 b) {"
      " return convert_float2(arrvm_cpow(convert_double2(a), convert_double2(b))); }\n";
  return "#ifdef cl_khr_fp64\n" + complex_math_of(DType::Complex128) +
         "#ifndef ARRVM_CMATH_WIDE_complex64\n#define ARRVM_CMATH_WIDE_complex64\n" + wrappers +
         "#endif\n#else\n" + complex_math_of(DType::Complex64) + "#endif\n";
}

}  // namespace arrvm::codegen
