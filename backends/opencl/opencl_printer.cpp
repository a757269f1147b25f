#include "backends/opencl/opencl_printer.hpp"

#include <string>
#include <vector>

#include "backends/opencl/opencl_dialect.hpp"

namespace arrvm::opencl {

using codegen::LoopKernel;
using codegen::LoopKind;
using codegen::Writer;

namespace {

std::string num(int64_t v) {
  return std::to_string(v);
}

const char* kId = "(int64_t)get_global_id(0)";
const char* kStep = "(int64_t)get_global_size(0)";

}  // namespace

std::vector<int> partial_reductions(const LoopKernel& k) {
  std::vector<int> r;
  if (k.loops.empty() || k.loops[0].kind != LoopKind::ParallelSweep) return r;
  for (std::size_t s = 0; s < k.body.size(); ++s) {
    const codegen::Stmt& st = k.body[s];
    if (opcode_kind(st.op) == OpKind::Reduce && st.out.kind == codegen::ArgKind::View)
      r.push_back(static_cast<int>(s));
  }
  return r;
}

OpenClPrinter::OpenClPrinter(bool fp64, bool gpu) : CPrinter(dialect(fp64)), gpu_(gpu) {}

void OpenClPrinter::signature(Writer& w, const LoopKernel& k, const std::string& name) const {
  std::string params;
  for (std::size_t v = 0; v < k.views.size(); ++v) {
    params +=
        "__global " + std::string(codegen::c_type(k.views[v])) + "* P" + num(static_cast<int64_t>(v)) + ", ";
  }
  for (std::size_t j = 0; j < k.indexed.size(); ++j) {
    params += "__global " + std::string(codegen::c_type(k.indexed[j].dtype)) + "* Q" +
              num(static_cast<int64_t>(j)) + ", ";
  }
  if (k.errors > 0) params += "__global int64_t* E, ";
  if (k.counters > 0) params += "__global int64_t* K, ";
  for (int s : partial_reductions(k)) {
    const int acc = k.body[s].acc;
    params += "__global " + std::string(codegen::c_type(k.accs[acc])) + "* R" + num(acc) + ", ";
  }
  w.open("__kernel void " + name + "(" + params + "__global const int64_t* a, __global const uint64_t* c) {");
}

void OpenClPrinter::before_loops(Writer& w, const LoopKernel& k) const {
  for (const codegen::Loop& l : k.loops) {
    if (l.kind == LoopKind::WorkItems || l.kind == LoopKind::ParallelSweep) return;
  }
  w.line("if (get_global_id(0) != 0) return;");  // no work-item loop: work item 0 runs the kernel
}

int OpenClPrinter::open_loops(Writer& w, const LoopKernel& k, int first, int* braces) const {
  if (k.loops[first].kind == LoopKind::Serial) return CPrinter::open_loops(w, k, first, braces);
  if (k.loops[first].kind == LoopKind::Sweep) {
    const std::string i = "i" + num(k.loops[first].axis);
    w.open("for (int64_t " + i + " = 0; " + i + " < n" + num(k.loops[first].axis) + "; ++" + i + ") {");
    offsets(w, k, first, k.loops[first].axis);
    *braces = 1;
    return 1;
  }
  // The run of WorkItems loops from `first` (or the ParallelSweep): one
  // flat loop over their row-major indices, defining i<axis> for each.
  std::vector<int> ax;
  const bool partials = k.loops[first].kind == LoopKind::ParallelSweep;
  if (partials) ax.push_back(k.loops[first].axis);
  for (std::size_t L = first; !partials && L < k.loops.size() && k.loops[L].kind == LoopKind::WorkItems;
       ++L) {
    ax.push_back(k.loops[L].axis);
  }
  const int m = static_cast<int>(ax.size());
  auto n = [&](int j) { return "n" + num(ax[j]); };
  auto i = [&](int j) { return "i" + num(ax[j]); };
  std::string total = n(0);
  for (int j = 1; j < m; ++j) total += " * " + n(j);
  w.line("const int64_t total = " + total + ";");
  if (!partials) w.line("if (total == 0) return;");  // (a partial is written even for no element)
  if (!gpu_) {
    // Chunked: the work item's contiguous range [first, end), as runs along
    // the last of the axes (one division per run), so the inner loop is unit-step.
    w.line(std::string("const int64_t chunk = (total + ") + kStep + " - 1) / " + kStep + ";");
    w.line(std::string("const int64_t first = ") + kId + " * chunk;");
    w.line("const int64_t end = total - first < chunk ? total : first + chunk;");
    if (m == 1) {
      w.open("for (int64_t " + i(0) + " = first; " + i(0) + " < end; ++" + i(0) + ") {");
      *braces = 1;
    } else {
      const std::string nl = n(m - 1);
      w.open("for (int64_t w = first; w < end;) {");
      w.line("int64_t rem = w / " + nl + ";");
      w.line("const int64_t lo = w - rem * " + nl + ";");
      w.line("const int64_t hi = end - w < " + nl + " - lo ? lo + (end - w) : " + nl + ";");
      w.line("w += hi - lo;");
      for (int j = m - 2; j > 0; --j)
        w.line("const int64_t " + i(j) + " = rem % " + n(j) + "; rem /= " + n(j) + ";");
      w.line("const int64_t " + i(0) + " = rem;");
      w.open("for (int64_t " + i(m - 1) + " = lo; " + i(m - 1) + " < hi; ++" + i(m - 1) + ") {");
      *braces = 2;
    }
  } else {
    // Interleaved: w = id, id + step, ...; the indices are the row-major
    // digits of w, decomposed once and advanced by the step's digits with
    // carries (no division per element).
    auto digits = [&](const std::string& var, const std::string& value) {
      std::string decl = "int64_t " + var + num(ax[0]);
      for (int j = 1; j < m; ++j) decl += ", " + var + num(ax[j]);
      w.line(decl + ";");
      w.open("{");
      w.line("int64_t rem = " + value + ";");
      for (int j = m - 1; j > 0; --j) {
        w.line(var + num(ax[j]) + " = rem % " + n(j) + "; rem /= " + n(j) + ";");
      }
      w.line(var + num(ax[0]) + " = rem;");
      w.close();
    };
    digits("i", kId);
    digits("d", kStep);
    std::string advance = std::string("w += ") + kStep;
    for (int j = m - 1; j >= 0; --j) {
      advance += ", " + i(j) + " += d" + num(ax[j]);
      if (j + 1 < m)
        advance +=
            " + (" + i(j + 1) + " >= " + n(j + 1) + " ? (" + i(j + 1) + " -= " + n(j + 1) + ", 1) : 0)";
    }
    w.open(std::string("for (int64_t w = ") + kId + "; w < total; " + advance + ") {");
    *braces = 1;
  }
  for (int j = 0; j < m; ++j) offsets(w, k, first + j, ax[j]);
  return m;
}

void OpenClPrinter::reduction_declarations(Writer&, const LoopKernel&,
                                           const std::vector<std::string>&) const {}

void OpenClPrinter::reduction_result(Writer& w, const LoopKernel& k, const codegen::Stmt& st,
                                     const std::string& acc) const {
  if (k.loops[0].kind == LoopKind::ParallelSweep && st.out.kind == codegen::ArgKind::View) {
    w.line("R" + num(st.acc) + "[get_global_id(0)] = " + acc + ";");
  } else {
    CPrinter::reduction_result(w, k, st, acc);
  }
}

std::string OpenClPrinter::bad_index(const LoopKernel& k, int err) const {
  return std::string("arrvm_bad_index(E + 2 * (") + kId + " * " + num(k.errors) + " + " + num(err) +
         "), f, x)";
}

std::string OpenClPrinter::index_helpers() const {
  return "static inline int64_t arrvm_flat(int64_t f, __global const int64_t* q, int r) {\n"
         "  int64_t off = q[0];\n"
         "  for (int d = r - 1; d >= 0; --d) { off += (f % q[2 + d]) * q[2 + r + d]; f /= q[2 + d]; }\n"
         "  return off;\n"
         "}\n"
         // Per work item: its smallest flat position with a bad index.
         "static inline void arrvm_bad_index(__global int64_t* e, int64_t f, int64_t x) {\n"
         "  if (f < e[0]) { e[0] = f; e[1] = x; }\n"
         "}\n";
}

}  // namespace arrvm::opencl
