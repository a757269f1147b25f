// Prints a lowered kernel (backends/loop_ir.hpp) as one C-like translation
// unit: the dialect's prelude, the scalar helpers (backends/c_emitter.hpp),
// then the kernel function: its parameters, the launch arguments unpacked,
// the loop nest of kernel.loops with the offsets of every view slot, and the
// statements. CPrinter prints C with OpenMP for the cpu backend:
//   void NAME(void** p, const int64_t* a, const uint64_t* c)
// with p = buffer pointers (view slots, indexed slots, then the error words:
// per error slot the smallest flat loop position of a bad index, INT64_MAX
// if none, and that index), a = packed sizes/offsets/strides, c = packed
// constants and seeds. A device dialect (OpenClPrinter,
// backends/opencl/opencl_printer.hpp) overrides the hooks: the signature,
// how buffers are reached, the work-item loop, the bad-index record.
#pragma once

#include <string>
#include <vector>

#include "backends/c_emitter.hpp"
#include "backends/loop_ir.hpp"

namespace arrvm::codegen {

// Appends lines at the current indentation (two spaces per level).
class Writer {
 public:
  void line(const std::string& text);
  void open(const std::string& text);  // line, then one level deeper
  void close(const std::string& text = "}");
  void raw(const std::string& text) { out_ += text; }  // as is (pragmas, preludes)
  const std::string& str() const { return out_; }

 private:
  std::string out_;
  int depth_ = 0;
};

// Per view slot: the compress counter that indexes it (a slot of a length
// class in the block of its compress), or -1 (the loop's index).
std::vector<int> slot_domains(const LoopKernel& k);

class CPrinter {
 public:
  explicit CPrinter(CDialect dialect = CDialect{});
  virtual ~CPrinter() = default;

  // The whole translation unit of `k`, with its kernel function named `name`.
  virtual std::string print(const LoopKernel& k, const std::string& name) const;

 protected:
  // What precedes the kernel: the prelude and every helper it calls.
  virtual void helpers(Writer& w, const LoopKernel& k) const;
  // The kernel's opening line and the buffer pointers P<v>, Q<j>, E.
  virtual void signature(Writer& w, const LoopKernel& k, const std::string& name) const;
  // After the launch arguments, before the loop nest (a device's guard).
  virtual void before_loops(Writer& w, const LoopKernel& k) const;
  // Opens the loops of the nest from loop index `first`; returns how many
  // loops were opened (the printer continues with the rest) and, in
  // *braces, how many braces to close for them.
  virtual int open_loops(Writer& w, const LoopKernel& k, int first, int* braces) const;
  // After the loops: the count of compress counter `c` (K[c]).
  virtual std::string counter_result(int c) const;
  // A bad index `x` at flat position `f` for error slot `err`.
  virtual std::string bad_index(const LoopKernel& k, int err) const;
  // The index helpers (arrvm_flat, the bad-index record).
  virtual std::string index_helpers() const;
  // The OpenMP reduction identifiers of a ParallelSweep (C only).
  virtual void reduction_declarations(Writer& w, const LoopKernel& k,
                                      const std::vector<std::string>& combine) const;
  // After the sweep: reduction `st` stores its accumulator `acc`.
  virtual void reduction_result(Writer& w, const LoopKernel& k, const Stmt& st, const std::string& acc) const;

  // Cpu's OuterSweep (loop_ir.hpp): the parallel region of a SharedSimd
  // loop, opened before the nest (arrvm_lo, arrvm_hi: this thread's share),
  // and the start values of the reductions' outputs before the sweep.
  void shared_region(Writer& w, const LoopKernel& k) const;
  void outputs_start(Writer& w, const LoopKernel& k, int level) const;
  // The statements of Stmt::depth `depth` and the temporaries they declare
  // (but those `declared`).
  void statements(Writer& w, const LoopKernel& k, int depth,
                  const std::vector<bool>* declared = nullptr) const;
  // A row program's segments, inside its loop over rows.
  void row_segments(Writer& w, const LoopKernel& k) const;

  // For subclasses: the offsets of every view slot at loop level `level`
  // (after the loop over `axis` opened).
  void offsets(Writer& w, const LoopKernel& k, int level, int axis) const;

  CDialect dialect_;
  std::vector<std::string> combine_names(const LoopKernel& k) const;
  // `x` of dtype `from` as a `to`, where a complex value changes precision
  // (a complex64 sum accumulates in complex128) in a dialect whose complex
  // values are vectors (convert_T); else `x` (C converts implicitly).
  std::string convert(DType to, DType from, const std::string& x) const;
};

}  // namespace arrvm::codegen
