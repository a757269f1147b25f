// OpenClPrinter: CPrinter (backends/c_printer.hpp) for OpenCL C. What
// differs from C is only where the kernel gets its buffers and how the loops
// that are not the sweep run:
//  - every buffer is a kernel parameter `__global T* P<v>` (view slots),
//    `Q<j>` (indexed slots), `E` (error words, if any), followed by the
//    packed launch arguments `a` and `c` in device buffers;
//  - the WorkItems loops are one flat loop over their indices, split among
//    the work items: interleaved on a GPU (coalesced accesses), a contiguous
//    chunk each on a CPU device (caches, vector units); a kernel without
//    such a loop runs on work item 0 only;
//  - a full reduction (ParallelSweep) splits its sweep among the work items
//    like the WorkItems loops; each work item writes its partial of each
//    reduction to `R<acc>[work item]` (parameters after E), and the backend
//    combines the partials with a work-group tree into the output
//    (tree_kernel);
//  - a reduction alone (GroupTree, loop_ir.hpp) runs in work-groups of the
//    printer's group size: the items' accumulators meet in a tree in local
//    memory, and each group writes one result;
//  - a 1-D scan alone (ChunkedScan) is three kernel functions, NAME_totals,
//    NAME_prefix (one work-group) and NAME_apply, with one parameter list:
//    the view slots, the chunks' totals S and exclusive prefixes X (of the
//    accumulator's type), then `a` (loop_ir.hpp's layout, followed by the
//    chunk length and the number of chunks) and `c`;
//  - a bad index is recorded per work item (E holds, per work item and error
//    slot, the smallest flat position and its index; no atomics), the host
//    takes the smallest over all work items.
#pragma once

#include <string>
#include <vector>

#include "backends/c_printer.hpp"

namespace arrvm::opencl {

// The body indices of the reductions whose partials a ParallelSweep kernel
// writes (in parameter order); empty for other kernels.
std::vector<int> partial_reductions(const codegen::LoopKernel& k);

// The IR of one GroupTree pass over a buffer of `in` (the partials of a
// ParallelSweep, or of an earlier tree pass): view slot 0 the output
// (`out`), slot 1 the input, unit stride.
codegen::LoopKernel tree_kernel(Opcode op, DType in, DType acc, DType out);

// The two passes of GroupTree kernel `k` over several groups, its slots
// kept: input to partials of `acc` (one per group), then the partials (at
// unit stride) to the output.
codegen::LoopKernel partials_pass(const codegen::LoopKernel& k, DType acc);
codegen::LoopKernel combine_pass(const codegen::LoopKernel& k, DType acc);

class OpenClPrinter final : public codegen::CPrinter {
 public:
  // `group_size`: the work-group size of GroupTree kernels (a power of two).
  OpenClPrinter(bool fp64, bool gpu, int group_size);

  std::string print(const codegen::LoopKernel& k, const std::string& name) const override;

 protected:
  void signature(codegen::Writer& w, const codegen::LoopKernel& k, const std::string& name) const override;
  void before_loops(codegen::Writer& w, const codegen::LoopKernel& k) const override;
  int open_loops(codegen::Writer& w, const codegen::LoopKernel& k, int first, int* braces) const override;
  std::string bad_index(const codegen::LoopKernel& k, int err) const override;
  std::string index_helpers() const override;
  void reduction_declarations(codegen::Writer& w, const codegen::LoopKernel& k,
                              const std::vector<std::string>& combine) const override;
  void reduction_result(codegen::Writer& w, const codegen::LoopKernel& k, const codegen::Stmt& st,
                        const std::string& acc) const override;

 private:
  std::string chunked_scan(const codegen::LoopKernel& k, const std::string& name) const;

  bool gpu_;
  int group_size_;
};

}  // namespace arrvm::opencl
