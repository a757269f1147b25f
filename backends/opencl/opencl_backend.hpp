// `opencl`: lowers each block to the loop IR (backends/loop_ir.hpp), prints
// it as OpenCL C (backends/opencl/opencl_dialect.hpp), builds it with the
// OpenCL runtime of the device that Config.opencl_device selects (PoCL on a
// machine without a GPU) and runs it there. Base arrays live in device
// buffers from their first write until they are freed; data crosses to the
// host only for copy_from_host / copy_to_host (Profile::bytes_to_device /
// bytes_from_device count exactly those base contents).
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "backends/backend.hpp"

namespace arrvm {

// Throws Error if there is no OpenCL device, or none matches
// Config.opencl_device (the message lists the devices).
std::unique_ptr<Backend> make_opencl_backend(const Config& config);

// The OpenCL platforms and devices found, one line each, for `arrvm info`
// ("OpenCL: no platform found ..." when there is none).
std::string opencl_devices_report();

// Counters of an opencl backend (for tests and benchmarks), typed: the
// counters and labels of Backend::stats() under these names. Throws
// InternalError if `backend` is not an opencl backend.
struct OpenClBackendStats {
  std::string device;           // the device's name
  uint64_t programs_built = 0;  // built from source (a batch's new kernels together)
  uint64_t sources_built = 0;   // kernel sources in them
  uint64_t memory_hits = 0;     // programs found built in this process
  uint64_t disk_hits = 0;       // built from a cached binary
  uint64_t corrupt = 0;         // cache entries rejected and removed
  uint64_t kernels_launched = 0;
  uint64_t sequential_launches = 0;  // on one work item: the order of a loop mattered
};
OpenClBackendStats opencl_backend_stats(const Backend& backend);

}  // namespace arrvm
