// The pieces of C text and the kernel predicates that CPrinter
// (backends/c_printer.cpp) and the device printers print with:
// backends/c_printer_parts.hpp.
#include "backends/c_printer_parts.hpp"

#include <algorithm>
#include <string>
#include <vector>

#include "vm/error.hpp"

namespace arrvm::codegen::c_text {

std::string num(int64_t v) {
  return std::to_string(v);
}

bool is_reduce(Opcode op) {
  return opcode_kind(op) == OpKind::Reduce;
}

// The value an accumulator starts from. Combining it with the first element
// gives that element bit for bit (-0.0 + x is x for every x, -0.0
// included; 1 * x; minimum(+inf, x); minimum(MAX, x); ...), so a sequential
// sweep equals ref's, which starts from the first element; and it is the
// identity that the private copies of a parallel reduction start from.
std::string start_value(Opcode op, DType t) {
  const bool f = is_float(t);
  if (is_complex(t)) {  // the part type's start value for both parts, but a product's (1, +0)
    const std::string p = c_type(real_dtype(t));
    const std::string part = start_value(op, real_dtype(t));
    const bool product = op == Opcode::MultiplyReduce || op == Opcode::MultiplyAccumulate;
    return std::string(c_type(t)) + "_of((" + p + ")" + part + ", (" + p + ")" + (product ? "0" : part) + ")";
  }
  switch (op) {
    case Opcode::AddReduce:
    case Opcode::AddAccumulate:
      return f ? "-0.0" : "0";
    case Opcode::MultiplyReduce:
    case Opcode::MultiplyAccumulate:
    case Opcode::LogicalAndReduce:
      return "1";
    case Opcode::LogicalOrReduce:
      return "0";
    case Opcode::MinimumReduce:
    case Opcode::MinimumAccumulate:
      return f ? "INFINITY" : c_limit(t, true);
    case Opcode::MaximumReduce:
    case Opcode::MaximumAccumulate:
      return f ? "-INFINITY" : c_limit(t, false);
    default:
      throw InternalError("c printer: not a reduction or scan: " + std::string(opcode_name(op)));
  }
}

// A statement's operand at loop level `level` (the innermost is the rank).
std::string operand(const Arg& a, int level) {
  switch (a.kind) {
    // (std::string first: "P" + std::string trips GCC 12's -Wrestrict.)
    case ArgKind::View:
      return std::string("P") + num(a.index) + "[o" + num(a.index) + "_" + num(level) + "]";
    case ArgKind::Temp:
      return std::string("t") + num(a.index);
    case ArgKind::Const:
      return std::string("C") + num(a.index);
    case ArgKind::Indexed:
      break;
  }
  throw InternalError("c printer: an indexed slot used as a plain operand");
}

// The element offset in indexed slot j (rank r) of flat position x (checked
// to be in range): q = offset, nelem, r sizes, r strides.
std::string indexed_offset(int j, int r, const std::string& x) {
  const std::string q = std::string("q") + num(j);
  if (r == 0) return q + "[0]";
  if (r == 1) return q + "[0] + " + x + " * " + q + "[3]";
  return "arrvm_flat(" + x + ", " + q + ", " + num(r) + ")";
}

bool is_sweep_loop(LoopKind kind) {
  return kind == LoopKind::Sweep || kind == LoopKind::ParallelSweep || kind == LoopKind::GroupTree;
}

// Whether any slot of the kernel holds a complex dtype.
bool has_complex(const LoopKernel& k) {
  auto any = [](const std::vector<DType>& v) { return std::any_of(v.begin(), v.end(), is_complex); };
  return any(k.views) || any(k.temps) || any(k.accs) || any(k.consts) ||
         std::any_of(k.indexed.begin(), k.indexed.end(),
                     [](const IndexedSlot& s) { return is_complex(s.dtype); });
}

bool scalar_complex(const LoopKernel& k) {
  if (!has_complex(k)) return false;
  for (const Stmt& st : k.body) {
    bool complex = is_complex(st.out.dtype);
    for (int i = 0; i < st.nin; ++i) complex = complex || is_complex(st.in[i].dtype);
    if (!complex) continue;
    // (A conversion between precisions stays scalar: GCC 12's SLP
    // vectorizer once dropped complex128 -> complex64's rounding.)
    if (st.op == Opcode::Identity && st.in[0].dtype != st.out.dtype) return true;
    switch (st.op) {
      case Opcode::Identity:
      case Opcode::Add:
      case Opcode::Subtract:
      case Opcode::Negative:
      case Opcode::Absolute:
      case Opcode::Imag:
      case Opcode::Conjugate:
      case Opcode::Where:
      case Opcode::Equal:
      case Opcode::NotEqual:
      case Opcode::Less:
      case Opcode::LessEqual:
      case Opcode::Greater:
      case Opcode::GreaterEqual:
      case Opcode::Isnan:
      case Opcode::Isinf:
      case Opcode::Isfinite:
        break;
      default:
        return true;
    }
  }
  return false;
}

bool simd_sweep(const LoopKernel& k) {
  if (k.counters > 0 || k.errors > 0 || !k.indexed.empty() || has_complex(k)) return false;
  bool reduces = false;
  for (const Stmt& st : k.body) {
    const OpKind kind = opcode_kind(st.op);
    if (st.depth != 0 || st.op == Opcode::Random) return false;
    if (kind != OpKind::Elementwise && kind != OpKind::Generator && kind != OpKind::Reduce) return false;
    reduces = reduces || kind == OpKind::Reduce;
  }
  return reduces;
}

std::string reduction_clauses(const LoopKernel& k) {
  std::string clauses;
  for (const Stmt& st : k.body) {
    if (is_reduce(st.op)) clauses += " reduction(arrvm_r" + num(st.acc) + ":acc" + num(st.acc) + ")";
  }
  return clauses;
}

// Whether `k` is a row program (Stmt::segment).
bool segmented(const LoopKernel& k) {
  return std::any_of(k.body.begin(), k.body.end(), [](const Stmt& st) { return st.segment > 0; });
}

bool has_loop(const LoopKernel& k, LoopKind kind) {
  return std::any_of(k.loops.begin(), k.loops.end(), [&](const Loop& l) { return l.kind == kind; });
}

// The `for` line of loop `l` (a SharedSimd loop runs over this thread's share).
std::string for_line(const Loop& l) {
  const std::string i = "i" + num(l.axis);
  const bool shared = l.kind == LoopKind::SharedSimd;
  return "for (int64_t " + i + " = " + (shared ? "arrvm_lo" : "0") + "; " + i + " < " +
         (shared ? "arrvm_hi" : "n" + num(l.axis)) + "; ++" + i + ") {";
}

// The seed slots of a kernel's random statements: one Philox memo each
// under CDialect::chunked_random (arrvm_rm<slot>).
std::vector<int> random_memos(const LoopKernel& k) {
  std::vector<int> slots;
  for (const Stmt& st : k.body) {
    if (st.op == Opcode::Random && std::find(slots.begin(), slots.end(), st.seed_slot) == slots.end())
      slots.push_back(st.seed_slot);
  }
  return slots;
}

// A rank-1 kernel with `random` under chunked_random runs over aligned
// groups of 16 elements: per group, each random statement's 16 values come
// from one arrvm_philox8 (fill_random_*), then a plain loop over the group's
// elements reads them. That loop carries no memo, so gcc vectorizes it
// (monte_carlo_pi's kernel: two randoms, squares, sqrt, compare, count:
// 59 -> 38 ms per 10^7 elements); the values are the memo's, bit for bit.
// Rank 1 only: there the groups are whole (a row of another kernel may hold
// a few elements of a group, and the memo serves the next row from the same
// blocks).
bool blocked_random(const LoopKernel& k, const CDialect& d) {
  if (!d.chunked_random || k.rank != 1 || !k.indexed.empty() || k.counters > 0) return false;
  const LoopKind kind = k.loops[0].kind;
  if (kind != LoopKind::Parallel && kind != LoopKind::ParallelSweep && kind != LoopKind::Serial &&
      kind != LoopKind::Sweep) {
    return false;
  }
  return std::any_of(k.body.begin(), k.body.end(), [](const Stmt& st) { return st.op == Opcode::Random; });
}

// How a loop of `kind` is printed under CDialect::serial: without its
// parallel region.
LoopKind serial_kind(LoopKind kind) {
  switch (kind) {
    case LoopKind::Parallel:
      return LoopKind::Serial;
    case LoopKind::ParallelSimd:
      return LoopKind::Simd;
    case LoopKind::ParallelSweep:
      return LoopKind::Sweep;
    default:
      return kind;
  }
}

// The loop without `omp simd` (complex kernels: see CPrinter::print).
LoopKind scalar_kind(LoopKind kind) {
  switch (kind) {
    case LoopKind::ParallelSimd:
      return LoopKind::Parallel;
    case LoopKind::Simd:
    case LoopKind::SharedSimd:
      return LoopKind::Serial;
    default:
      return kind;
  }
}

}  // namespace arrvm::codegen::c_text
