#include "backends/opencl/opencl_printer.hpp"

#include <string>
#include <vector>

#include "backends/opencl/opencl_dialect.hpp"
#include "vm/error.hpp"

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

codegen::LoopKernel tree_kernel(Opcode op, DType in, DType acc, DType out) {
  LoopKernel k;
  k.rank = 1;
  k.views = {out, in};
  k.written = {true, false};
  k.accs = {acc};
  codegen::Stmt st;
  st.op = op;
  st.out = {codegen::ArgKind::View, 0, out};
  st.in[0] = {codegen::ArgKind::View, 1, in};
  st.nin = 1;
  st.acc = 0;
  k.body = {st};
  k.sweep_axis = 0;
  k.inner = {codegen::kZeroInner, codegen::kUnitInner};
  k.loops = {{0, LoopKind::GroupTree}};
  return k;
}

codegen::LoopKernel partials_pass(const LoopKernel& k, DType acc) {
  ARRVM_ASSERT(k.loops.size() == 1 && k.loops[0].kind == LoopKind::GroupTree && k.body.size() == 1);
  LoopKernel r = k;
  codegen::Stmt& st = r.body[0];
  st.out.dtype = acc;
  r.views[st.out.index] = acc;
  return r;
}

codegen::LoopKernel combine_pass(const LoopKernel& k, DType acc) {
  ARRVM_ASSERT(k.loops.size() == 1 && k.loops[0].kind == LoopKind::GroupTree && k.body.size() == 1);
  LoopKernel r = k;
  codegen::Stmt& st = r.body[0];
  st.in[0].dtype = acc;
  r.views[st.in[0].index] = acc;
  r.inner.assign(r.views.size(), codegen::kAnyInner);
  r.inner[st.in[0].index] = codegen::kUnitInner;
  r.inner[st.out.index] = codegen::kZeroInner;
  return r;
}

OpenClPrinter::OpenClPrinter(bool fp64, bool gpu, int group_size)
    : CPrinter(dialect(fp64)), gpu_(gpu), group_size_(group_size) {
  ARRVM_ASSERT(group_size > 0 && (group_size & (group_size - 1)) == 0);
}

std::string OpenClPrinter::print(const LoopKernel& k, const std::string& name) const {
  if (k.loops.size() == 1 && k.loops[0].kind == LoopKind::ChunkedScan) return chunked_scan(k, name);
  return CPrinter::print(k, name);
}

// The three kernels of a ChunkedScan. Chunk w is [w * chunk, min((w + 1) *
// chunk, n0)) of the input; every chunk but the last is whole.
std::string OpenClPrinter::chunked_scan(const LoopKernel& k, const std::string& name) const {
  ARRVM_ASSERT(k.rank == 1 && k.body.size() == 1 && k.body[0].acc >= 0);
  const codegen::Stmt& st = k.body[0];
  const std::string T = codegen::c_type(k.accs[st.acc]), O = codegen::c_type(k.views[st.out.index]);
  const std::string L = num(group_size_);
  std::string f;
  codegen::combine_helper(st.op, k.accs[st.acc], dialect_, &f);
  // x(i): the input at index i as the accumulator's type; y(i): the output there.
  const std::string in = num(st.in[0].index), out = num(st.out.index);
  auto x = [&](const std::string& i) {
    return "(" + T + ")" +
           convert(k.accs[st.acc], k.views[st.in[0].index],
                   "P" + in + "[o" + in + "_0 + (" + i + ") * s" + in + "_0]");
  };
  auto y = [&](const std::string& i) {
    return "P" + out + "[o" + out + "_0 + (" + i + ") * s" + out + "_0]";
  };
  auto fold = [&](const std::string& a, const std::string& b) {
    return "(" + T + ")" + f + "(" + a + ", " + b + ")";
  };
  Writer w;
  helpers(w, k);
  std::string params;
  for (std::size_t v = 0; v < k.views.size(); ++v) {
    params +=
        "__global " + std::string(codegen::c_type(k.views[v])) + "* P" + num(static_cast<int64_t>(v)) + ", ";
  }
  params +=
      "__global " + T + "* S, __global " + T + "* X, __global const int64_t* a, __global const uint64_t* c";
  const int64_t extra = codegen::view_arg_index(1, static_cast<int>(k.views.size()));
  auto arguments = [&] {
    w.line("const int64_t n0 = a[0];");
    for (std::size_t v = 0; v < k.views.size(); ++v) {
      const std::string vs = num(static_cast<int64_t>(v));
      const int64_t at = codegen::view_arg_index(1, static_cast<int>(v));
      w.line("const int64_t o" + vs + "_0 = a[" + num(at) + "], s" + vs + "_0 = a[" + num(at + 1) + "];");
    }
    w.line("const int64_t chunk = a[" + num(extra) + "], chunks = a[" + num(extra + 1) + "];");
  };
  auto each_chunk = [&] {
    w.open(std::string("for (int64_t w = ") + kId + "; w < chunks; w += " + kStep + ") {");
    w.line("const int64_t start = w * chunk, end = min(start + chunk, n0);");
  };
  // Totals: each chunk folded in order.
  w.open("__kernel void " + name + "_totals(" + params + ") {");
  arguments();
  each_chunk();
  w.line(T + " acc = " + x("start") + ";");
  w.line("for (int64_t k = start + 1; k < end; ++k) acc = " + fold("acc", x("k")) + ";");
  w.line("S[w] = acc;");
  w.close();
  w.close();
  // Prefixes: each item folds a block of the totals, item 0 scans the
  // block sums, each item then walks its block (X[0] is never read: chunk 0
  // starts from its first element).
  w.open("__kernel __attribute__((reqd_work_group_size(" + L + ", 1, 1))) void " + name + "_prefix(" +
         params + ") {");
  arguments();
  w.line("__local " + T + " sum[" + L + "];");
  w.line("__local uchar has[" + L + "];");
  w.line("const int lid = (int)get_local_id(0);");
  w.line("const int64_t block = (chunks + " + L + " - 1) / " + L + ";");
  w.line("const int64_t b0 = lid * block, b1 = min(b0 + block, chunks);");
  w.line(T + " acc = (" + T + ")0;");
  w.line("uchar h = 0;");
  w.line("for (int64_t j = b0; j < b1; ++j) { acc = h ? " + fold("acc", "S[j]") + " : S[j]; h = 1; }");
  w.line("sum[lid] = acc;");
  w.line("has[lid] = h;");
  w.line("barrier(CLK_LOCAL_MEM_FENCE);");
  w.open("if (lid == 0) {");
  w.line(T + " run = (" + T + ")0;");
  w.line("uchar rh = 0;");
  w.open("for (int j = 0; j < " + L + "; ++j) {");
  w.line("const " + T + " s = sum[j];");
  w.line("const uchar sh = has[j];");
  w.line("sum[j] = run;");
  w.line("has[j] = rh;");
  w.line("if (sh) { run = rh ? " + fold("run", "s") + " : s; rh = 1; }");
  w.close();
  w.close();
  w.line("barrier(CLK_LOCAL_MEM_FENCE);");
  w.line(T + " run = sum[lid];");
  w.line("uchar rh = has[lid];");
  w.open("for (int64_t j = b0; j < b1; ++j) {");
  w.line("if (rh) X[j] = run;");
  w.line("run = rh ? " + fold("run", "S[j]") + " : S[j];");
  w.line("rh = 1;");
  w.close();
  w.close();
  // Apply: each chunk rescanned from its prefix.
  w.open("__kernel void " + name + "_apply(" + params + ") {");
  arguments();
  each_chunk();
  w.line(T + " acc = w == 0 ? " + x("start") + " : " + fold("X[w]", x("start")) + ";");
  w.line(y("start") + " = (" + O + ")acc;");
  w.open("for (int64_t k = start + 1; k < end; ++k) {");
  w.line("acc = " + fold("acc", x("k")) + ";");
  w.line(y("k") + " = (" + O + ")acc;");
  w.close();
  w.close();
  w.close();
  return w.str();
}

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
  // A tree's local memory is sized for its group: the launch must use that size.
  const std::string group = !k.loops.empty() && k.loops[0].kind == LoopKind::GroupTree
                                ? "__attribute__((reqd_work_group_size(" + num(group_size_) + ", 1, 1))) "
                                : "";
  w.open("__kernel " + group + "void " + name + "(" + params +
         "__global const int64_t* a, __global const uint64_t* c) {");
}

void OpenClPrinter::before_loops(Writer& w, const LoopKernel& k) const {
  for (const codegen::Loop& l : k.loops) {
    if (l.kind == LoopKind::WorkItems || l.kind == LoopKind::ParallelSweep || l.kind == LoopKind::GroupTree)
      return;
  }
  w.line("if (get_global_id(0) != 0) return;");  // no work-item loop: work item 0 runs the kernel
}

int OpenClPrinter::open_loops(Writer& w, const LoopKernel& k, int first, int* braces) const {
  if (k.loops[first].kind == LoopKind::Serial) return CPrinter::open_loops(w, k, first, braces);
  if (k.loops[first].kind == LoopKind::GroupTree) {  // each item: its id, then every global size after it
    const std::string i = "i" + num(k.loops[first].axis), n = "n" + num(k.loops[first].axis);
    w.open("for (int64_t " + i + " = " + kId + "; " + i + " < " + n + "; " + i + " += " + kStep + ") {");
    offsets(w, k, first, k.loops[first].axis);
    *braces = 1;
    return 1;
  }
  // A sweep, or a row program's inner loop (c_printer.cpp, row_segments;
  // Simd on cpu): a plain loop of the work item.
  if (k.loops[first].kind == LoopKind::Sweep || k.loops[first].kind == LoopKind::Simd) {
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
  } else if (k.loops[0].kind == LoopKind::GroupTree) {
    // The group's items combine their accumulators pairwise in local memory
    // (log2 of the group size rounds); item 0 writes the group's result.
    std::string f;
    codegen::combine_helper(st.op, k.accs[st.acc], dialect_, &f);
    const std::string T = codegen::c_type(k.accs[st.acc]), L = num(group_size_);
    const std::string o = num(st.out.index);
    w.line("__local " + T + " arrvm_part[" + L + "];");
    w.line("const int arrvm_lid = (int)get_local_id(0);");
    w.line("arrvm_part[arrvm_lid] = " + acc + ";");
    w.line("barrier(CLK_LOCAL_MEM_FENCE);");
    w.open("for (int arrvm_s = " + L + " / 2; arrvm_s > 0; arrvm_s >>= 1) {");
    w.line("if (arrvm_lid < arrvm_s) arrvm_part[arrvm_lid] = (" + T + ")" + f +
           "(arrvm_part[arrvm_lid], arrvm_part[arrvm_lid + arrvm_s]);");
    w.line("barrier(CLK_LOCAL_MEM_FENCE);");
    w.close();
    w.line("if (arrvm_lid == 0) P" + o + "[o" + o + "_0 + (int64_t)get_group_id(0) * s" + o + "_" +
           num(k.sweep_axis) + "] = (" + codegen::c_type(k.views[st.out.index]) + ")" +
           convert(k.views[st.out.index], k.accs[st.acc], "arrvm_part[0]") + ";");
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
