// `cpu`: lowers each block to the loop IR (backends/loop_ir.hpp), prints it
// as C with OpenMP (backends/c_emitter.hpp), compiles it with Config.cc and
// Config.cflags into a shared object and runs it (cache/kernel_cache.hpp).
#pragma once

#include <memory>

#include "backends/backend.hpp"
#include "cache/kernel_cache.hpp"

namespace arrvm {

std::unique_ptr<Backend> make_cpu_backend(const Config& config);

// Kernel counters of a cpu backend (for tests and profiling). Throws
// InternalError if `backend` is not a cpu backend.
struct CpuBackendStats {
  KernelCacheStats cache;
  uint64_t kernels_launched = 0;  // generated kernels run
  uint64_t interpreted = 0;       // instructions run by the ref interpreter (gather, scatter)
  uint64_t contracted = 0;        // arrays turned into scalar temporaries
};
CpuBackendStats cpu_backend_stats(Backend& backend);

}  // namespace arrvm
