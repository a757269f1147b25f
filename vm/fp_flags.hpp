// Floating-point exception flags: what NumPy's errstate reports.
//
// IEEE 754 operations set sticky per-thread flags (divide by zero,
// overflow, underflow, invalid); NumPy reads them after each ufunc and
// warns or raises as `np.seterr`/`np.errstate` say. The VM reads them the
// same way around what it runs: the thread that runs a flush or an eager
// instruction clears its flags before and reads them after (ref's loops,
// the cpu backend's interpreted blocks and kernels' own share), and a
// backend adds its other threads' (the cpu backend: the OpenMP team's).
// The frontend takes the accumulated flags (Vm::take_fp_flags) and acts on
// them. Backends that cannot read flags (OpenCL devices have none) report
// nothing.
#pragma once

#include <cstdint>
#include <string>

namespace arrvm {

enum FpFlag : uint32_t {
  kFpDivide = 1,     // division by zero (or a pole: log(0))
  kFpOverflow = 2,   // a finite result too large
  kFpUnderflow = 4,  // a nonzero result too small (NumPy ignores it by default)
  kFpInvalid = 8,    // no defined result (0/0, sqrt(-1), inf - inf): a NaN
};

// This thread's flags, as FpFlag bits.
uint32_t fp_flags_read();
// Clears this thread's flags.
void fp_flags_clear();
// This thread's flags, cleared.
inline uint32_t fp_flags_take() {
  const uint32_t f = fp_flags_read();
  if (f != 0) fp_flags_clear();
  return f;
}

// Every thread of the OpenMP (libgomp) team of `threads` threads that the
// kernels this process loaded run on: their flags, each thread's cleared
// (0 when no kernel has loaded libgomp: then no team exists).
uint32_t fp_flags_take_team(int threads);

}  // namespace arrvm
