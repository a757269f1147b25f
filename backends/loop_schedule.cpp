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
// OpenCl: the axes other than the sweep are one flat work-item loop (the
// launch decides how many work items, one when the order matters). A full
// reduction (rank 1, no scan, no scatter) splits its sweep among the work
// items instead (ParallelSweep): each folds its share into a partial per
// reduction, and a work-group tree combines the partials (the backend's
// second pass), as OpenMP's reduction clause does on cpu.
#include <algorithm>

#include "backends/loop_ir.hpp"

namespace arrvm::codegen {

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
  // A compress keeps a running count: the loop runs in order, on one thread
  // (one work item). (A parallel compress needs a prefix sum of the counts.)
  if (k.counters > 0) return b;
  const bool scan = k.has(OpKind::Accumulate);
  if (target == Target::OpenCl) {
    if (A >= 0 && R == 1 && !scan && !k.has(OpKind::Scatter)) k.loops[0].kind = LoopKind::ParallelSweep;
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
