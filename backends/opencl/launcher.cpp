#include "backends/opencl/launcher.hpp"

#include <algorithm>

#include "vm/timeline.hpp"

namespace arrvm::opencl {

namespace {

// Work-items per group (a power of two; fewer if the device allows fewer)
// and work-groups per compute unit at most: a kernel's work-item loop
// strides over anything larger.
constexpr std::size_t kLocalSize = 256;
constexpr std::size_t kGroupsPerComputeUnit = 16;
// On a CPU device: work items per compute unit at most, and the fewest
// elements worth a work item of its own.
constexpr std::size_t kCpuItemsPerUnit = 8;
constexpr int64_t kCpuChunkMin = 4096;

std::size_t floor_pow2(std::size_t n) {
  std::size_t p = 1;
  while (p * 2 <= n) p *= 2;
  return p;
}

}  // namespace

std::size_t Launcher::group_size(const DeviceInfo& d) {
  return floor_pow2(std::min(kLocalSize, d.max_work_group_size));
}

void Launcher::attach(const DeviceInfo& device, cl_command_queue queue, DeviceMemory* memory) {
  device_ = &device;
  queue_ = queue;
  memory_ = memory;
  local_size_ = group_size(device);
  max_groups_ = static_cast<std::size_t>(device.compute_units) * kGroupsPerComputeUnit;
}

std::size_t Launcher::kernel_local_size(cl_kernel kernel) {
  auto it = kernel_local_.find(kernel);
  if (it != kernel_local_.end()) return it->second;
  std::size_t max = 0;
  if (clGetKernelWorkGroupInfo(kernel, device_->device, CL_KERNEL_WORK_GROUP_SIZE, sizeof max, &max,
                               nullptr) != CL_SUCCESS ||
      max == 0) {
    max = local_size_;
  }
  return kernel_local_[kernel] = floor_pow2(std::min(max, local_size_));
}

Launcher::Geometry Launcher::geometry(cl_kernel kernel, int64_t total, bool sequential, std::size_t groups,
                                      int64_t work) {
  std::size_t local = sequential ? 1 : std::min(local_size_, kernel_local_size(kernel));
  if (groups == 0 && !sequential && !device_->gpu) {
    // A CPU device: a few work items per core, each a long contiguous
    // chunk (the printer's chunked loops), one per work-group.
    local = 1;
    const std::size_t most = std::min<std::size_t>(static_cast<std::size_t>(std::max<int64_t>(total, 1)),
                                                   device_->compute_units * kCpuItemsPerUnit);
    groups = std::clamp<std::size_t>(static_cast<std::size_t>((work < 0 ? total : work) / kCpuChunkMin) + 1,
                                     1, most);
  } else if (groups == 0) {
    const std::size_t need = (static_cast<std::size_t>(std::max<int64_t>(total, 1)) + local - 1) / local;
    groups = sequential ? 1 : std::clamp<std::size_t>(need, 1, max_groups_);
  }
  return {groups * local, local};
}

void Launcher::launch(cl_kernel kernel, std::span<const cl_mem> mems, const std::vector<int64_t>& a,
                      const std::vector<uint64_t>& c, Geometry g, int64_t total, bool sequential,
                      Profile& profile, int64_t block, int64_t instructions) {
  Mem abuf = memory_->arg_buffer(a.data(), a.size() * sizeof(int64_t));
  Mem cbuf = c.empty() ? Mem() : memory_->arg_buffer(c.data(), c.size() * sizeof(uint64_t));
  cl_uint arg = 0;
  for (cl_mem m : mems) check(clSetKernelArg(kernel, arg++, sizeof(cl_mem), &m), "clSetKernelArg");
  cl_mem am = abuf.get(), cm = c.empty() ? abuf.get() : cbuf.get();
  check(clSetKernelArg(kernel, arg++, sizeof(cl_mem), &am), "clSetKernelArg");
  check(clSetKernelArg(kernel, arg++, sizeof(cl_mem), &cm), "clSetKernelArg");
  {
    // Launches are asynchronous: the span is the enqueue; the device's
    // time shows in the batch's `execute` span, which waits for the queue.
    ScopedSpan span(profile, nullptr, "kernel (enqueue)", "kernel",
                    {{"block", block}, {"instructions", instructions}, {"elements", total}});
    check(clEnqueueNDRangeKernel(queue_, kernel, 1, nullptr, &g.global, &g.local, 0, nullptr, nullptr),
          "clEnqueueNDRangeKernel");
  }
  ++launched_;
  if (sequential) ++sequential_;
}

}  // namespace arrvm::opencl
