#include "backends/ref/ref_backend.hpp"

#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <unordered_map>

#include "backends/ref/ref_kernels.hpp"
#include "vm/error.hpp"
#include "vm/length_class.hpp"

namespace arrvm {

namespace {

constexpr std::size_t kAlignment = 64;

struct Buffer {
  DType dtype;
  int64_t nelem;
  // Null until first written; std::free, or the user's deleter (adopt).
  std::unique_ptr<void, std::function<void(void*)>> data{nullptr, std::free};
};

class RefBackend final : public Backend, private ref::MemoryAccess {
 public:
  std::string name() const override { return "ref"; }

  void declare(BaseId id, DType dtype, int64_t nelem) override {
    ARRVM_ASSERT(nelem >= 0);
    buffers_[id] = Buffer{dtype, nelem, {nullptr, std::free}};
  }

  bool adopt(BaseId id, void* data, std::function<void(void*)> deleter) override {
    Buffer& b = find(id);
    if (b.dtype == DType::Bool) {  // kernels read C++ bools: normalize in place
      auto* p = static_cast<unsigned char*>(data);
      for (int64_t i = 0; i < b.nelem; ++i) p[i] = p[i] != 0;
    }
    if (!deleter) deleter = [](void*) {};
    b.data = std::unique_ptr<void, std::function<void(void*)>>(data, std::move(deleter));
    return true;
  }

  void copy_from_host(BaseId id, const void* src) override {
    const ref::BaseMemory m = for_write(id);
    if (bytes(m) == 0) return;
    if (m.dtype != DType::Bool) {
      std::memcpy(m.data, src, bytes(m));
      return;
    }
    // Kernels read bools as C++ bool, for which any byte but 0/1 is undefined
    // behaviour: normalize what the host gave (any non-zero byte is true).
    const auto* in = static_cast<const unsigned char*>(src);
    auto* out = static_cast<bool*>(m.data);
    for (int64_t i = 0; i < m.nelem; ++i) out[i] = in[i] != 0;
  }

  void copy_to_host(BaseId id, void* dst) override {
    const ref::BaseMemory m = for_read(id);
    if (bytes(m) == 0) return;
    if (m.data == nullptr) {
      std::memset(dst, 0, bytes(m));  // never written: zeros
    } else {
      std::memcpy(dst, m.data, bytes(m));
    }
  }

  void release(BaseId id) override { buffers_.erase(id); }
  bool can_rename() const override { return true; }
  void rename(BaseId from, BaseId to) override {
    Buffer moved = std::move(find(from));
    buffers_.erase(from);
    buffers_[to] = std::move(moved);
  }
  void kept(BaseId out, int64_t n) override { lengths_[out] = n; }

  void execute(std::span<const Instruction> batch, const Partition& partition) override {
    progress_ = {};
    for (const Block& block : partition.blocks) {
      for (uint32_t i : block) {
        ARRVM_ASSERT(i < batch.size());
        if (batch[i].length_class < 0) {
          ref::run_instruction(batch[i], *this);
          continue;
        }
        // An instruction of a length class: over the length its compress kept.
        const auto it = lengths_.find(batch[i].length_class);
        if (it == lengths_.end()) throw InternalError("ref backend: a length class before its compress");
        Instruction resolved = batch[i];
        resolve_length(resolved, it->second);
        ref::run_instruction(resolved, *this);
      }
      ++progress_.done;
    }
  }

 private:
  static std::size_t bytes(const ref::BaseMemory& m) {
    return static_cast<std::size_t>(m.nelem) * dtype_size(m.dtype);
  }

  Buffer& find(BaseId id) {
    auto it = buffers_.find(id);
    if (it == buffers_.end()) throw InternalError("ref backend: unknown base b" + std::to_string(id));
    return it->second;
  }

  ref::BaseMemory for_write(BaseId id) override {
    Buffer& b = find(id);
    if (!b.data) {
      const std::size_t n = static_cast<std::size_t>(b.nelem) * dtype_size(b.dtype);
      // aligned_alloc wants a multiple of the alignment (and a non-zero size).
      const std::size_t rounded = (n + kAlignment - 1) / kAlignment * kAlignment;
      void* p = std::aligned_alloc(kAlignment, rounded == 0 ? kAlignment : rounded);
      if (p == nullptr) throw Error("ref backend: out of memory allocating " + std::to_string(n) + " bytes");
      std::memset(p, 0, rounded == 0 ? kAlignment : rounded);
      b.data.reset(p);
    }
    return {b.data.get(), b.dtype, b.nelem};
  }

  ref::BaseMemory for_read(BaseId id) override {
    Buffer& b = find(id);
    return {b.data.get(), b.dtype, b.nelem};
  }

  std::unordered_map<BaseId, Buffer> buffers_;
};

}  // namespace

std::unique_ptr<Backend> make_ref_backend(const Config&) {
  return std::make_unique<RefBackend>();
}

}  // namespace arrvm
