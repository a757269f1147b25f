// Internal to the C printers (backends/c_printer.cpp and its device
// dialects): small pieces of C text (numbers, operands, start values, loop
// lines) and what a lowered kernel's loops are (sweeps, SIMD lanes, row
// programs, random memos). Split from c_printer.cpp, which keeps the
// printing itself.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "backends/c_emitter.hpp"
#include "backends/loop_ir.hpp"

namespace arrvm::codegen::c_text {

// Whether the sweep's reductions may combine in SIMD lanes (`omp simd
// reduction`, each lane from the start value, the lanes combined at the
// end): only elementwise statements and reductions, none of which depends
// on the order of the indices (scans, compresses, gathers' and scatters'
// first errors, random memos). A float sum then adds in lanes, as NumPy's
// pairwise sum does with its eight accumulators, instead of one chain of
// dependent additions (half the time over memory: 8.4 against 4.2 ms for
// 10^7 float64 here). Its last bits differ from ref's index order, as a
// parallel reduction's do, so only sweeps of at least kSimdSweep elements
// use lanes (`if(simd: ...)`): shorter ones keep ref's order bit for bit.
// 256, not 4096 as before: a row of 1000 summed in one chain of additions
// made `x.sum(axis=1)` over (1000, 1000) 0.38x NumPy on one thread; in
// lanes it is 2.0x (bench/results/2026-11-29-row-programs.txt).
inline constexpr int64_t kSimdSweep = 256;

std::string num(int64_t v);
bool is_reduce(Opcode op);
std::string start_value(Opcode op, DType t);
std::string operand(const Arg& a, int level);
std::string indexed_offset(int j, int r, const std::string& x);
bool is_sweep_loop(LoopKind kind);
bool has_complex(const LoopKernel& k);
// Whether a kernel with complex slots must run without the vectorizer:
// GCC 12 vectorizes a complex product (x.re*y.re - x.im*y.im, ...) as its
// complex-multiply pattern, an FMA (vfmaddsub), despite -ffp-contract=off,
// where NumPy's products round each term; a quotient's terms match its
// conjugate form. A kernel whose complex statements only add, subtract,
// negate, compare, select, convert or take parts and absolute values
// (hypot of the parts) has no products of parts: it vectorizes, as a real
// kernel does (the escape test `abs(z) <= 2` of a Mandelbrot loop).
bool scalar_complex(const LoopKernel& k);
bool simd_sweep(const LoopKernel& k);
std::string reduction_clauses(const LoopKernel& k);
bool segmented(const LoopKernel& k);
bool has_loop(const LoopKernel& k, LoopKind kind);
std::string for_line(const Loop& l);
std::vector<int> random_memos(const LoopKernel& k);
bool blocked_random(const LoopKernel& k, const CDialect& d);
LoopKind serial_kind(LoopKind kind);
LoopKind scalar_kind(LoopKind kind);

}  // namespace arrvm::codegen::c_text
