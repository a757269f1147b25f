// `cpu`: lowers each block to one loop nest (backends/loop_ir.hpp, lower),
// prints it as C with OpenMP (backends/c_printer.hpp, CPrinter), compiles it with Config.cc and Config.cflags
// into a shared object (cache/kernel_cache.hpp) and runs it. Compiled kernels are also memoized by the
// kernel's structure signature, so a launch of a kernel seen before costs the lowering and one hash-map
// lookup, not printing and hashing its source.
#pragma once

#include <memory>

#include "backends/backend.hpp"
#include "cache/kernel_cache.hpp"

namespace arrvm {

std::unique_ptr<Backend> make_cpu_backend(const Config& config);

// Kernel counters of a cpu backend (for tests and profiling), typed: the
// counters of Backend::stats() under these names. Throws InternalError if
// `backend` is not a cpu backend. cache.memory_hits includes launches served
// by the signature memo.
struct CpuBackendStats {
  KernelCacheStats cache;
  uint64_t kernels_launched = 0;  // generated kernels run
  uint64_t contracted = 0;        // arrays turned into scalar temporaries
  uint64_t lowerings_reused = 0;  // blocks that re-bound a kept lowering (codegen::BlockKey)
};
CpuBackendStats cpu_backend_stats(const Backend& backend);

}  // namespace arrvm
