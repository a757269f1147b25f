// OpenCL C as a dialect of the shared C emitter (backends/c_emitter.hpp),
// plus the few kernels whose schedule only a device needs: work-group tree
// reductions, and gather / scatter with their index check.
//
// Every kernel's name is unique to its structure (the sources of a batch's
// new kernels are built together as one program; helpers are guarded).
// Loop and sweep kernels come from emit_c / emit_sweep_c with this dialect:
// every buffer is a kernel parameter, followed by the packed launch
// arguments `a` (int64: sizes, offsets, strides) and `c` (uint64: constants
// and seeds) in device buffers, so the parameter count stays small whatever
// the block. The iteration space is one work-item loop over flat indices
// (launched on one work item when the sequential order matters).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "backends/c_emitter.hpp"
#include "vm/instruction.hpp"

namespace arrvm::opencl {

// The dialect for a device; `fp64`: the device has cl_khr_fp64 (enabled in
// the prelude); `gpu`: work items interleave (coalesced accesses), else
// each takes a contiguous chunk (a CPU device's caches and vector units).
// Type names stay the C ones (int32_t, ...), typedef'd in the prelude, as do
// the libm names (sqrtf -> sqrt) and memcpy for constants.
codegen::CDialect dialect(bool fp64, bool gpu);

// Build options of every program (FP_CONTRACT is off in the prelude).
std::string build_options(bool correctly_rounded_divide_sqrt);

// A full reduction (`op` on `t`), one partial result per work-group of
// `local_size` (a power of two) work items: a strided sequential sweep per
// work item, then a tree in local memory. Launched once over the input
// (one partial per group into a scratch buffer) and, with several groups,
// once more over the partials with a single group. Arguments: P0 = out,
// P1 = in, a = {len, in offset, in stride, out offset, out stride between
// groups}. Combines only elements (no identity) except for an empty input,
// so min/max and -0.0 come out as in ref.
std::string reduce_tree_source(Opcode op, DType t, int local_size, const codegen::CDialect& d);
std::string reduce_tree_name(Opcode op, DType t);

// A 1-D inclusive scan (`op` = add_/multiply_accumulate on `t`) in three
// kernels: each of W work items folds a contiguous chunk of C elements
// into totals[w]; one group of `local_size` work items turns the totals
// into exclusive prefixes; each work item rescans its chunk from its
// prefix. Arguments of all three: a = {len, in offset, in stride, out
// offset, out stride, C, chunks = ceil(len / C)}. Totals: P0 = totals,
// P1 = in. Prefix: P0 = prefixes, P1 = totals. Apply: P0 = out, P1 = in,
// P2 = prefixes.
std::string scan_source(Opcode op, DType t, int local_size, const codegen::CDialect& d);
std::string scan_totals_name(Opcode op, DType t);
std::string scan_prefix_name(Opcode op, DType t);
std::string scan_apply_name(Opcode op, DType t);

// gather: out[i] = src[idx[i]] (src indexed in its logical row-major order).
// P0 = out, P1 = src, P2 = idx (int64); `a` = gather_args.
std::string gather_source(DType t, const codegen::CDialect& d);
std::string gather_name(DType t);
std::vector<int64_t> gather_args(const View& out, const View& src, const View& idx);

// scatter: out[idx[i]] = in[i], the last i winning among duplicates (as
// ref's sequential loop). With a winner buffer (int32 per element of out,
// filled with -1), the winners kernel records the largest i per target and
// the scatter kernel writes only those; without (P3 unused, a[3] = 0),
// run on one work item it writes every element in order.
// Scatter: P0 = out, P1 = in, P2 = idx, P3 = winners; winners: P0 = winners, P1 = idx.
std::string scatter_source(DType t, const codegen::CDialect& d);
std::string scatter_name(DType t);
std::string scatter_winners_name(DType t);
std::vector<int64_t> scatter_args(const View& out, const View& in, const View& idx, bool use_winners);

// The index check of gather and scatter: every idx[i] in [0, limit), else
// atomic_min of the first bad flat position i into P0[0] (int32, filled with
// INT_MAX before; positions past INT_MAX - 1 are clamped). P0 = flag, P1 = idx.
std::string check_indices_source(const codegen::CDialect& d);
inline constexpr const char* kCheckIndicesKernel = "arrvm_check_indices";
std::vector<int64_t> check_indices_args(const View& idx, int64_t limit);

}  // namespace arrvm::opencl
