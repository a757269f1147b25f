// How the opencl backend enqueues a kernel: the work-group geometry for a
// kernel and the size of its work-item loop (a GPU: groups of the device's
// size, interleaved; a CPU device: a few work items, each a long contiguous
// chunk), and the launch itself (the buffers, then the argument buffers `a`
// and `c`), counted and shown as a timeline span.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <unordered_map>
#include <vector>

#include "backends/opencl/device_memory.hpp"
#include "backends/opencl/opencl_runtime.hpp"
#include "vm/profile.hpp"

namespace arrvm::opencl {

class Launcher {
 public:
  struct Geometry {
    std::size_t global = 1, local = 1;
  };

  // The work-group size of kernels with local memory (GroupTree, the
  // chunked scan's prefix) on `d`: a power of two.
  static std::size_t group_size(const DeviceInfo& d);

  // Binds the launcher to a device's queue and the memory whose argument
  // buffers it fills.
  void attach(const DeviceInfo& device, cl_command_queue queue, DeviceMemory* memory);

  std::size_t local_size() const { return local_size_; }
  std::size_t max_groups() const { return max_groups_; }

  // How to launch `kernel` over `total` iterations of its work-item loop
  // (`work` elements in all, if an iteration is more than one). groups ==
  // 0: as many groups of local_size() as cover `total` (capped: the
  // work-item loop strides over the rest), or on a CPU device a few single
  // work items with long chunks; sequential: one work item.
  Geometry geometry(cl_kernel kernel, int64_t total, bool sequential, std::size_t groups = 0,
                    int64_t work = -1);

  // Launches `kernel` with buffers `mems`, then the argument buffers a and
  // c, with geometry `g`; the span in `profile`'s timeline names the block
  // and its instructions and `total` (the iterations).
  void launch(cl_kernel kernel, std::span<const cl_mem> mems, const std::vector<int64_t>& a,
              const std::vector<uint64_t>& c, Geometry g, int64_t total, bool sequential, Profile& profile,
              int64_t block, int64_t instructions);

  uint64_t launched() const { return launched_; }
  uint64_t sequential() const { return sequential_; }

 private:
  // The work-group size for `kernel`: the device's (capped), or less if the
  // kernel cannot run that many work items (a GPU's registers), a power of two.
  std::size_t kernel_local_size(cl_kernel kernel);

  const DeviceInfo* device_ = nullptr;
  cl_command_queue queue_ = nullptr;
  DeviceMemory* memory_ = nullptr;
  std::size_t local_size_ = 1, max_groups_ = 1;
  std::unordered_map<cl_kernel, std::size_t> kernel_local_;  // kernels outlive the launcher's use of them
  uint64_t launched_ = 0, sequential_ = 0;
};

}  // namespace arrvm::opencl
