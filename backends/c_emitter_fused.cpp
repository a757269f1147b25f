// emit_fused_c: a fused block (backends/loop_ir.hpp, "Fused blocks") as C
// with OpenMP. The scalar helpers are those of emit_c, so every statement
// computes exactly what ref computes; what differs is the loop nest around
// them: the sweep axis innermost with the reductions' and scans'
// accumulators, gathers and scatters with their bounds checks, and the
// OpenMP schedule.
#include "backends/c_emitter.hpp"

#include <set>
#include <string>
#include <vector>

#include "vm/error.hpp"

namespace arrvm::codegen {

namespace {

bool is_reduce(Opcode op) { return opcode_kind(op) == OpKind::Reduce; }
bool is_scan(Opcode op) { return opcode_kind(op) == OpKind::Accumulate; }

const char* int_limit(DType t, bool max) {
  switch (t) {
    case DType::Int8: return max ? "INT8_MAX" : "INT8_MIN";
    case DType::Int16: return max ? "INT16_MAX" : "INT16_MIN";
    case DType::Int32: return max ? "INT32_MAX" : "INT32_MIN";
    case DType::Int64: return max ? "INT64_MAX" : "INT64_MIN";
    case DType::UInt8: return max ? "UINT8_MAX" : "0";
    case DType::UInt16: return max ? "UINT16_MAX" : "0";
    case DType::UInt32: return max ? "UINT32_MAX" : "0";
    case DType::UInt64: return max ? "UINT64_MAX" : "0";
    default: return max ? "1" : "0";
  }
}

// The value an accumulator starts from. Combining it with the first element
// gives that element bit for bit (-0.0 + x is x for every x, -0.0
// included; 1 * x; minimum(+inf, x); minimum(MAX, x); ...), so a sequential
// sweep equals ref's, which starts from the first element; and it is the
// identity that the private copies of a parallel reduction start from.
std::string start_value(Opcode op, DType t) {
  const bool f = is_float(t);
  switch (op) {
    case Opcode::AddReduce:
    case Opcode::AddAccumulate: return f ? "-0.0" : "0";
    case Opcode::MultiplyReduce:
    case Opcode::MultiplyAccumulate:
    case Opcode::LogicalAndReduce: return "1";
    case Opcode::LogicalOrReduce: return "0";
    case Opcode::MinimumReduce: return f ? "INFINITY" : int_limit(t, true);
    case Opcode::MaximumReduce: return f ? "-INFINITY" : int_limit(t, false);
    default: throw InternalError("c emitter: not a reduction or scan: " + std::string(opcode_name(op)));
  }
}

std::string num(int64_t v) { return std::to_string(v); }

// A statement's operand at loop level `level` (the innermost is the rank).
std::string operand(const Arg& a, int level) {
  switch (a.kind) {
    // (std::string first: "P" + std::string trips GCC 12's -Wrestrict.)
    case ArgKind::View: return std::string("P") + num(a.index) + "[o" + num(a.index) + "_" + num(level) + "]";
    case ArgKind::Temp: return std::string("t") + num(a.index);
    case ArgKind::Const: return std::string("C") + num(a.index);
    case ArgKind::Indexed: break;
  }
  throw InternalError("c emitter: an indexed slot used as a plain operand");
}

// The element offset in indexed slot j (rank r) of flat position x (checked
// to be in range): q = offset, nelem, r sizes, r strides.
std::string indexed_offset(int j, int r, const std::string& x) {
  const std::string q = std::string("q") + num(j);
  if (r == 0) return q + "[0]";
  if (r == 1) return q + "[0] + " + x + " * " + q + "[3]";
  return "arrvm_flat(" + x + ", " + q + ", " + num(r) + ")";
}

const char* kIndexHelpers =
    "static inline int64_t arrvm_flat(int64_t f, const int64_t* q, int r) {\n"
    "  int64_t off = q[0];\n"
    "  for (int d = r - 1; d >= 0; --d) { off += (f % q[2 + d]) * q[2 + r + d]; f /= q[2 + d]; }\n"
    "  return off;\n"
    "}\n"
    // Keeps the bad index at the smallest flat position, the one ref reports.
    "static void arrvm_bad_index(int64_t* e, int64_t f, int64_t x) {\n"
    "#pragma omp critical(arrvm_bad_index)\n"
    "  if (f < e[0]) { e[0] = f; e[1] = x; }\n"
    "}\n";

struct Features {
  bool reduce = false, scan = false, scatter = false, generator = false;
};

Features features_of(const LoopKernel& k) {
  Features s;
  for (const Stmt& st : k.body) {
    s.reduce = s.reduce || is_reduce(st.op);
    s.scan = s.scan || is_scan(st.op);
    s.scatter = s.scatter || st.op == Opcode::Scatter;
    s.generator = s.generator || opcode_kind(st.op) == OpKind::Generator;
  }
  return s;
}

// One statement at the innermost level R. `combine` names the helper of a
// reduction or scan.
std::string statement(const Stmt& st, int R, const LoopKernel& k, const std::string& combine,
                      const std::string& indent) {
  const OpKind kind = opcode_kind(st.op);
  if (kind == OpKind::Reduce || kind == OpKind::Accumulate) {
    const std::string acc = "acc" + num(st.acc), T = c_type(k.accs[st.acc]);
    std::string s = indent + acc + " = (" + T + ")" + combine + "(" + acc + ", " + operand(st.in[0], R) + ");\n";
    if (kind == OpKind::Accumulate) s += indent + operand(st.out, R) + " = " + acc + ";\n";
    return s;
  }
  if (kind == OpKind::Gather) {
    const int j = st.in[0].index, r = k.indexed[j].rank;
    const std::string T = c_type(st.out.dtype);
    return indent + "{ const int64_t x = " + operand(st.in[1], R) + "; " + T + " v = 0;\n" + indent +
           "  if ((uint64_t)x < (uint64_t)N" + num(j) + ") v = Q" + num(j) + "[" + indexed_offset(j, r, "x") +
           "]; else arrvm_bad_index(E + " + num(2 * st.err) + ", f, x);\n" + indent + "  " + operand(st.out, R) +
           " = v; }\n";
  }
  if (kind == OpKind::Scatter) {
    const int j = st.out.index, r = k.indexed[j].rank;
    return indent + "{ const int64_t x = " + operand(st.in[1], R) + ";\n" + indent + "  if ((uint64_t)x < (uint64_t)N" +
           num(j) + ") Q" + num(j) + "[" + indexed_offset(j, r, "x") + "] = " + operand(st.in[0], R) +
           "; else arrvm_bad_index(E + " + num(2 * st.err) + ", f, x); }\n";
  }
  std::string call = scalar_helper_name(st) + "(";
  if (st.op == Opcode::Range) {
    call += "f";
  } else if (st.op == Opcode::Random) {
    call += "C" + num(st.seed_slot) + ", f";
  } else {
    for (int i = 0; i < st.nin; ++i) call += (i ? ", " : "") + operand(st.in[i], R);
  }
  return indent + operand(st.out, R) + " = (" + c_type(st.out.dtype) + ")" + call + ");\n";
}

}  // namespace

std::string emit_fused_c(const LoopKernel& k, const std::string& name, const CDialect& d) {
  const int R = k.rank, A = k.sweep_axis;
  const Features sh = features_of(k);
  const bool indexing = !k.indexed.empty();
  // Loop order: the sweep axis innermost, the others in axis order.
  std::vector<int> order;
  for (int ax = 0; ax < R; ++ax) {
    if (ax != A) order.push_back(ax);
  }
  if (A >= 0) order.push_back(A);
  // A scatter runs in stream order: with duplicate indices the last write
  // wins, as in ref. A reduction to a scalar (rank 1, no scan) is an OpenMP
  // reduction; otherwise the outermost loop that is not the sweep runs in
  // parallel. The innermost loop is `omp simd` when nothing in it carries
  // from one index to the next (no sweep) or may race (no indexing).
  const bool omp = d.openmp && !sh.scatter;
  const bool full_reduction = omp && A >= 0 && R == 1 && !sh.scan;
  const bool parallel_outer = omp && (A < 0 ? R >= 1 : R >= 2);
  const bool simd = d.openmp && A < 0 && !indexing && R >= 1;

  std::string src = d.prelude + scalar_helpers(k.body, d);
  std::vector<std::string> combine(k.body.size());
  std::set<std::string> seen;  // helpers defined (a combine helper may be an elementwise one, e.g. f_add_float64)
  for (const Stmt& st : k.body) {
    const OpKind kind = opcode_kind(st.op);
    if (kind == OpKind::Elementwise || kind == OpKind::Generator) seen.insert(scalar_helper_name(st));
  }
  for (std::size_t s = 0; s < k.body.size(); ++s) {
    const Stmt& st = k.body[s];
    if (st.acc < 0) continue;
    const std::string def = combine_helper(st.op, k.accs[st.acc], d, &combine[s]);
    if (seen.insert(combine[s]).second) src += def;
  }
  if (indexing) src += kIndexHelpers;
  std::string clauses;
  if (full_reduction) {
    for (std::size_t s = 0; s < k.body.size(); ++s) {
      const Stmt& st = k.body[s];
      if (!is_reduce(st.op)) continue;
      const std::string r = "arrvm_r" + num(st.acc);
      src += "#pragma omp declare reduction(" + r + " : " + c_type(k.accs[st.acc]) + " : omp_out = " + combine[s] +
             "(omp_out, omp_in)) initializer(omp_priv = " + start_value(st.op, k.accs[st.acc]) + ")\n";
      clauses += " reduction(" + r + ":acc" + num(st.acc) + ")";
    }
  }

  src += d.kernel_qualifier + "void " + name + "(void** p, const int64_t* a, const uint64_t* c) {\n";
  for (int dd = 0; dd < R; ++dd) src += "  const int64_t n" + num(dd) + " = a[" + num(dd) + "];\n";
  const int nv = static_cast<int>(k.views.size()), ni = static_cast<int>(k.indexed.size());
  for (int v = 0; v < nv; ++v) {
    const std::string vs = num(v), T = c_type(k.views[v]);
    const int64_t at = view_arg_index(R, v);
    src += "  " + T + "* P" + vs + " = (" + T + "*)p[" + vs + "];\n";
    src += "  const int64_t o" + vs + "_0 = a[" + num(at) + "];\n";
    for (int dd = 0; dd < R; ++dd) src += "  const int64_t s" + vs + "_" + num(dd) + " = a[" + num(at + 1 + dd) + "];\n";
  }
  for (int j = 0; j < ni; ++j) {
    const std::string js = num(j), T = c_type(k.indexed[j].dtype);
    src += "  " + T + "* Q" + js + " = (" + T + "*)p[" + num(nv + j) + "];\n";
    src += "  const int64_t* q" + js + " = a + " + num(fused_indexed_arg_index(k, j)) + ";\n";
    src += "  const int64_t N" + js + " = q" + js + "[1];\n";
  }
  if (k.errors > 0) src += "  int64_t* E = (int64_t*)p[" + num(nv + ni) + "];\n";
  for (std::size_t i = 0; i < k.consts.size(); ++i) {
    const std::string is = num(static_cast<int64_t>(i));
    src += std::string("  ") + c_type(k.consts[i]) + " C" + is + "; memcpy(&C" + is + ", &c[" + is + "], sizeof(C" + is +
           "));\n";
  }

  std::string indent = "  ";
  for (int L = 0; L < R; ++L) {
    const int ax = order[L];
    if (A >= 0 && L == R - 1) {  // the sweep: one accumulator per reduction and scan
      for (const Stmt& st : k.body) {
        if (st.acc < 0) continue;
        src += indent + c_type(k.accs[st.acc]) + " acc" + num(st.acc) + " = " + start_value(st.op, k.accs[st.acc]) +
               ";\n";
      }
    }
    if (L == 0 && full_reduction) {
      src += "#pragma omp parallel for" + clauses + " if(a[" + num(R) + "]) schedule(static)\n";
    } else if (L == 0 && parallel_outer) {
      src += simd && R == 1 ? "#pragma omp parallel for simd if(parallel: a[" + num(R) + "]) schedule(static)\n"
                            : "#pragma omp parallel for if(a[" + num(R) + "]) schedule(static)\n";
    } else if (L == R - 1 && simd) {
      src += "#pragma omp simd\n";
    }
    src += indent + "for (int64_t i" + num(ax) + " = 0; i" + num(ax) + " < n" + num(ax) + "; ++i" + num(ax) + ") {\n";
    indent += "  ";
    for (int v = 0; v < nv; ++v) {
      const std::string vs = num(v), prev = "o" + vs + "_" + num(L);
      const uint8_t cls = L == R - 1 && !k.inner.empty() ? k.inner[v] : uint8_t{kAnyInner};
      const std::string step = cls == kUnitInner   ? " + i" + num(ax)
                               : cls == kZeroInner ? ""
                                                   : " + i" + num(ax) + " * s" + vs + "_" + num(ax);
      src += indent + "const int64_t o" + vs + "_" + num(L + 1) + " = " + prev + step + ";\n";
    }
  }
  if (sh.generator || k.errors > 0) {  // the flat row-major position in the iteration shape
    std::string f = R == 0 ? "0" : "i0";
    for (int dd = 1; dd < R; ++dd) f = "(" + f + ") * n" + num(dd) + " + i" + num(dd);
    src += indent + "const int64_t f = " + f + ";\n";
  }
  for (std::size_t t = 0; t < k.temps.size(); ++t) src += indent + c_type(k.temps[t]) + " t" + num(t) + ";\n";
  for (std::size_t s = 0; s < k.body.size(); ++s) src += statement(k.body[s], R, k, combine[s], indent);
  for (int L = R - 1; L >= 0; --L) {
    indent.resize(indent.size() - 2);
    src += indent + "}\n";
    if (A < 0 || L != R - 1) continue;
    // After the sweep: an empty axis gives ref's identity (+0.0, where the
    // start is -0.0), then each reduction writes its output element.
    for (const Stmt& st : k.body) {
      if (!is_reduce(st.op)) continue;
      const std::string acc = "acc" + num(st.acc);
      if (st.op == Opcode::AddReduce && is_float(k.accs[st.acc])) src += indent + "if (n" + num(A) + " == 0) " + acc + " = 0;\n";
      if (st.out.kind == ArgKind::View) src += indent + operand(st.out, R - 1) + " = " + acc + ";\n";
    }
  }
  src += "}\n";
  return src;
}

}  // namespace arrvm::codegen
