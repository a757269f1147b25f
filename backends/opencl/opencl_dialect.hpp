// OpenCL C as a dialect of the scalar helpers (backends/c_emitter.hpp; the
// kernels themselves are printed by OpenClPrinter, opencl_printer.hpp),
// and the program build options. (A device's own loop kinds, work-group
// trees and chunked scans, are the IR's: opencl_printer.hpp.)
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

}  // namespace arrvm::opencl
