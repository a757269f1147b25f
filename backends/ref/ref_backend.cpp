#include "backends/ref/ref_backend.hpp"

#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "backends/host_memory.hpp"
#include "backends/ref/dense_loops.hpp"
#include "backends/ref/ref_block.hpp"
#include "vm/error.hpp"
#include "vm/interrupt.hpp"

namespace arrvm {

namespace {

// Memory is HostMemory's (64-byte aligned, zero-filled, lazily allocated,
// ARRVM_MEM_LIMIT), as the cpu backend's.
class RefBackend final : public Backend {
 public:
  explicit RefBackend(const Config& config) { memory_.limit(config.mem_limit); }

  std::string name() const override { return "ref"; }

  void declare(BaseId id, DType dtype, int64_t nelem) override { memory_.declare(id, dtype, nelem); }

  bool adopt(BaseId id, void* data, std::function<void(void*)> deleter) override {
    memory_.adopt(id, data, std::move(deleter));  // (normalizes bools, which kernels read as C++ bools)
    return true;
  }

  void copy_from_host(BaseId id, const void* src) override {
    HostMemory::Buffer& b = memory_.find(id);
    if (b.bytes() == 0) return;
    void* dst = memory_.for_write(id, /*full=*/true);
    if (b.dtype != DType::Bool) {
      std::memcpy(dst, src, b.bytes());
      return;
    }
    // Kernels read bools as C++ bool, for which any byte but 0/1 is undefined
    // behaviour: normalize what the host gave (any non-zero byte is true).
    const auto* in = static_cast<const unsigned char*>(src);
    auto* out = static_cast<bool*>(dst);
    for (int64_t i = 0; i < b.nelem; ++i) out[i] = in[i] != 0;
  }

  void copy_to_host(BaseId id, void* dst) override {
    HostMemory::Buffer& b = memory_.find(id);
    if (b.bytes() == 0) return;
    if (!b.data) {
      std::memset(dst, 0, b.bytes());  // never written: zeros
    } else {
      std::memcpy(dst, b.data.get(), b.bytes());
    }
  }

  bool read_elements(BaseId id, int64_t offset, int64_t stride, int64_t count, void* dst) override {
    memory_.read(id, offset, count, dst, stride);
    return true;
  }

  bool write_elements(BaseId id, int64_t offset, int64_t count, const void* src) override {
    memory_.write(id, offset, count, src);
    return true;
  }

  void release(BaseId id) override { memory_.release(id); }
  bool can_rename() const override { return true; }
  void rename(BaseId from, BaseId to) override { memory_.rename(from, to); }

  // Each block through ref::run_block (backends/ref/ref_block.hpp): an
  // instruction that fails does not stop its block, which then throws
  // InstructionsFailed naming the failures.
  void execute(std::span<const Instruction> batch, const Partition& partition) override {
    progress_ = {};
    for (const Block& block : partition.blocks) {
      check_interrupt();
      ref::run_block(batch, block, memory_, lengths_);
      ++progress_.done;
    }
  }

  bool run_now(std::span<const Instruction> batch, std::span<const uint32_t> block) override {
    ref::run_block(batch, block, memory_, lengths_);
    return true;
  }

  bool run_dense_now(Opcode op, std::span<const DenseRun> in, DenseRun out, DType out_dtype,
                     int64_t n) override {
    return ref::run_dense(memory_, op, in, out, out_dtype, n);
  }

 private:
  HostMemory memory_;
};

}  // namespace

std::unique_ptr<Backend> make_ref_backend(const Config& config) {
  return std::make_unique<RefBackend>(config);
}

}  // namespace arrvm
