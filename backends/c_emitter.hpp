// Prints a LoopKernel as C source: a preamble of scalar helpers that follow
// backends/ref/scalar_ops.hpp and backends/philox.hpp line by line (integer
// arithmetic in unsigned types, no C undefined behaviour), then one kernel
//   void NAME(void** p, const int64_t* a, const uint64_t* c)
// with p = base pointers per view slot, a = packed sizes/offsets/strides
// (backends/loop_ir.hpp), c = packed constants and seeds. The dialect hooks
// let an OpenCL C printer reuse the helpers and the loop body.
#pragma once

#include <string>

#include "backends/loop_ir.hpp"

namespace arrvm::codegen {

struct CDialect {
  std::string prelude = "#include <stdint.h>\n#include <string.h>\n#include <math.h>\n";
  std::string kernel_qualifier;        // e.g. "__kernel " in OpenCL
  std::string global_qualifier;        // address space of array pointers
  bool openmp = true;                  // `#pragma omp parallel for if(a[rank])` on the outer loop
  bool long_double = true;             // float -> int saturation compares in long double (as vm/cast.hpp)

  // Hooks for device dialects (OpenCL C); the defaults print the C above.
  // Each view slot's buffer is its own kernel parameter `GLOBAL T* P<v>`,
  // followed by `GLOBAL const int64_t* a, GLOBAL const uint64_t* c`, instead
  // of the array of pointers `p` (a device kernel cannot take one).
  bool buffer_params = false;
  // If set, the loop nest over the iteration shape is one loop over flat
  // row-major indices, `for (w = <first>; w < n0*...*n{R-1}; w += <step>)`,
  // each decomposed into i0..i{R-1} with the shape from the launch
  // arguments: a work-item loop, which runs sequentially on one work item.
  std::string work_item_first;  // e.g. "(int64_t)get_global_id(0)"
  std::string work_item_step;   // e.g. "(int64_t)get_global_size(0)"
  // With work_item_first/step set: work item `first` of `step` takes one
  // contiguous chunk of the flat indices instead of every step-th index
  // (what a CPU device wants; a GPU wants the interleaving, for coalescing).
  bool work_item_chunks = false;
  // Float -> int saturation compares in the source float type (no double
  // on a device without fp64). Exact: each limit is a power of two, or
  // 2^k - 1, which rounds up to 2^k.
  bool saturate_in_source_type = false;
  // Each scalar helper (and Philox) inside an include guard, so that the
  // sources of several kernels (with distinct names) concatenate into one
  // translation unit: one device program build for a batch's new kernels.
  bool guard_helpers = false;
};

// The full translation unit for `k`, with its kernel function named `name`.
std::string emit_c(const LoopKernel& k, const std::string& name, const CDialect& dialect = CDialect{});

// The translation unit of a reduction or scan (backends/loop_ir.hpp).
std::string emit_sweep_c(const SweepKernel& k, const std::string& name, const CDialect& dialect = CDialect{});

// C spelling of a dtype's element type (bool is uint8_t holding 0 or 1).
const char* c_type(DType t);

// The scalar helper that combines two elements for reduction or scan `op`
// on `t`: its definition, and its name in *name. For dialects that print
// their own reduction schedule (OpenCL's work-group trees).
std::string combine_helper(Opcode op, DType t, const CDialect& dialect, std::string* name);

// For printers of other loop shapes (c_emitter_fused.cpp): the definitions
// of the scalar helpers that the elementwise and generator statements of
// `body` call, each once (with Philox if one is `random`), and the name of
// a statement's helper.
std::string scalar_helpers(const std::vector<Stmt>& body, const CDialect& dialect);
std::string scalar_helper_name(const Stmt& st);

// A fused kernel (loop_ir.hpp lower_fused_block) as C with OpenMP: the same
// kernel signature and helpers as emit_c; the loop nest runs the sweep axis
// innermost, reductions to a scalar use an OpenMP reduction clause, the
// innermost loop of a kernel without sweep or indexing is `omp simd`, and a
// kernel with a scatter runs sequentially. For the C dialect (openmp on).
std::string emit_fused_c(const LoopKernel& k, const std::string& name, const CDialect& dialect = CDialect{});

}  // namespace arrvm::codegen
