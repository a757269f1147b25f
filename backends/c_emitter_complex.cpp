#include "backends/c_emitter.hpp"

#include "vm/error.hpp"

// The scalar helpers of complex dtypes (split from c_emitter.cpp):
// backends/ref/complex_ops.hpp written in C.
namespace arrvm::codegen {

namespace {

// NumPy's lexicographic comparisons of complex x and y (ref's cplx::lt ...),
// as C expressions; `rel` is <, <=, > or >=.
std::string complex_order(const std::string& rel, const std::string& x, const std::string& y) {
  const std::string xr = "__real__ " + x, xi = "__imag__ " + x, yr = "__real__ " + y, yi = "__imag__ " + y;
  const std::string strict = rel.substr(0, 1);
  return "((" + xr + " " + strict + " " + yr + " && !isnan(" + xi + ") && !isnan(" + yi + ")) || (" + xr +
         " == " + yr + " && " + xi + " " + rel + " " + yi + "))";
}

}  // namespace

// The helpers of complex dtypes: backends/ref/complex_ops.hpp in C (the
// C99 complex types, parts through GCC's __real__/__imag__, built with
// __builtin_complex; the C library's complex functions as GCC's builtins).
std::string complex_op_body(Opcode op, DType t) {
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
  if (fn != nullptr) return subst(std::string("return __builtin_") + fn + "$F(a);", t);
  const std::string mul =
      "__builtin_complex(__real__ x * __real__ y - __imag__ x * __imag__ y,"
      " __real__ x * __imag__ y + __imag__ x * __real__ y)";
  switch (op) {
    case O::Add:
      return "return a + b;";
    case O::Subtract:
      return "return a - b;";
    case O::Multiply:
      return subst("const $T x = a, y = b; return " + mul + ";", t);
    case O::Divide:
      return subst(
          "const $P ar = __real__ a, ai = __imag__ a, br = __real__ b, bi = __imag__ b;"
          " const $P abr = fabs$F(br), abi = fabs$F(bi);"
          " if (abr >= abi) { if (abr == 0 && abi == 0) return __builtin_complex(ar / abr, ai / abr);"
          " const $P rat = bi / br, scl = ($P)1 / (br + bi * rat);"
          " return __builtin_complex((ar + ai * rat) * scl, (ai - ar * rat) * scl); }"
          " const $P rat = br / bi, scl = ($P)1 / (bi + br * rat);"
          " return __builtin_complex((ar * rat + ai) * scl, (ai * rat - ar) * scl);",
          t);
    case O::Power:
      return subst(
          "const $P br = __real__ b, bi = __imag__ b;"
          " if (br == 0 && bi == 0) return __builtin_complex(($P)1, ($P)0);"
          " if (__real__ a == 0 && __imag__ a == 0) { if (br > 0) return __builtin_complex(($P)0, ($P)0);"
          " volatile $P z = ($P)INFINITY; z = z - ($P)INFINITY; return __builtin_complex(($P)NAN, ($P)NAN); }"
          " if (bi == 0 && br > -100 && br < 100 && ($P)(long)br == br) { long n = (long)br; $T x, y;"
          " if (n == 1) return a; if (n == 2) { x = a; y = a; return " +
              mul +
              "; }"
              " if (n == 3) { x = a; y = a; const $T sq = " +
              mul + "; x = a; y = sq; return " + mul +
              "; }"
              " $T acc = __builtin_complex(($P)1, ($P)0), p = a; if (n < 0) n = -n;"
              " for (long mask = 1;; mask <<= 1) { if (n & mask) { x = acc; y = p; acc = " +
              mul +
              "; }"
              " if (n < (mask << 1)) break; x = p; y = p; p = " +
              mul +
              "; }"
              " if (br >= 0) return acc; const $P abr = fabs$F(__real__ acc), abi = fabs$F(__imag__ acc);"
              " if (abr >= abi) { if (abr == 0 && abi == 0) return __builtin_complex(($P)1 / abr, ($P)0 / "
              "abr);"
              " const $P rat = __imag__ acc / __real__ acc, scl = ($P)1 / (__real__ acc + __imag__ acc * "
              "rat);"
              " return __builtin_complex((($P)1 + ($P)0 * rat) * scl, (($P)0 - ($P)1 * rat) * scl); }"
              " const $P rat = __real__ acc / __imag__ acc, scl = ($P)1 / (__imag__ acc + __real__ acc * "
              "rat);"
              " return __builtin_complex((($P)1 * rat + ($P)0) * scl, (($P)0 * rat - ($P)1) * scl); }"
              " return __builtin_cpow$F(a, b);",
          t);
    case O::Maximum:
      return "return (isnan(__real__ a) || isnan(__imag__ a) || " + complex_order(">=", "a", "b") +
             ") ? a : b;";
    case O::Minimum:
      return "return (isnan(__real__ a) || isnan(__imag__ a) || " + complex_order("<=", "a", "b") +
             ") ? a : b;";
    case O::Equal:
      return "return a == b;";
    case O::NotEqual:
      return "return a != b;";
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
      return subst("return hypot$F(__real__ a, __imag__ a);", t);
    case O::Sign:
      return subst("const $T z = __builtin_complex(($P)0, ($P)0); return __builtin_complex(" +
                       complex_order(">", "a", "z") + " ? ($P)1 : " + complex_order("<", "a", "z") +
                       " ? ($P)-1 : a == z ? ($P)0 : ($P)NAN, ($P)0);",
                   t);
    case O::Exp2:
      return subst(
          "const $P l = ($P)0.693147180559945309417232121458176568;"
          " return __builtin_cexp$F(__builtin_complex(__real__ a * l, __imag__ a * l));",
          t);
    case O::Expm1:
      return subst(
          "const $P h = sin$F(__imag__ a / 2);"
          " return __builtin_complex(expm1$F(__real__ a) * cos$F(__imag__ a) - 2 * h * h,"
          " exp$F(__real__ a) * sin$F(__imag__ a));",
          t);
    case O::Log2:
    case O::Log10:
      return subst(
          std::string("const $P k = ($P)") +
              (op == O::Log2 ? "1.442695040888963407359924681001892137"
                             : "0.434294481903251827651128918916605082") +
              "; const $T l = __builtin_clog$F(a); return __builtin_complex(__real__ l * k, __imag__ l * k);",
          t);
    case O::Log1p:
      return subst(
          "const $P l = hypot$F(__real__ a + 1, __imag__ a);"
          " return __builtin_complex(log$F(l), atan2$F(__imag__ a, __real__ a + 1));",
          t);
    case O::Rint:
      return subst("return __builtin_complex(nearbyint$F(__real__ a), nearbyint$F(__imag__ a));", t);
    case O::Isnan:
      return "return isnan(__real__ a) || isnan(__imag__ a) ? 1 : 0;";
    case O::Isinf:
      return "return isinf(__real__ a) || isinf(__imag__ a) ? 1 : 0;";
    case O::Isfinite:
      return "return isfinite(__real__ a) && isfinite(__imag__ a) ? 1 : 0;";
    case O::Where:
      return "return a ? b : c;";
    case O::Imag:
      return "return __imag__ a;";
    case O::Conjugate:
      return "return __builtin_complex(__real__ a, -__imag__ a);";
    default:
      throw InternalError("c emitter: no complex helper for " + std::string(opcode_name(op)));
  }
}

}  // namespace arrvm::codegen
