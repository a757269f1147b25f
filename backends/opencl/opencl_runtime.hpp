// A thin layer over the OpenCL C API for the opencl backend: status checks
// that throw, owning handles, device discovery and selection, and the
// program cache (built programs in memory, their binaries on disk).
#pragma once

#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "vm/config.hpp"
#include "vm/profile.hpp"

namespace arrvm::opencl {

// The name of an OpenCL status code ("CL_OUT_OF_RESOURCES"), or its number.
std::string error_name(cl_int status);

// Throws BackendError "opencl: <what> failed: <error name>" unless CL_SUCCESS.
void check(cl_int status, const std::string& what);

// Owns one reference to an OpenCL object.
template <typename T, cl_int (*Release)(T)>
class Handle {
 public:
  Handle() = default;
  explicit Handle(T h) : h_(h) {}
  ~Handle() { reset(); }
  Handle(Handle&& o) noexcept : h_(std::exchange(o.h_, nullptr)) {}
  Handle& operator=(Handle&& o) noexcept {
    if (this != &o) {
      reset();
      h_ = std::exchange(o.h_, nullptr);
    }
    return *this;
  }
  Handle(const Handle&) = delete;
  Handle& operator=(const Handle&) = delete;

  T get() const { return h_; }
  explicit operator bool() const { return h_ != nullptr; }
  void reset() {
    if (h_ != nullptr) Release(h_);
    h_ = nullptr;
  }

 private:
  T h_ = nullptr;
};

using Context = Handle<cl_context, clReleaseContext>;
using Queue = Handle<cl_command_queue, clReleaseCommandQueue>;
using Program = Handle<cl_program, clReleaseProgram>;
using Kernel = Handle<cl_kernel, clReleaseKernel>;
using Mem = Handle<cl_mem, clReleaseMemObject>;

struct DeviceInfo {
  cl_platform_id platform = nullptr;
  cl_device_id device = nullptr;
  int platform_index = 0, device_index = 0;
  std::string platform_name, platform_version;
  std::string name, vendor, device_version, driver_version;
  bool gpu = false;
  bool fp64 = false;                        // cl_khr_fp64
  bool correctly_rounded_fp32_div = false;  // CL_FP_CORRECTLY_ROUNDED_DIVIDE_SQRT
  std::size_t max_work_group_size = 1;
  cl_uint compute_units = 1;
  std::size_t max_parameter_size = 0;
  uint64_t global_mem_size = 0;
};

// Every device of every platform, in platform and device order; empty if
// there is no OpenCL platform (no driver installed).
std::vector<DeviceInfo> list_devices();

// The device that ARRVM_OPENCL_DEVICE (`spec`) names: empty = the first
// GPU, else the first device; "P:D" = device D of platform P (indices from
// 0); anything else = the first device whose name contains it. Throws Error
// saying that no OpenCL device was found, or listing the devices when none
// matches.
DeviceInfo select_device(const std::string& spec);

// "P:D name [type] (platform ..., driver ..., fp64)" for `arrvm info`.
std::string describe(const DeviceInfo& d);

struct ProgramCacheStats {
  uint64_t built = 0;          // device compiler runs (one per program, whatever its kernels)
  uint64_t sources_built = 0;  // kernel sources in those programs
  uint64_t memory_hits = 0;    // sources found built in this process
  uint64_t disk_hits = 0;      // sources whose program came from the cache directory
  uint64_t corrupt = 0;        // disk entries rejected (bad file or binary) and removed
};

// Programs built for one device, by source: in memory and, as binaries, in
// Config.cache_dir/opencl (Config.cache = on | memory | off). A disk entry is
// named by the SHA-256 of its key (source, build options, platform, device
// name and version, driver version), stores the full key, the binary and a
// checksum (cache/disk_entry.hpp); an entry whose key or checksum does not
// match, or whose binary the driver rejects, is removed and rebuilt. The
// sources of one prepare() call that are found nowhere are built together
// as one program (a PoCL build costs about the same for one kernel as for
// fifty); the entry of each of them then names that program's entry.
class ProgramCache {
 public:
  ProgramCache(const Config& config, cl_context context, const DeviceInfo& device, std::string options);

  // Looks up every source (counting memory hits, disk hits and misses into
  // `profile`) and builds the missing ones as one program. Their kernel
  // names must differ and their helpers be include-guarded (the OpenCL
  // dialect does both). Build time goes to profile.compile_s.
  void prepare(const std::vector<std::string>& sources, Profile& profile);

  // The kernel `name` of `source`: prepared before, else looked up and built
  // alone (counted as prepare counts). Throws BackendError with the build
  // log if the program does not build.
  cl_kernel get(const std::string& source, const std::string& name, Profile& profile);

  const ProgramCacheStats& stats() const { return stats_; }

 private:
  struct Entry {
    Program program;
    std::map<std::string, Kernel> kernels;
  };
  std::string key_of(const std::string& source) const;
  std::string file_of(const std::string& key) const;
  std::shared_ptr<Entry> load(const std::string& key, Profile& profile);
  std::shared_ptr<Entry> build(const std::string& source, std::size_t sources, Profile& profile);
  Program from_binary(const std::string& binary);
  void store(const std::string& key, const Program& program);

  cl_context context_;
  DeviceInfo device_;
  std::string options_;
  CacheMode mode_;
  std::string dir_;
  std::unordered_map<std::string, std::shared_ptr<Entry>> entries_;       // by source
  std::unordered_map<std::string, std::shared_ptr<Entry>> loaded_files_;  // merged programs read from disk
  std::vector<std::shared_ptr<Entry>> uncached_;                          // mode off: kept until the end
  ProgramCacheStats stats_;
};

}  // namespace arrvm::opencl
