// Pass `schedule` of codegen::lower (backends/loop_ir.hpp): the loop nest of
// a kernel, one loop per axis, outermost first, and how each loop runs on
// the target. The sweep axis (reductions and scans) is always innermost and
// sequential from index 0, so every accumulator combines in ref's order.
//
// Cpu (C + OpenMP): the other axes in axis order; the outermost loop runs in
// parallel unless the kernel scatters (a scatter writes in row-major order:
// with duplicate indices the last write wins, as in ref); a reduction to a
// scalar (rank 1, no scan) is an OpenMP reduction; the innermost loop is
// `omp simd` when nothing in it carries from one index to the next (no
// sweep) or may race (no indexing).
//
// Cpu, a reduction along an axis A other than the last (NumPy's
// `x.sum(axis=0)`), where the rows are contiguous and the inner sweep would
// stride across them, or an outer product (an input read as a column,
// nbody's `x[:, None] - x[None, :]`) whose inner sweep would be a scalar
// loop: OuterSweep (loop_ir.hpp) when it is exact and pays.
// The loops: the axes before A, the axes between A and the last, the sweep,
// the last axis (simd). Each reduction's output element then holds its
// accumulator; still combined in ref's order. The first loop runs in
// parallel, or, with the sweep first, each thread takes its share of the
// last axis (SharedSimd).
//
// OpenCl: the axes other than the sweep are one flat work-item loop (the
// launch decides how many work items, one when the order matters). A full
// reduction (rank 1, no scan, no scatter) splits its sweep among the work
// items instead (ParallelSweep): each folds its share into a partial per
// reduction, and a work-group tree combines the partials (the backend's
// second pass), as OpenMP's reduction clause does on cpu.
#include <algorithm>
#include <vector>

#include "backends/loop_ir.hpp"

namespace arrvm::codegen {

namespace {

// The most bytes of output rows (all reductions of a row of the last axis)
// for which an outer product is swept outside the last axis: L2-resident.
constexpr int64_t kOuterProductRowBytes = 256 * 1024;

// Whether a cpu kernel's reductions may accumulate in their outputs with
// the sweep outside the last axis (see above), and whether it pays.
bool outer_sweep(const LoweredBlock& b) {
  const LoopKernel& k = b.kernel;
  const int R = k.rank, A = k.sweep_axis;
  if (A < 0 || A >= R - 1 || b.shape[R - 1] < 8) return false;
  // Nothing that depends on the order of the indices: scans, scatters,
  // gathers (their errors keep the first bad position), compresses, random
  // (a per-thread memo of consecutive positions).
  if (k.counters > 0 || k.errors > 0 || !k.indexed.empty() || k.has(OpKind::Accumulate)) return false;
  std::vector<bool> output(k.views.size(), false);
  for (const Stmt& st : k.body) {
    if (st.op == Opcode::Random) return false;
    if (opcode_kind(st.op) != OpKind::Reduce) continue;
    // The output holds the partial results: the accumulator's dtype, and
    // no other slot of its base (an input it would overwrite).
    if (st.out.kind != ArgKind::View || k.accs[st.acc] != st.out.dtype) return false;
    output[st.out.index] = true;
  }
  bool strided_sweep = false, column = false;
  int64_t outputs = 0;
  for (std::size_t v = 0; v < b.views.size(); ++v) {
    for (std::size_t u = 0; u < b.views.size(); ++u) {
      if (u != v && output[v] && b.views[u].base == b.views[v].base) return false;
    }
    if (output[v]) {
      outputs += dtype_size(k.views[v]);
      continue;
    }
    const int64_t last = b.views[v].stride[R - 1], along = b.views[v].stride[A];
    if (last != 0 && last != 1) return false;  // the rows are not contiguous: nothing won
    strided_sweep = strided_sweep || (along != 0 && along != 1);
    column = column || (last == 0 && along != 0);
  }
  // An outer product reduced along A (nbody's `(x[:, None] - x[None, :]
  // ...).sum(axis=0)`): the inner sweep is a scalar loop, the outer one
  // vectorizes along the last axis. It pays while the output rows stay in
  // cache (read and written once per index of A; bounded whole, before the
  // threads share the last axis).
  const bool outer_product = column && outputs * b.shape[R - 1] <= kOuterProductRowBytes;
  return strided_sweep || outer_product;
}

}  // namespace

LoweredBlock schedule(LoweredBlock b, Target target) {
  LoopKernel& k = b.kernel;
  const int R = k.rank, A = k.sweep_axis;
  k.loops.clear();
  for (int ax = 0; ax < R; ++ax) {
    const bool items = target == Target::OpenCl && k.counters == 0;
    if (ax != A) k.loops.push_back({ax, items ? LoopKind::WorkItems : LoopKind::Serial});
  }
  if (A >= 0) k.loops.push_back({A, LoopKind::Sweep});
  if (R == 0) return b;
  if (target == Target::Cpu && outer_sweep(b)) {
    k.loops.clear();
    for (int ax = 0; ax < R - 1; ++ax) {
      if (ax != A) k.loops.push_back({ax, LoopKind::Serial});
    }
    k.loops.push_back({A, LoopKind::OuterSweep});
    k.loops.push_back({R - 1, LoopKind::Simd});
    if (k.loops[0].kind == LoopKind::OuterSweep) {
      k.loops.back().kind = LoopKind::SharedSimd;
    } else {
      k.loops[0].kind = LoopKind::Parallel;
    }
    return b;
  }
  // A compress keeps a running count: the loop runs in order, on one thread
  // (one work item). (A parallel compress needs a prefix sum of the counts.)
  if (k.counters > 0) return b;
  const bool scan = k.has(OpKind::Accumulate);
  if (target == Target::OpenCl) {
    // A reduction alone: a work-group tree; with other work, partials.
    const bool alone = k.body.size() == 1 && opcode_kind(k.body[0].op) == OpKind::Reduce &&
                       k.body[0].in[0].kind == ArgKind::View && k.body[0].out.kind == ArgKind::View;
    if (A >= 0 && R == 1 && !scan && !k.has(OpKind::Scatter))
      k.loops[0].kind = alone ? LoopKind::GroupTree : LoopKind::ParallelSweep;
    // A 1-D scan alone: in chunks.
    const bool lone_scan = k.body.size() == 1 && opcode_kind(k.body[0].op) == OpKind::Accumulate &&
                           k.body[0].in[0].kind == ArgKind::View && k.body[0].out.kind == ArgKind::View;
    if (R == 1 && lone_scan) k.loops[0].kind = LoopKind::ChunkedScan;
    return b;
  }
  const bool omp = !k.has(OpKind::Scatter);
  // `random` reads a per-thread memo of 8 Philox blocks (CDialect::
  // chunked_random): state carried from one element to the next, which
  // omp simd would break.
  const bool random =
      std::any_of(k.body.begin(), k.body.end(), [](const Stmt& st) { return st.op == Opcode::Random; });
  const bool simd = A < 0 && k.indexed.empty() && !random;
  if (omp && A >= 0 && R == 1 && !scan) {
    k.loops[0].kind = LoopKind::ParallelSweep;
  } else if (omp && (A < 0 ? R >= 1 : R >= 2)) {
    k.loops[0].kind = simd && R == 1 ? LoopKind::ParallelSimd : LoopKind::Parallel;
  }
  if (simd && R >= 2) k.loops[R - 1].kind = LoopKind::Simd;
  return b;
}

}  // namespace arrvm::codegen
