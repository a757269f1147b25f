// Host memory of base arrays for host backends: 64-byte aligned, zero-filled,
// allocated lazily on first write (a base freed before it is written never
// gets memory). Used by the cpu backend; the ref backend has its own copy
// of the same rules and could move onto this. With a profile attached
// (track), allocations and releases update its bytes_allocated(_peak), in
// bytes of the bases (alignment padding not counted).
#pragma once

#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <unordered_map>

#include "vm/error.hpp"
#include "vm/profile.hpp"
#include "vm/view.hpp"

namespace arrvm {

class HostMemory {
 public:
  static constexpr std::size_t kAlignment = 64;

  struct Buffer {
    DType dtype = DType::Float64;
    int64_t nelem = 0;
    std::unique_ptr<void, std::function<void(void*)>> data{nullptr, std::free};  // null until first written
    bool adopted = false;  // data is the user's (Array::adopt): not counted as allocated

    std::size_t bytes() const { return static_cast<std::size_t>(nelem) * dtype_size(dtype); }
  };

  void declare(BaseId id, DType dtype, int64_t nelem) {
    ARRVM_ASSERT(nelem >= 0);
    Buffer b;
    b.dtype = dtype;
    b.nelem = nelem;
    buffers_[id] = std::move(b);
  }

  void track(Profile* profile) { profile_ = profile; }

  // Makes `data` the base's memory (Backend::adopt); bools are normalized to
  // 0/1 in place (kernels read them as C bools).
  void adopt(BaseId id, void* data, std::function<void(void*)> deleter) {
    Buffer& b = find(id);
    if (b.data && !b.adopted && profile_ != nullptr) profile_->deallocated(b.bytes());
    if (b.dtype == DType::Bool) {
      auto* p = static_cast<unsigned char*>(data);
      for (int64_t i = 0; i < b.nelem; ++i) p[i] = p[i] != 0;
    }
    if (!deleter) deleter = [](void*) {};
    b.data = std::unique_ptr<void, std::function<void(void*)>>(data, std::move(deleter));
    b.adopted = true;
  }

  void release(BaseId id) {
    auto it = buffers_.find(id);
    if (it == buffers_.end()) return;
    if (it->second.data && !it->second.adopted && profile_ != nullptr) profile_->deallocated(it->second.bytes());
    buffers_.erase(it);
  }

  Buffer& find(BaseId id) {
    auto it = buffers_.find(id);
    if (it == buffers_.end()) throw InternalError("host memory: unknown base b" + std::to_string(id));
    return it->second;
  }

  // The base's memory, allocating (zero-filled) on first use.
  void* for_write(BaseId id) {
    Buffer& b = find(id);
    if (!b.data) {
      const std::size_t n = b.bytes();
      const std::size_t rounded = n == 0 ? kAlignment : (n + kAlignment - 1) / kAlignment * kAlignment;
      void* p = std::aligned_alloc(kAlignment, rounded);
      if (p == nullptr) throw Error("out of memory allocating " + std::to_string(n) + " bytes");
      std::memset(p, 0, rounded);
      b.data.reset(p);
      if (profile_ != nullptr) profile_->allocated(n);
    }
    return b.data.get();
  }

  // The base's memory, or nullptr if it was never written.
  void* for_read(BaseId id) { return find(id).data.get(); }

 private:
  std::unordered_map<BaseId, Buffer> buffers_;
  Profile* profile_ = nullptr;
};

}  // namespace arrvm
