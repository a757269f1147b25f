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
};

// The full translation unit for `k`, with its kernel function named `name`.
std::string emit_c(const LoopKernel& k, const std::string& name, const CDialect& dialect = CDialect{});

// The translation unit of a reduction or scan (backends/loop_ir.hpp).
std::string emit_sweep_c(const SweepKernel& k, const std::string& name, const CDialect& dialect = CDialect{});

// C spelling of a dtype's element type (bool is uint8_t holding 0 or 1).
const char* c_type(DType t);

}  // namespace arrvm::codegen
