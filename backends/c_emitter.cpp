#include "backends/c_emitter.hpp"

#include <set>
#include <string_view>

#include "vm/error.hpp"

namespace arrvm::codegen {

namespace {

std::string name_of(DType t) { return std::string(dtype_name(t)); }

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
      case 'T': out += ct; break;
      case 'U': out += wide; break;
      case 'V': out += narrow; break;
      case 'B': out += std::to_string(size * 8); break;
      case 'F': out += t == DType::Float32 ? "f" : ""; break;
      default: out += '$'; out += text[i];
    }
  }
  return out;
}

const char* limit_min(DType t) {
  switch (t) {
    case DType::Int8: return "INT8_MIN";
    case DType::Int16: return "INT16_MIN";
    case DType::Int32: return "INT32_MIN";
    case DType::Int64: return "INT64_MIN";
    default: return "0";
  }
}

const char* limit_max(DType t) {
  switch (t) {
    case DType::Int8: return "INT8_MAX";
    case DType::Int16: return "INT16_MAX";
    case DType::Int32: return "INT32_MAX";
    case DType::Int64: return "INT64_MAX";
    case DType::UInt8: return "UINT8_MAX";
    case DType::UInt16: return "UINT16_MAX";
    case DType::UInt32: return "UINT32_MAX";
    default: return "UINT64_MAX";
  }
}

const char* libm_name(Opcode op) {
  switch (op) {
    case Opcode::Sqrt: return "sqrt";
    case Opcode::Exp: return "exp";
    case Opcode::Exp2: return "exp2";
    case Opcode::Expm1: return "expm1";
    case Opcode::Log: return "log";
    case Opcode::Log2: return "log2";
    case Opcode::Log10: return "log10";
    case Opcode::Log1p: return "log1p";
    case Opcode::Sin: return "sin";
    case Opcode::Cos: return "cos";
    case Opcode::Tan: return "tan";
    case Opcode::Arcsin: return "asin";
    case Opcode::Arccos: return "acos";
    case Opcode::Arctan: return "atan";
    case Opcode::Sinh: return "sinh";
    case Opcode::Cosh: return "cosh";
    case Opcode::Tanh: return "tanh";
    case Opcode::Floor: return "floor";
    case Opcode::Ceil: return "ceil";
    case Opcode::Trunc: return "trunc";
    case Opcode::Rint: return "nearbyint";  // half to even, as ref
    default: return nullptr;
  }
}

// The body of the helper for elementwise `op` on input dtype t (a, b, c are
// the inputs). Mirrors backends/ref/scalar_ops.hpp.
std::string op_body(Opcode op, DType t) {
  using O = Opcode;
  const bool f = is_float(t), s = is_signed_int(t), b = is_bool(t);
  if (const char* m = libm_name(op)) return subst(std::string("return ") + m + "$F(a);", t);
  switch (op) {
    case O::Add: return f ? "return a + b;" : subst("return ($T)(($U)a + ($U)b);", t);
    case O::Subtract: return f ? "return a - b;" : subst("return ($T)(($U)a - ($U)b);", t);
    case O::Multiply: return f ? "return a * b;" : subst("return ($T)(($U)a * ($U)b);", t);
    case O::Divide:
      if (f) return "return a / b;";
      if (s) {
        return subst("if (b == 0) return 0; if (b == -1) return ($T)(($U)0 - ($U)a);"
                     " $T q = ($T)(a / b); if (($T)(a % b) != 0 && ((a < 0) != (b < 0))) --q; return q;", t);
      }
      return subst("if (b == 0) return 0; return ($T)(a / b);", t);
    case O::Mod:
      if (f) {
        return subst("$T m = fmod$F(a, b); if (b == 0) return m;"
                     " if (m != 0) { if ((b < 0) != (m < 0)) m += b; } else { m = copysign$F(($T)0, b); }"
                     " return m;", t);
      }
      if (s) {
        return subst("if (b == 0 || b == -1) return 0; $T r = ($T)(a % b);"
                     " if (r != 0 && ((r < 0) != (b < 0))) r = ($T)(r + b); return r;", t);
      }
      return subst("if (b == 0) return 0; return ($T)(a % b);", t);
    case O::Power:
      if (f) return subst("return pow$F(a, b);", t);
      return subst(std::string(s ? "if (b < 0) { if (a == 1) return 1; if (a == -1) return (b & 1) ? ($T)-1 : ($T)1;"
                                   " return 0; } "
                                 : "") +
                       "$U result = 1, base = ($U)a; for ($V e = ($V)b; e != 0; e >>= 1) {"
                       " if (e & 1u) result *= base; base *= base; } return ($T)result;",
                   t);
    case O::Maximum: return f ? "return (a >= b || isnan(a)) ? a : b;" : "return a >= b ? a : b;";
    case O::Minimum: return f ? "return (a <= b || isnan(a)) ? a : b;" : "return a <= b ? a : b;";
    case O::Equal: return "return a == b;";
    case O::NotEqual: return "return a != b;";
    case O::Less: return "return a < b;";
    case O::LessEqual: return "return a <= b;";
    case O::Greater: return "return a > b;";
    case O::GreaterEqual: return "return a >= b;";
    case O::LogicalAnd: return "return a && b;";
    case O::LogicalOr: return "return a || b;";
    case O::LogicalXor: return "return a != b;";
    case O::LogicalNot: return "return !a;";
    case O::BitwiseAnd: return b ? "return a && b;" : subst("return ($T)(a & b);", t);
    case O::BitwiseOr: return b ? "return a || b;" : subst("return ($T)(a | b);", t);
    case O::BitwiseXor: return b ? "return a != b;" : subst("return ($T)(a ^ b);", t);
    case O::Invert: return b ? "return !a;" : subst("return ($T)(~($U)a);", t);
    case O::LeftShift:
      return subst(std::string(s ? "if (b < 0) return 0; " : "") + "if (b >= $B) return 0; return ($T)(($U)a << b);", t);
    case O::RightShift:
      if (s) return subst("if (b < 0 || b >= $B) return a < 0 ? ($T)-1 : ($T)0; return ($T)(a >> b);", t);
      return subst("if (b >= $B) return 0; return ($T)(a >> b);", t);
    case O::Negative: return f ? "return -a;" : subst("return ($T)(($U)0 - ($U)a);", t);
    case O::Absolute:
      if (f) return subst("return fabs$F(a);", t);
      return s ? subst("return a < 0 ? ($T)(($U)0 - ($U)a) : a;", t) : "return a;";
    case O::Sign:
      if (f) return subst("if (isnan(a)) return a; return a > 0 ? ($T)1 : (a < 0 ? ($T)-1 : ($T)0);", t);
      return s ? subst("return ($T)((a > 0) - (a < 0));", t) : "return a > 0 ? 1 : 0;";
    case O::Arctan2: return subst("return atan2$F(a, b);", t);
    case O::Isnan: return f ? "return isnan(a) ? 1 : 0;" : "return 0;";
    case O::Isinf: return f ? "return isinf(a) ? 1 : 0;" : "return 0;";
    case O::Isfinite: return f ? "return isfinite(a) ? 1 : 0;" : "return 1;";
    case O::Where: return "return a ? b : c;";
    default: throw InternalError("c emitter: no scalar helper for " + std::string(opcode_name(op)));
  }
}

bool returns_bool(Opcode op) {
  const TypeRule r = opcode_type_rule(op);
  return r == TypeRule::Compare || r == TypeRule::Predicate || r == TypeRule::Logical;
}

// identity: vm/cast.hpp's cast_value<To>(From).
std::string cast_body(DType from, DType to, const CDialect& d) {
  if (is_bool(to)) return "return v != 0;";  // NaN is truthy
  if (is_float(from) && (is_integer(to))) {
    const std::string ld = d.saturate_in_source_type ? c_type(from) : d.long_double ? "long double" : "double";
    return "if (isnan(v)) return 0; " + ld + " x = (" + ld + ")v; if (x <= (" + ld + ")" + limit_min(to) +
           ") return " + limit_min(to) + "; if (x >= (" + ld + ")" + limit_max(to) + ") return " + limit_max(to) +
           "; return (" + c_type(to) + ")v;";
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

std::string random_body(DType t) {
  std::string s =
      "uint32_t r[4] = {(uint32_t)i, (uint32_t)((uint64_t)i >> 32), 0, 0}; arrvm_philox(r, seed);"
      " uint64_t r64 = (uint64_t)r[0] | ((uint64_t)r[1] << 32); (void)r64; ";
  if (is_bool(t)) return s + "return r[0] & 1u;";
  if (t == DType::Float64) return s + "return (double)(r64 >> 11) * 0x1.0p-53;";
  if (t == DType::Float32) return s + "return (float)(r[0] >> 8) * 0x1.0p-24f;";
  if (dtype_size(t) == 8) return s + "return (" + c_type(t) + ")r64;";
  return s + "return (" + c_type(t) + ")r[0];";
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
    return "static inline " + out + " " + name + "(" + c_type(from) + " v) { " + cast_body(from, st.out.dtype, d) +
           " }\n";
  }
  if (st.op == Opcode::Random) {
    return "static inline " + out + " " + name + "(uint64_t seed, int64_t i) { " + random_body(st.out.dtype) + " }\n";
  }
  std::string params;
  const char* names[3] = {"a", "b", "c"};
  for (int k = 0; k < st.nin; ++k) {
    params += std::string(k ? ", " : "") + c_type(st.in[k].dtype) + " " + names[k];
  }
  const DType t = st.op == Opcode::Where ? st.in[1].dtype : st.in[0].dtype;
  const std::string ret = returns_bool(st.op) ? "uint8_t" : c_type(t);
  return "static inline " + ret + " " + name + "(" + params + ") { " + op_body(st.op, t) + " }\n";
}

std::string arg_expr(const Arg& a, int rank) {
  std::string s;
  switch (a.kind) {
    case ArgKind::View:
      s = "P";
      s += std::to_string(a.index);
      s += "[o";
      s += std::to_string(a.index);
      s += "_";
      s += std::to_string(rank);
      s += "]";
      break;
    case ArgKind::Temp:
      s = "t";
      s += std::to_string(a.index);
      break;
    case ArgKind::Const:
      s = "C";
      s += std::to_string(a.index);
      break;
    case ArgKind::Indexed:  // fused kernels only: c_emitter_fused.cpp prints their accesses
      throw InternalError("c emitter: an indexed slot in a plain loop kernel");
  }
  return s;
}

// The kernel's parameter list: `p` (an array of buffer pointers) or, with
// buffer_params, one parameter per buffer.
std::string kernel_params(const std::vector<DType>& buffers, const CDialect& d) {
  if (!d.buffer_params) return "void** p, const int64_t* a, const uint64_t* c";
  const std::string& g = d.global_qualifier;
  std::string s;
  for (std::size_t v = 0; v < buffers.size(); ++v) s += g + c_type(buffers[v]) + "* P" + std::to_string(v) + ", ";
  return s + g + "const int64_t* a, " + g + "const uint64_t* c";
}

// With work_item_first set: opens the work-item loop over the flat indices,
// which defines i0..i{R-1} for the per-dimension code that follows, as the
// loop nest does. Interleaved (GPU): w = first, first + step, ...; the
// indices are the row-major digits of w, decomposed once and advanced by
// the step's digits with carries (no division per element). Chunked (CPU):
// the work item's contiguous range [first, end), as runs along the last
// axis (one division per run), so the inner loop is unit-step.
std::string open_work_item_loop(int R, const CDialect& d) {
  if (R == 0) return "  for (int64_t w = " + d.work_item_first + "; w < 1; w += " + d.work_item_step + ") {\n";
  std::string total, s;
  for (int dd = 0; dd < R; ++dd) total += (dd ? " * n" : "n") + std::to_string(dd);
  s += "  const int64_t total = " + total + ";\n";
  s += "  if (total == 0) return;\n";
  const std::string last = std::to_string(R - 1);
  if (d.work_item_chunks) {
    const std::string& step = d.work_item_step;
    s += "  const int64_t chunk = (total + " + step + " - 1) / " + step + ";\n";
    s += "  const int64_t first = " + d.work_item_first + " * chunk;\n";
    s += "  const int64_t end = total - first < chunk ? total : first + chunk;\n";
    if (R == 1) return s + "  for (int64_t i0 = first; i0 < end; ++i0) {\n";
    s += "  for (int64_t w = first; w < end;) {\n";
    s += "    int64_t rem = w / n" + last + ";\n";
    s += "    const int64_t lo = w - rem * n" + last + ";\n";
    s += "    const int64_t hi = end - w < n" + last + " - lo ? lo + (end - w) : n" + last + ";\n";
    s += "    w += hi - lo;\n";
    for (int dd = R - 2; dd > 0; --dd) {
      const std::string ds = std::to_string(dd);
      s += "    const int64_t i" + ds + " = rem % n" + ds + "; rem /= n" + ds + ";\n";
    }
    s += "    const int64_t i0 = rem;\n";
    return s + "    for (int64_t i" + last + " = lo; i" + last + " < hi; ++i" + last + ") {\n";
  }
  auto digits = [&](const std::string& var, const std::string& value) {
    std::string t = "  int64_t " + var + "0";
    for (int dd = 1; dd < R; ++dd) t += ", " + var + std::to_string(dd);
    t += ";\n  {\n    int64_t rem = " + value + ";\n";
    for (int dd = R - 1; dd > 0; --dd) {
      const std::string ds = std::to_string(dd);
      t += "    " + var + ds + " = rem % n" + ds + "; rem /= n" + ds + ";\n";
    }
    return t + "    " + var + "0 = rem;\n  }\n";
  };
  s += digits("i", d.work_item_first) + digits("d", d.work_item_step);
  // Advance: add the step's digits from the last axis, carrying at most one.
  std::string advance = "w += " + d.work_item_step;
  for (int dd = R - 1; dd >= 0; --dd) {
    const std::string ds = std::to_string(dd);
    advance += ", i" + ds + " += d" + ds;
    if (dd + 1 < R) {
      const std::string inner = std::to_string(dd + 1);
      advance += " + (i" + inner + " >= n" + inner + " ? (i" + inner + " -= n" + inner + ", 1) : 0)";
    }
  }
  return s + "  for (int64_t w = " + d.work_item_first + "; w < total; " + advance + ") {\n";
}

// How many loops open_work_item_loop opens (the braces to close).
int work_item_loop_depth(int R, const CDialect& d) { return d.work_item_chunks && R >= 2 ? 2 : 1; }

}  // namespace

const char* c_type(DType t) {
  switch (t) {
    case DType::Bool: return "uint8_t";
    case DType::Int8: return "int8_t";
    case DType::Int16: return "int16_t";
    case DType::Int32: return "int32_t";
    case DType::Int64: return "int64_t";
    case DType::UInt8: return "uint8_t";
    case DType::UInt16: return "uint16_t";
    case DType::UInt32: return "uint32_t";
    case DType::UInt64: return "uint64_t";
    case DType::Float32: return "float";
    case DType::Float64: return "double";
  }
  return "void";
}

std::string emit_c(const LoopKernel& k, const std::string& name, const CDialect& d) {
  std::string src = d.prelude;
  bool random = false;
  std::set<std::string> seen;
  std::string helpers;
  for (const Stmt& st : k.body) {
    random = random || st.op == Opcode::Random;
    if (seen.insert(helper_name(st)).second) helpers += helper_def(st, d);
  }
  if (random) src += d.guard_helpers ? guarded("arrvm_philox", kPhilox) : std::string(kPhilox);
  src += helpers;
  const int R = k.rank;
  const std::string g = d.global_qualifier;
  src += d.kernel_qualifier + "void " + name + "(" + kernel_params(k.views, d) + ") {\n";
  for (int dd = 0; dd < R; ++dd) src += "  const int64_t n" + std::to_string(dd) + " = a[" + std::to_string(dd) + "];\n";
  for (std::size_t v = 0; v < k.views.size(); ++v) {
    const std::string vs = std::to_string(v);
    const int64_t at = view_arg_index(R, static_cast<int>(v));
    if (!d.buffer_params) {
      src += "  " + g + c_type(k.views[v]) + "* P" + vs + " = (" + g + c_type(k.views[v]) + "*)p[" + vs + "];\n";
    }
    src += "  const int64_t o" + vs + "_0 = a[" + std::to_string(at) + "];\n";
    for (int dd = 0; dd < R; ++dd) {
      src += "  const int64_t s" + vs + "_" + std::to_string(dd) + " = a[" + std::to_string(at + 1 + dd) + "];\n";
    }
  }
  for (std::size_t i = 0; i < k.consts.size(); ++i) {
    const std::string is = std::to_string(i);
    src += std::string("  ") + c_type(k.consts[i]) + " C" + is + "; memcpy(&C" + is + ", &c[" + is + "], sizeof(C" + is +
           "));\n";
  }
  bool flat = false;
  for (const Stmt& st : k.body) flat = flat || opcode_kind(st.op) == OpKind::Generator;
  if (flat) src += "  const int64_t f0 = 0;\n";
  const bool work_items = !d.work_item_first.empty();
  std::string indent(work_items ? 2 + 2 * work_item_loop_depth(R, d) : 2, ' ');
  if (work_items) src += open_work_item_loop(R, d);
  for (int dd = 0; dd < R; ++dd) {
    const std::string ds = std::to_string(dd), next = std::to_string(dd + 1);
    if (dd == 0 && d.openmp) src += "#pragma omp parallel for if(a[" + std::to_string(R) + "]) schedule(static)\n";
    if (!work_items) {
      src += indent + "for (int64_t i" + ds + " = 0; i" + ds + " < n" + ds + "; ++i" + ds + ") {\n";
      indent += "  ";
    }
    for (std::size_t v = 0; v < k.views.size(); ++v) {
      const std::string vs = std::to_string(v);
      src += indent + "const int64_t o" + vs + "_" + next + " = o" + vs + "_" + ds + " + i" + ds + " * s" + vs + "_" +
             ds + ";\n";
    }
    if (flat) src += indent + "const int64_t f" + next + " = f" + ds + " * n" + ds + " + i" + ds + ";\n";
  }
  for (std::size_t t = 0; t < k.temps.size(); ++t) src += indent + c_type(k.temps[t]) + " t" + std::to_string(t) + ";\n";
  for (const Stmt& st : k.body) {
    std::string call = helper_name(st) + "(";
    if (st.op == Opcode::Range) {
      call += "f" + std::to_string(R);
    } else if (st.op == Opcode::Random) {
      call += "C" + std::to_string(st.seed_slot) + ", f" + std::to_string(R);
    } else {
      for (int i = 0; i < st.nin; ++i) call += (i ? ", " : "") + arg_expr(st.in[i], R);
    }
    src += indent + arg_expr(st.out, R) + " = (" + c_type(st.out.dtype) + ")" + call + ");\n";
  }
  for (int dd = work_items ? work_item_loop_depth(R, d) - 1 : R - 1; dd >= 0; --dd) {
    indent.resize(indent.size() - 2);
    src += indent + "}\n";
  }
  src += "}\n";
  return src;
}

std::string emit_sweep_c(const SweepKernel& k, const std::string& name, const CDialect& d) {
  Stmt combine;  // the elementwise opcode whose helper combines two elements
  switch (k.op) {
    case Opcode::AddReduce: case Opcode::AddAccumulate: combine.op = Opcode::Add; break;
    case Opcode::MultiplyReduce: case Opcode::MultiplyAccumulate: combine.op = Opcode::Multiply; break;
    case Opcode::MinimumReduce: combine.op = Opcode::Minimum; break;
    case Opcode::MaximumReduce: combine.op = Opcode::Maximum; break;
    case Opcode::LogicalAndReduce: combine.op = Opcode::LogicalAnd; break;
    case Opcode::LogicalOrReduce: combine.op = Opcode::LogicalOr; break;
    default: throw InternalError("c emitter: not a reduction or scan: " + std::string(opcode_name(k.op)));
  }
  // Identity for an empty axis (min/max over an empty axis never get here).
  const char* identity = (combine.op == Opcode::Multiply || combine.op == Opcode::LogicalAnd) ? "1" : "0";
  const bool scan = opcode_kind(k.op) == OpKind::Accumulate;
  combine.nin = 2;
  combine.in[0] = combine.in[1] = Arg{ArgKind::View, 0, k.dtype};
  combine.out = Arg{ArgKind::View, 0, combine.op == Opcode::LogicalAnd || combine.op == Opcode::LogicalOr ? DType::Bool : k.dtype};
  const std::string T = c_type(k.dtype), g = d.global_qualifier;
  const int R = k.rank;
  std::string src = d.prelude + helper_def(combine, d);
  src += d.kernel_qualifier + "void " + name + "(" + kernel_params({k.dtype, k.dtype}, d) + ") {\n";
  for (int dd = 0; dd < R; ++dd) src += "  const int64_t n" + std::to_string(dd) + " = a[" + std::to_string(dd) + "];\n";
  src += "  const int64_t len = a[" + std::to_string(R + 1) + "];\n";
  for (int v = 0; v < 2; ++v) {
    const std::string vs = std::to_string(v);
    const int64_t at = sweep_arg_index(R, v);
    if (!d.buffer_params) src += "  " + g + T + "* P" + vs + " = (" + g + T + "*)p[" + vs + "];\n";
    src += "  const int64_t o" + vs + "_0 = a[" + std::to_string(at) + "];\n";
    for (int dd = 0; dd <= R; ++dd) {
      src += "  const int64_t s" + vs + "_" + std::to_string(dd) + " = a[" + std::to_string(at + 1 + dd) + "];\n";
    }
  }
  const bool work_items = !d.work_item_first.empty();
  std::string indent(work_items ? 2 + 2 * work_item_loop_depth(R, d) : 2, ' ');
  if (work_items) src += open_work_item_loop(R, d);
  for (int dd = 0; dd < R; ++dd) {
    const std::string ds = std::to_string(dd), next = std::to_string(dd + 1);
    if (dd == 0 && d.openmp) src += "#pragma omp parallel for if(a[" + std::to_string(R) + "]) schedule(static)\n";
    if (!work_items) {
      src += indent + "for (int64_t i" + ds + " = 0; i" + ds + " < n" + ds + "; ++i" + ds + ") {\n";
      indent += "  ";
    }
    for (int v = 0; v < 2; ++v) {
      const std::string vs = std::to_string(v);
      src += indent + "const int64_t o" + vs + "_" + next + " = o" + vs + "_" + ds + " + i" + ds + " * s" + vs + "_" + ds +
             ";\n";
    }
  }
  const std::string o = "o0_" + std::to_string(R), i = "o1_" + std::to_string(R), so = "s0_" + std::to_string(R),
                    si = "s1_" + std::to_string(R);
  const std::string f = helper_name(combine);
  if (scan) {
    src += indent + "if (len > 0) { " + T + " acc = P1[" + i + "]; P0[" + o + "] = acc;\n";
    src += indent + "  for (int64_t k = 1; k < len; ++k) { acc = (" + T + ")" + f + "(acc, P1[" + i + " + k * " + si +
           "]); P0[" + o + " + k * " + so + "] = acc; } }\n";
  } else if (R == 0 && d.openmp && !(is_float(k.dtype) && (k.op == Opcode::MinimumReduce || k.op == Opcode::MaximumReduce))) {
    // A full reduction: an OpenMP reduction clause when the launch asks for
    // parallelism (exact for integers and bools, whose combining is
    // associative in wrapping unsigned arithmetic; a different but
    // equally valid rounding order for floats), else the sequential sweep.
    const bool logical = combine.op == Opcode::LogicalAnd || combine.op == Opcode::LogicalOr;
    std::string wt = T, clause, update;
    const std::string x = "P1[" + i + " + k * " + si + "]";
    if (combine.op == Opcode::Minimum || combine.op == Opcode::Maximum) {
      clause = combine.op == Opcode::Minimum ? "min" : "max";
      update = "part = (" + T + ")" + f + "(part, " + x + ");";
    } else if (logical) {
      wt = "int";
      clause = combine.op == Opcode::LogicalAnd ? "&&" : "||";
      update = "part = part " + clause + " " + x + ";";
    } else {
      if (!is_float(k.dtype)) wt = dtype_size(k.dtype) <= 4 ? "uint32_t" : "uint64_t";
      clause = combine.op == Opcode::Add ? "+" : "*";
      update = "part = part " + clause + " (" + wt + ")" + x + ";";
    }
    src += indent + T + " acc = " + identity + ";\n";
    src += indent + "if (len > 0) { acc = P1[" + i + "];\n";
    src += indent + "  if (a[0]) { " + wt + " part = (" + wt + ")acc;\n";
    src += "#pragma omp parallel for reduction(" + clause + ":part) schedule(static)\n";
    src += indent + "    for (int64_t k = 1; k < len; ++k) " + update + "\n";
    src += indent + "    acc = (" + T + ")part;\n";
    src += indent + "  } else {\n";
    src += indent + "    for (int64_t k = 1; k < len; ++k) acc = (" + T + ")" + f + "(acc, " + x + "); } }\n";
    src += indent + "P0[" + o + "] = acc;\n";
  } else {
    src += indent + T + " acc = " + identity + ";\n";
    src += indent + "if (len > 0) { acc = P1[" + i + "];\n";
    src += indent + "  for (int64_t k = 1; k < len; ++k) acc = (" + T + ")" + f + "(acc, P1[" + i + " + k * " + si + "]); }\n";
    src += indent + "P0[" + o + "] = acc;\n";
  }
  for (int dd = work_items ? work_item_loop_depth(R, d) - 1 : R - 1; dd >= 0; --dd) {
    indent.resize(indent.size() - 2);
    src += indent + "}\n";
  }
  src += "}\n";
  return src;
}

std::string combine_helper(Opcode op, DType t, const CDialect& d, std::string* name) {
  Stmt combine;
  switch (op) {
    case Opcode::AddReduce: case Opcode::AddAccumulate: combine.op = Opcode::Add; break;
    case Opcode::MultiplyReduce: case Opcode::MultiplyAccumulate: combine.op = Opcode::Multiply; break;
    case Opcode::MinimumReduce: combine.op = Opcode::Minimum; break;
    case Opcode::MaximumReduce: combine.op = Opcode::Maximum; break;
    case Opcode::LogicalAndReduce: combine.op = Opcode::LogicalAnd; break;
    case Opcode::LogicalOrReduce: combine.op = Opcode::LogicalOr; break;
    default: throw InternalError("c emitter: not a reduction or scan: " + std::string(opcode_name(op)));
  }
  combine.nin = 2;
  combine.in[0] = combine.in[1] = Arg{ArgKind::View, 0, t};
  combine.out = Arg{ArgKind::View, 0, combine.op == Opcode::LogicalAnd || combine.op == Opcode::LogicalOr ? DType::Bool : t};
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
    if (seen.insert(helper_name(st)).second) helpers += helper_def(st, d);
  }
  return (random ? std::string(kPhilox) : std::string()) + helpers;
}

std::string scalar_helper_name(const Stmt& st) { return helper_name(st); }

}  // namespace arrvm::codegen
