// OpenCL C as a dialect of the scalar helpers (backends/c_emitter.hpp; the
// kernels themselves are printed by OpenClPrinter, opencl_printer.hpp),
// plus the two lowering choices that only a device needs, for a block that
// is a single full reduction (a work-group tree) or a single long 1-D scan
// (chunks in three passes).
//
// Every kernel's name is unique to its structure (the sources of a batch's
// new kernels are built together as one program; helpers are guarded).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "backends/c_emitter.hpp"
#include "vm/instruction.hpp"

namespace arrvm::opencl {

// The dialect for a device; `fp64`: the device has cl_khr_fp64 (enabled in
// the prelude). Type names stay the C ones (int32_t, ...), typedef'd in the
// prelude, as do the libm names (sqrtf -> sqrt) and memcpy for constants.
codegen::CDialect dialect(bool fp64);

// Build options of every program (FP_CONTRACT is off in the prelude).
std::string build_options(bool correctly_rounded_divide_sqrt);

// A full reduction (`op` on `t`), one partial result per work-group of
// `local_size` (a power of two) work items: a strided sequential sweep per
// work item, then a tree in local memory. Launched once over the input
// (one partial per group into a scratch buffer) and, with several groups,
// once more over the partials with a single group. Arguments: P0 = out,
// P1 = in, a = {len, in offset, in stride, out offset, out stride between
// groups}. Combines only elements (no identity) except for an empty input,
// so min/max and -0.0 come out as in ref. It reads `in`, combines in `acc`
// (accumulator_dtype, or `in` on a device without float64) and writes `out`:
// a float32 sum reads float32, sums in float64, writes float64 partials
// then the float32 result.
struct TreeTypes {
  DType in, acc, out;
};
std::string reduce_tree_source(Opcode op, TreeTypes t, int local_size, const codegen::CDialect& d);
std::string reduce_tree_name(Opcode op, TreeTypes t);

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

}  // namespace arrvm::opencl
