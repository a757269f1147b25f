// The device buffers of the opencl backend's bases (what
// backends/host_memory.hpp is to the cpu backend): declared with a dtype
// and size, allocated on first use and zero-filled unless the first use
// writes every byte, released, renamed, written from and read to the host
// whole; the buffers of a launch's arguments and a kernel's scratch. Allocations and releases update the
// profile that `profile` returns (bytes of the bases).
#pragma once

#include <algorithm>
#include <cstring>
#include <functional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "backends/opencl/opencl_runtime.hpp"
#include "vm/dtype.hpp"
#include "vm/error.hpp"
#include "vm/profile.hpp"
#include "vm/view.hpp"

namespace arrvm::opencl {

class DeviceMemory {
 public:
  struct Buffer {
    DType dtype = DType::Float64;
    int64_t nelem = 0;
    Mem mem;  // null until first used

    std::size_t bytes() const { return static_cast<std::size_t>(nelem) * dtype_size(dtype); }
  };

  // Binds the memory to a context and queue (`device`: its name, for
  // messages).
  void attach(cl_context context, cl_command_queue queue, std::string device,
              std::function<Profile&()> profile) {
    context_ = context;
    queue_ = queue;
    device_ = std::move(device);
    profile_ = std::move(profile);
  }

  void declare(BaseId id, DType dtype, int64_t nelem) {
    ARRVM_ASSERT(nelem >= 0);
    release(id);
    buffers_[id] = Buffer{dtype, nelem, Mem()};
  }

  void release(BaseId id) {
    auto it = buffers_.find(id);
    if (it == buffers_.end()) return;
    // The driver keeps the buffer alive until queued kernels using it finish.
    if (it->second.mem) profile_().deallocated(it->second.bytes());
    buffers_.erase(it);
  }

  // Moves `from`'s buffer to `to` (Backend::rename), releasing what `to` held.
  void rename(BaseId from, BaseId to) {
    Buffer moved = std::move(find(from));
    buffers_.erase(from);
    release(to);
    buffers_[to] = std::move(moved);
  }

  Buffer& find(BaseId id) {
    auto it = buffers_.find(id);
    if (it == buffers_.end()) throw InternalError("opencl backend: unknown base b" + std::to_string(id));
    return it->second;
  }

  // Gives `b` (base `id`) its buffer, not filled: the caller writes every byte.
  void allocate(BaseId id, Buffer& b) {
    b.mem = new_buffer(b.bytes(), "b" + std::to_string(id));
    profile_().allocated(b.bytes());
  }

  // The base's device buffer, allocated and zero-filled on first write.
  cl_mem for_write(BaseId id) {
    Buffer& b = find(id);
    if (!b.mem) {
      allocate(id, b);
      if (b.bytes() > 0) fill(b.mem.get(), 0, b.bytes());
    }
    return b.mem.get();
  }

  // The base's device buffer, allocated zero-filled if never written (a
  // kernel's stride classes forbid re-pointing its view at a small zero
  // buffer with stride 0).
  cl_mem for_read(BaseId id) {
    Buffer& b = find(id);
    return b.mem ? b.mem.get() : for_write(id);
  }

  // The whole base from the host (bools normalized to 0/1: kernels treat
  // them as bytes) and to the host (a base never written reads as zeros),
  // counted in the profile's bytes to and from the device.
  void write_all(BaseId id, const void* src) {
    Buffer& b = find(id);
    const std::size_t bytes = b.bytes();
    if (bytes == 0) return;
    if (!b.mem) allocate(id, b);  // no fill: every byte is written now
    std::vector<unsigned char> normalized;
    if (b.dtype == DType::Bool) {
      const auto* in = static_cast<const unsigned char*>(src);
      normalized.resize(bytes);
      for (std::size_t i = 0; i < bytes; ++i) normalized[i] = in[i] != 0;
      src = normalized.data();
    }
    check(clEnqueueWriteBuffer(queue_, b.mem.get(), CL_TRUE, 0, bytes, src, 0, nullptr, nullptr),
          "writing b" + std::to_string(id) + " to the device");
    profile_().bytes_to_device += bytes;
  }
  void read_all(BaseId id, void* dst) {
    Buffer& b = find(id);
    const std::size_t bytes = b.bytes();
    if (bytes == 0) return;
    if (!b.mem) {
      std::memset(dst, 0, bytes);  // never written: zeros, nothing to move
      return;
    }
    check(clEnqueueReadBuffer(queue_, b.mem.get(), CL_TRUE, 0, bytes, dst, 0, nullptr, nullptr),
          "reading b" + std::to_string(id) + " from the device");
    profile_().bytes_from_device += bytes;
  }

  // A read-write buffer of `bytes` (a kernel's scratch: `what`, for the
  // message if the device is out of memory).
  Mem new_buffer(std::size_t bytes, const std::string& what) {
    cl_int err = CL_SUCCESS;
    Mem m(clCreateBuffer(context_, CL_MEM_READ_WRITE, std::max<std::size_t>(bytes, 1), nullptr, &err));
    if (err == CL_MEM_OBJECT_ALLOCATION_FAILURE || err == CL_OUT_OF_RESOURCES ||
        err == CL_OUT_OF_HOST_MEMORY || err == CL_INVALID_BUFFER_SIZE) {
      throw OutOfMemoryError("opencl backend: out of device memory allocating " + std::to_string(bytes) +
                             " bytes for " + what + " on " + device_ + " (" + error_name(err) + ")");
    }
    check(err, "clCreateBuffer(" + what + ")");
    return m;
  }

  // A read-only buffer holding a copy of `bytes` at `data` (a launch's arguments).
  Mem arg_buffer(const void* data, std::size_t bytes) {
    cl_int err = CL_SUCCESS;
    Mem m(clCreateBuffer(context_, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, std::max<std::size_t>(bytes, 8),
                         const_cast<void*>(data), &err));
    check(err, "clCreateBuffer(launch arguments)");
    return m;
  }

 private:
  void fill(cl_mem m, int byte, std::size_t bytes) {
    const cl_uchar pattern = static_cast<cl_uchar>(byte);
    check(clEnqueueFillBuffer(queue_, m, &pattern, 1, 0, bytes, 0, nullptr, nullptr), "clEnqueueFillBuffer");
  }

  cl_context context_ = nullptr;
  cl_command_queue queue_ = nullptr;
  std::string device_;
  std::function<Profile&()> profile_;
  std::unordered_map<BaseId, Buffer> buffers_;
};

}  // namespace arrvm::opencl
