// CPrinter: a lowered kernel as C with OpenMP. Top-down: helpers, the
// signature, the launch arguments, the loop nest (kernel.loops, each with
// the offsets of the view slots at its level), the statements, then the
// loops closed again, each reduction writing its output after the sweep.
#include "backends/c_printer.hpp"

#include "backends/c_printer_parts.hpp"

#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "vm/error.hpp"

namespace arrvm::codegen {

using namespace c_text;  // (the pieces: backends/c_printer_parts.hpp)

void Writer::line(const std::string& text) {
  out_.append(2 * static_cast<std::size_t>(depth_), ' ');
  out_ += text;
  out_ += '\n';
}

void Writer::open(const std::string& text) {
  line(text);
  ++depth_;
}

void Writer::close(const std::string& text) {
  --depth_;
  line(text);
}

std::vector<int> slot_domains(const LoopKernel& k) {
  std::vector<int> d(k.views.size(), -1);
  for (const Stmt& st : k.body) {
    const int own = st.counter >= 0 ? st.counter : st.domain;
    if (st.out.kind == ArgKind::View) d[st.out.index] = own;
    for (int j = 0; j < st.nin; ++j) {
      // (A slot read in two domains is a broadcast: its index does not matter.)
      if (st.in[j].kind == ArgKind::View && st.domain >= 0) d[st.in[j].index] = st.domain;
    }
  }
  return d;
}

CPrinter::CPrinter(CDialect dialect) : dialect_(std::move(dialect)) {}

std::vector<std::string> CPrinter::combine_names(const LoopKernel& k) const {
  std::vector<std::string> names(k.body.size());
  for (std::size_t s = 0; s < k.body.size(); ++s) {
    if (k.body[s].acc >= 0) combine_helper(k.body[s].op, k.accs[k.body[s].acc], dialect_, &names[s]);
  }
  return names;
}

std::string CPrinter::index_helpers() const {
  return "static inline int64_t arrvm_flat(int64_t f, const int64_t* q, int r) {\n"
         "  int64_t off = q[0];\n"
         "  for (int d = r - 1; d >= 0; --d) { off += (f % q[2 + d]) * q[2 + r + d]; f /= q[2 + d]; }\n"
         "  return off;\n"
         "}\n"
         // Keeps the bad index at the smallest flat position, the one ref reports.
         "static void arrvm_bad_index(int64_t* e, int64_t f, int64_t x) {\n"
         "#pragma omp critical(arrvm_bad_index)\n"
         "  if (f < e[0]) { e[0] = f; e[1] = x; }\n"
         "}\n";
}

std::string CPrinter::counter_result(int c) const {
  return "K[" + num(c) + "] = c" + num(c) + ";";
}

std::string CPrinter::bad_index(const LoopKernel&, int err) const {
  return "arrvm_bad_index(E + " + num(2 * err) + ", f, x)";
}

std::string CPrinter::convert(DType to, DType from, const std::string& x) const {
  if (dialect_.complex_library || to == from || !is_complex(to) || !is_complex(from)) return x;
  return std::string(to == DType::Complex64 ? "convert_float2(" : "convert_double2(") + x + ")";
}

void CPrinter::helpers(Writer& w, const LoopKernel& k) const {
  w.raw(dialect_.prelude);
  if (has_complex(k)) w.raw(dialect_.complex_prelude);
  // A kernel whose complex statements may multiply parts is compiled
  // without the vectorizer (and without `omp simd`, which would force it
  // back on): scalar_complex.
  if (scalar_complex(k) && dialect_.kernel_qualifier.empty())
    w.raw("#pragma GCC optimize (\"no-tree-vectorize\")\n");
  w.raw(scalar_helpers(k.body, dialect_));
  std::set<std::string> seen;  // a combine helper may be an elementwise one, e.g. f_add_float64
  for (const Stmt& st : k.body) {
    const OpKind kind = opcode_kind(st.op);
    if (kind == OpKind::Elementwise || kind == OpKind::Generator) seen.insert(scalar_helper_name(st));
  }
  const std::vector<std::string> combine = combine_names(k);
  for (std::size_t s = 0; s < k.body.size(); ++s) {
    const Stmt& st = k.body[s];
    if (st.acc < 0 || !seen.insert(combine[s]).second) continue;
    std::string name;
    w.raw(combine_helper(st.op, k.accs[st.acc], dialect_, &name));
  }
  if (!k.indexed.empty()) w.raw(guard_helper("arrvm_index", index_helpers(), dialect_));
  if (has_loop(k, LoopKind::SharedSimd) && !dialect_.serial)
    w.raw("#ifdef _OPENMP\n#include <omp.h>\n#endif\n");
  reduction_declarations(w, k, combine);
}

void CPrinter::reduction_declarations(Writer& w, const LoopKernel& k,
                                      const std::vector<std::string>& combine) const {
  if (k.loops.empty()) return;
  // (A row program's segments decide one by one: declare for all.)
  const bool simd =
      (simd_sweep(k) && is_sweep_loop(k.loops.back().kind)) || (segmented(k) && !has_complex(k));
  if (k.loops[0].kind != LoopKind::ParallelSweep && !simd) return;
  for (std::size_t s = 0; s < k.body.size(); ++s) {
    const Stmt& st = k.body[s];
    if (!is_reduce(st.op)) continue;
    w.raw("#pragma omp declare reduction(arrvm_r" + num(st.acc) + " : " + c_type(k.accs[st.acc]) +
          " : omp_out = " + combine[s] +
          "(omp_out, omp_in)) initializer(omp_priv = " + start_value(st.op, k.accs[st.acc]) + ")\n");
  }
}

void CPrinter::reduction_result(Writer& w, const LoopKernel& k, const Stmt& st,
                                const std::string& acc) const {
  if (st.out.kind == ArgKind::View)
    w.line(operand(st.out, k.rank - 1) + " = " + convert(st.out.dtype, k.accs[st.acc], acc) + ";");
}

void CPrinter::signature(Writer& w, const LoopKernel& k, const std::string& name) const {
  w.open(dialect_.kernel_qualifier + "void " + name + "(void** p, const int64_t* a, const uint64_t* c) {");
  const int nv = static_cast<int>(k.views.size()), ni = static_cast<int>(k.indexed.size());
  for (int v = 0; v < nv; ++v) {
    const std::string T = c_type(k.views[v]);
    w.line(T + "* P" + num(v) + " = (" + T + "*)p[" + num(v) + "];");
  }
  for (int j = 0; j < ni; ++j) {
    const std::string T = c_type(k.indexed[j].dtype);
    w.line(T + "* Q" + num(j) + " = (" + T + "*)p[" + num(nv + j) + "];");
  }
  if (k.errors > 0) w.line("int64_t* E = (int64_t*)p[" + num(nv + ni) + "];");
  if (k.counters > 0) w.line("int64_t* K = (int64_t*)p[" + num(nv + ni + (k.errors > 0)) + "];");
}

void CPrinter::before_loops(Writer&, const LoopKernel&) const {}

void CPrinter::offsets(Writer& w, const LoopKernel& k, int level, int axis) const {
  const int R = k.rank;
  const std::vector<int> domain = slot_domains(k);
  for (std::size_t v = 0; v < k.views.size(); ++v) {
    const std::string vs = num(static_cast<int64_t>(v)), ax = num(axis);
    const uint8_t cls = level == R - 1 && !k.inner.empty() ? k.inner[v] : uint8_t{kAnyInner};
    // A slot of a length class is indexed by its compress's count.
    const std::string i = domain[v] >= 0 ? std::string("c") + num(domain[v]) : std::string("i") + ax;
    const std::string step = cls == kUnitInner   ? " + " + i
                             : cls == kZeroInner ? ""
                                                 : " + " + i + " * s" + vs + "_" + ax;
    w.line("const int64_t o" + vs + "_" + num(level + 1) + " = o" + vs + "_" + num(level) + step + ";");
  }
}

int CPrinter::open_loops(Writer& w, const LoopKernel& k, int first, int* braces) const {
  const Loop& l = k.loops[first];
  // a[rank] threads: a team of that many when > 1 (cpu_backend.cpp, Threads).
  const std::string nt = "a[" + num(k.rank) + "]";
  const std::string threads = " num_threads(" + nt + " > 1 ? (int)" + nt + " : 1)";
  // Each thread its own copy of the random memos (declared before the loops).
  std::string own;
  const bool blocked = blocked_random(k, dialect_);
  if (dialect_.chunked_random && !blocked) {
    for (int slot : random_memos(k))
      own += (own.empty() ? " firstprivate(arrvm_rm" : ", arrvm_rm") + num(slot);
    if (!own.empty()) own += ")";
  }
  LoopKind kind = dialect_.serial ? serial_kind(l.kind) : l.kind;
  if (scalar_complex(k)) kind = scalar_kind(kind);
  switch (kind) {
    case LoopKind::Parallel:
      w.raw("#pragma omp parallel for" + own + " if(" + nt + " > 1)" + threads + " schedule(static)\n");
      break;
    case LoopKind::ParallelSimd:
      w.raw("#pragma omp parallel for simd" + own + " if(parallel: " + nt + " > 1)" + threads +
            " schedule(static)\n");
      break;
    case LoopKind::Simd:
    case LoopKind::SharedSimd:
      w.raw("#pragma omp simd\n");
      break;
    case LoopKind::ParallelSweep: {
      const bool simd = simd_sweep(k) && first == k.rank - 1;
      const std::string lanes = simd ? " if(simd: n" + num(l.axis) + " >= " + num(kSimdSweep) + ")" : "";
      w.raw(std::string("#pragma omp parallel for") + (simd ? " simd" : "") + reduction_clauses(k) + own +
            " if(" + (simd ? "parallel: " : "") + nt + " > 1)" + lanes + threads + " schedule(static)\n");
      break;
    }
    case LoopKind::Sweep:
      if (simd_sweep(k) && first == k.rank - 1) {
        w.raw("#pragma omp simd" + reduction_clauses(k) + " if(simd: n" + num(l.axis) +
              " >= " + num(kSimdSweep) + ")\n");
      }
      break;
    case LoopKind::Serial:
    case LoopKind::OuterSweep:
      break;
    case LoopKind::WorkItems:
    case LoopKind::GroupTree:
    case LoopKind::ChunkedScan:
      throw InternalError("c printer: work-item loops need a device printer");
  }
  if (blocked) {
    w.open("for (int64_t arrvm_g = 0; arrvm_g < (n0 + 15) >> 4; ++arrvm_g) {");
    for (const Stmt& st : k.body) {
      if (st.op != Opcode::Random) continue;
      const std::string v = "arrvm_rv" + num(st.seed_slot);
      w.line(std::string(c_type(st.out.dtype)) + " " + v + "[16];");
      w.line("fill_" + scalar_helper_name(st) + "(C" + num(st.seed_slot) + ", arrvm_g, " + v + ");");
    }
    w.line("const int64_t arrvm_lo = arrvm_g << 4, arrvm_hi = arrvm_lo + 16 < n0 ? arrvm_lo + 16 : n0;");
    w.open("for (int64_t i0 = arrvm_lo; i0 < arrvm_hi; ++i0) {");
    offsets(w, k, first, l.axis);
    *braces = 2;
    return 1;
  }
  w.open(for_line(l));
  offsets(w, k, first, l.axis);
  *braces = 1;
  return 1;
}

std::string CPrinter::print(const LoopKernel& k, const std::string& name) const {
  const int R = k.rank;
  ARRVM_ASSERT(static_cast<int>(k.loops.size()) == R);
  Writer w;
  helpers(w, k);
  signature(w, k, name);
  for (int d = 0; d < R; ++d) {
    const bool fixed = dialect_.inner_extent > 0 && d == k.loops.back().axis;
    w.line("const int64_t n" + num(d) + " = " + (fixed ? num(dialect_.inner_extent) : "a[" + num(d) + "]") +
           ";");
  }
  for (std::size_t v = 0; v < k.views.size(); ++v) {
    const std::string vs = num(static_cast<int64_t>(v));
    const int64_t at = view_arg_index(R, static_cast<int>(v));
    w.line("const int64_t o" + vs + "_0 = a[" + num(at) + "];");
    for (int d = 0; d < R; ++d)
      w.line("const int64_t s" + vs + "_" + num(d) + " = a[" + num(at + 1 + d) + "];");
  }
  const std::string g = dialect_.global_qualifier;
  for (std::size_t j = 0; j < k.indexed.size(); ++j) {
    const std::string js = num(static_cast<int64_t>(j));
    w.line(g + "const int64_t* q" + js + " = a + " + num(indexed_arg_index(k, static_cast<int>(j))) + ";");
    w.line("const int64_t N" + js + " = q" + js + "[1];");
  }
  for (std::size_t i = 0; i < k.consts.size(); ++i) {
    const std::string is = num(static_cast<int64_t>(i));
    // Read through a scratch variable: a constant whose address memcpy
    // takes is shared with the OpenMP region by reference, so gcc loaded
    // it through a pointer at every use (water_ice's density kernel: two
    // loads per use of its 57 constants); the const copy goes by value.
    const std::string t = c_type(k.consts[i]);
    w.line(t + " C" + is + "_; memcpy(&C" + is + "_, &c[" + is + "], sizeof(C" + is + "_)); const " + t +
           " C" + is + " = C" + is + "_;");
  }

  before_loops(w, k);
  const bool shared = has_loop(k, LoopKind::SharedSimd);
  if (shared) shared_region(w, k);
  for (int c = 0; c < k.counters; ++c) w.line("int64_t c" + num(c) + " = 0;");
  const bool blocked = blocked_random(k, dialect_);
  if (dialect_.chunked_random && !blocked) {
    for (int slot : random_memos(k)) w.line("struct arrvm_rmemo arrvm_rm" + num(slot) + " = {0, -1, {{0}}};");
  }
  if (segmented(k)) {  // a row program: the rows, each running its segments
    ARRVM_ASSERT(R == 2 && k.loops[0].axis == 0 && k.loops[1].axis == 1);
    int braces = 0;
    open_loops(w, k, 0, &braces);
    row_segments(w, k);
    for (int b = 0; b < braces; ++b) w.close();
    if (shared) w.close();
    w.close();
    return w.str();
  }
  // The loop nest; `groups` remembers, per group of loops opened together,
  // its first loop and its braces.
  std::vector<std::pair<int, int>> groups;
  const bool rows = std::any_of(k.body.begin(), k.body.end(), [](const Stmt& st) { return st.depth > 0; });
  ARRVM_ASSERT(!rows || (R >= 2 && k.loops[0].axis == 0));
  bool rows_printed = false;
  for (int L = 0; L < R;) {
    if (is_sweep_loop(k.loops[L].kind)) {  // one accumulator per reduction and scan
      for (const Stmt& st : k.body) {
        if (st.acc >= 0) {
          w.line(std::string(c_type(k.accs[st.acc])) + " acc" + num(st.acc) + " = " +
                 start_value(st.op, k.accs[st.acc]) + ";");
        }
      }
    }
    if (k.loops[L].kind == LoopKind::OuterSweep) outputs_start(w, k, L);
    int braces = 0;
    const int opened = open_loops(w, k, L, &braces);
    groups.emplace_back(L, braces);
    L += opened;
    if (L == 1 && rows) {  // row-fused statements: once per row
      statements(w, k, 1);
      rows_printed = true;
    }
  }
  ARRVM_ASSERT(rows_printed == rows);  // (a printer that opens the outer loop with others cannot row-fuse)
  bool flat = k.errors > 0;
  for (const Stmt& st : k.body) flat = flat || opcode_kind(st.op) == OpKind::Generator;
  if (flat) {  // the flat row-major position in the iteration shape
    std::string f = R == 0 ? "0" : "i0";
    for (int d = 1; d < R; ++d) f = "(" + f + ") * n" + num(d) + " + i" + num(d);
    w.line("const int64_t f = " + f + ";");
  }
  statements(w, k, 0);
  for (const Stmt& st : k.body) {
    if (st.counter >= 0) w.line("c" + num(st.counter) + " += g" + num(st.counter) + ";");
  }
  for (auto it = groups.rbegin(); it != groups.rend(); ++it) {
    for (int b = 0; b < it->second; ++b) w.close();
    if (!is_sweep_loop(k.loops[it->first].kind)) continue;
    // After the sweep: an empty axis gives ref's identity (+0.0, where the
    // start is -0.0), then each reduction writes its output element.
    for (const Stmt& st : k.body) {
      if (!is_reduce(st.op)) continue;
      const std::string acc = "acc" + num(st.acc);
      if (st.op == Opcode::AddReduce && is_float(k.accs[st.acc])) {
        w.line("if (n" + num(k.sweep_axis) + " == 0) " + acc + " = 0;");
      }
      reduction_result(w, k, st, acc);
    }
  }
  for (int c = 0; c < k.counters; ++c) w.line(counter_result(c));
  if (shared) w.close();
  w.close();
  return w.str();
}

// A row program (Stmt::segment, loop_ir.hpp), inside the loop over rows:
// the temporaries that hold a row's values (written by a row's statement
// or a reduction), then each segment in order: a row's statements, or a
// loop over the inner axis with its accumulators before it and its
// reductions' results after it (`omp simd` unless a reduction needs ref's
// order, which simd_sweep decides per segment as for any sweep).
void CPrinter::row_segments(Writer& w, const LoopKernel& k) const {
  std::vector<bool> row_value(k.temps.size(), false);
  int segments = 0;
  for (const Stmt& st : k.body) {
    segments = std::max(segments, st.segment + 1);
    if (st.out.kind == ArgKind::Temp && (st.depth > 0 || is_reduce(st.op))) row_value[st.out.index] = true;
  }
  for (std::size_t t = 0; t < k.temps.size(); ++t) {
    if (row_value[t]) w.line(std::string(c_type(k.temps[t])) + " t" + num(t) + ";");
  }
  for (int s = 0; s < segments; ++s) {
    LoopKernel seg = k;
    seg.body.clear();
    for (const Stmt& st : k.body) {
      if (st.segment == s) seg.body.push_back(st);
    }
    if (seg.body.empty()) continue;
    if (seg.body[0].depth > 0) {
      statements(w, seg, 1, &row_value);
      continue;
    }
    const bool reduces =
        std::any_of(seg.body.begin(), seg.body.end(), [](const Stmt& st) { return is_reduce(st.op); });
    seg.loops[1].kind = reduces ? LoopKind::Sweep : LoopKind::Simd;
    for (const Stmt& st : seg.body) {
      if (st.acc >= 0)
        w.line(std::string(c_type(k.accs[st.acc])) + " acc" + num(st.acc) + " = " +
               start_value(st.op, k.accs[st.acc]) + ";");
    }
    int braces = 0;
    open_loops(w, seg, 1, &braces);
    statements(w, seg, 0, &row_value);
    for (int b = 0; b < braces; ++b) w.close();
    for (const Stmt& st : seg.body) {
      if (!is_reduce(st.op)) continue;
      const std::string acc = "acc" + num(st.acc);
      if (st.op == Opcode::AddReduce && is_float(k.accs[st.acc])) w.line("if (n1 == 0) " + acc + " = 0;");
      if (st.out.kind == ArgKind::Temp) {  // the row's value, contracted
        w.line(operand(st.out, 1) + " = " + convert(st.out.dtype, k.accs[st.acc], acc) + ";");
      } else {
        reduction_result(w, seg, st, acc);
      }
    }
  }
}

// The statements of loop depth `depth` (Stmt::depth; 0: the innermost
// body), with the temporaries they write first (but those `declared`).
void CPrinter::statements(Writer& w, const LoopKernel& k, int depth,
                          const std::vector<bool>* declared) const {
  const int level = depth > 0 ? depth : k.rank;
  const bool blocked = blocked_random(k, dialect_);
  // Each temporary is declared at the level of its first writer.
  std::vector<int> temp_depth(k.temps.size(), -1);
  for (const Stmt& st : k.body) {
    if (st.out.kind == ArgKind::Temp && temp_depth[st.out.index] < 0) temp_depth[st.out.index] = st.depth;
  }
  for (std::size_t t = 0; t < k.temps.size(); ++t) {
    if ((declared != nullptr && (*declared)[t]) || (declared != nullptr && temp_depth[t] < 0)) continue;
    if (std::max(temp_depth[t], 0) == depth) w.line(std::string(c_type(k.temps[t])) + " t" + num(t) + ";");
  }
  const std::vector<std::string> combine = combine_names(k);
  const bool outer = has_loop(k, LoopKind::OuterSweep);
  for (std::size_t s = 0; s < k.body.size(); ++s) {
    const Stmt& st = k.body[s];
    if (st.depth != depth) continue;
    const OpKind kind = opcode_kind(st.op);
    if (kind == OpKind::Compress) {  // g<c>: this index's element is kept (and its class's index is c<c>)
      const std::string parent = st.domain >= 0 ? "g" + num(st.domain) + " && " : "";
      w.line("const int g" + num(st.counter) + " = " + parent + "(" + operand(st.in[1], level) + " != 0);");
      w.line("if (g" + num(st.counter) + ") " + operand(st.out, level) + " = " + operand(st.in[0], level) +
             ";");
      continue;
    }
    if (st.domain >= 0) w.open("if (g" + num(st.domain) + ") {");
    if (kind == OpKind::Reduce || kind == OpKind::Accumulate) {
      // (Under an OuterSweep the output element is the accumulator.)
      const std::string acc = outer ? operand(st.out, level) : "acc" + num(st.acc),
                        T = c_type(k.accs[st.acc]);
      w.line(acc + " = (" + T + ")" + combine[s] + "(" + acc + ", " +
             convert(k.accs[st.acc], st.in[0].dtype, operand(st.in[0], level)) + ");");
      if (kind == OpKind::Accumulate) w.line(operand(st.out, level) + " = " + acc + ";");
    } else if (kind == OpKind::Gather) {
      const int j = st.in[0].index;
      w.open("{");
      // (gather_clip: clamped into [0, N); only an empty source fails)
      const std::string x = operand(st.in[1], level), n = "N" + num(j);
      w.line(
          "const int64_t x = " +
          (st.op == Opcode::GatherClip ? x + " < 0 ? 0 : " + x + " >= " + n + " ? " + n + " - 1 : " + x : x) +
          ";");
      w.line(std::string(c_type(st.out.dtype)) + " v = 0;");
      w.line("if ((uint64_t)x < (uint64_t)N" + num(j) + ") v = Q" + num(j) + "[" +
             indexed_offset(j, k.indexed[j].rank, "x") + "]; else " + bad_index(k, st.err) + ";");
      w.line(operand(st.out, level) + " = v;");
      w.close();
    } else if (kind == OpKind::Scatter) {
      const int j = st.out.index;
      w.open("{");
      w.line("const int64_t x = " + operand(st.in[1], level) + ";");
      w.line("if ((uint64_t)x < (uint64_t)N" + num(j) + ") Q" + num(j) + "[" +
             indexed_offset(j, k.indexed[j].rank, "x") + "] = " + operand(st.in[0], level) + "; else " +
             bad_index(k, st.err) + ";");
      w.close();
    } else {
      std::string call = scalar_helper_name(st) + "(";
      if (st.op == Opcode::Range) {
        call += "f";
      } else if (st.op == Opcode::Random && blocked) {
        w.line(operand(st.out, level) + " = arrvm_rv" + num(st.seed_slot) + "[i0 - arrvm_lo];");
        if (st.domain >= 0) w.close();
        continue;
      } else if (st.op == Opcode::Random) {
        call += "C" + num(st.seed_slot) + ", f";
        if (dialect_.chunked_random) call += ", &arrvm_rm" + num(st.seed_slot);
      } else {
        for (int i = 0; i < st.nin; ++i) call += (i ? ", " : "") + operand(st.in[i], level);
      }
      w.line(operand(st.out, level) + " = (" + c_type(st.out.dtype) + ")" + call + ");");
    }
    if (st.domain >= 0) w.close();
  }
}

void CPrinter::shared_region(Writer& w, const LoopKernel& k) const {
  // Shares in whole cache lines (8 elements of 8 bytes), so that no two
  // threads write to one line of an output row.
  const std::string n = "n" + num(k.loops.back().axis);
  if (dialect_.serial) {
    w.open("{");
    w.line("const int64_t arrvm_lo = 0, arrvm_hi = " + n + ";");
    return;
  }
  const std::string nt = "a[" + num(k.rank) + "]";
  w.raw("#pragma omp parallel if(" + nt + " > 1) num_threads(" + nt + " > 1 ? (int)" + nt + " : 1)\n");
  w.open("{");
  w.line("int64_t arrvm_lo = 0, arrvm_hi = " + n + ";");
  w.raw("#ifdef _OPENMP\n");
  w.line("const int64_t arrvm_nt = omp_get_num_threads(), arrvm_t = omp_get_thread_num();");
  w.line("const int64_t arrvm_share = ((" + n + " + arrvm_nt - 1) / arrvm_nt + 7) / 8 * 8;");
  w.line("arrvm_lo = arrvm_t * arrvm_share < " + n + " ? arrvm_t * arrvm_share : " + n + ";");
  w.line("arrvm_hi = arrvm_lo + arrvm_share < " + n + " ? arrvm_lo + arrvm_share : " + n + ";");
  w.raw("#endif\n");
}

void CPrinter::outputs_start(Writer& w, const LoopKernel& k, int level) const {
  // Before an OuterSweep at loop `level` (the last loop follows it): each
  // reduction's output elements of this row start from the start value
  // (ref's identity, +0.0 for a float sum, when the axis is empty).
  const std::string nA = "n" + num(k.sweep_axis);
  w.open("{");
  for (std::size_t v = 0; v < k.views.size(); ++v) {
    const std::string vs = num(static_cast<int64_t>(v));
    w.line("const int64_t o" + vs + "_" + num(level + 1) + " = o" + vs + "_" + num(level) + ";");
  }
  const Loop& last = k.loops[level + 1];
  if ((last.kind == LoopKind::Simd || last.kind == LoopKind::SharedSimd) && !scalar_complex(k))
    w.raw("#pragma omp simd\n");
  w.open(for_line(last));
  offsets(w, k, level + 1, last.axis);
  for (const Stmt& st : k.body) {
    if (!is_reduce(st.op)) continue;
    const DType t = k.accs[st.acc];
    std::string start = start_value(st.op, t);
    if (st.op == Opcode::AddReduce && (is_float(t) || is_complex(t)))
      start = "(" + nA + " == 0 ? (" + c_type(t) + ")0.0 : " + start + ")";
    w.line(operand(st.out, k.rank) + " = (" + c_type(t) + ")" + start + ";");
  }
  w.close();
  w.close();
}

}  // namespace arrvm::codegen
