#include "backends/ref/ref_backend.hpp"

#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <unordered_set>
#include <vector>

#include "backends/host_memory.hpp"
#include "backends/ref/ref_kernels.hpp"
#include "vm/error.hpp"
#include "vm/interrupt.hpp"
#include "vm/length_class.hpp"

namespace arrvm {

namespace {

// Memory is HostMemory's (64-byte aligned, zero-filled, lazily allocated,
// ARRVM_MEM_LIMIT), as the cpu backend's.
class RefBackend final : public Backend, private ref::MemoryAccess {
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

  void release(BaseId id) override { memory_.release(id); }
  bool can_rename() const override { return true; }
  void rename(BaseId from, BaseId to) override { memory_.rename(from, to); }
  void kept(BaseId out, int64_t n) override { lengths_[out] = n; }

  // An instruction that fails (an index out of range, an empty reduction,
  // memory) does not stop its block: the instructions after it that read
  // what failed are skipped, the others run, and the block then throws
  // InstructionsFailed (vm/error.hpp) naming the failures, as a fused
  // kernel of the cpu backend, which runs to its end, does.
  void execute(std::span<const Instruction> batch, const Partition& partition) override {
    progress_ = {};
    std::vector<InstructionsFailed::Failure> failures;
    std::unordered_set<BaseId> bad;  // written by a failed or skipped instruction of this block
    std::string first;
    for (const Block& block : partition.blocks) {
      check_interrupt();
      failures.clear();
      bad.clear();
      for (uint32_t i : block) {
        ARRVM_ASSERT(i < batch.size());
        const Instruction& in = batch[i];
        if (!bad.empty() && reads_any(in, bad)) {
          if (!is_control(in.op)) bad.insert(in.out.base);
          continue;
        }
        try {
          run(in);
        } catch (const InternalError&) {
          throw;
        } catch (const InterruptedError&) {
          throw;
        } catch (const Error& e) {
          if (failures.empty()) first = e.what();
          failures.push_back({i, std::current_exception()});
          bad.insert(in.out.base);
          if (in.op == Opcode::Compress) bad.insert(-1 - in.out.base);  // (its length class, below)
        }
      }
      if (!failures.empty()) throw InstructionsFailed(std::move(failures), 1, first);
      ++progress_.done;
    }
  }

 private:
  static bool reads_any(const Instruction& in, const std::unordered_set<BaseId>& bases) {
    for (int k = 0; k < in.nin; ++k) {
      if (!in.in[k].is_const && bases.count(in.in[k].view.base) != 0) return true;
    }
    // A member of a length class whose compress failed has no length.
    return in.length_class >= 0 && bases.count(-1 - in.length_class) != 0;
  }

  void run(const Instruction& in) {
    if (in.length_class < 0) {
      ref::run_instruction(in, *this);
      return;
    }
    // An instruction of a length class: over the length its compress kept.
    const auto it = lengths_.find(in.length_class);
    if (it == lengths_.end()) throw InternalError("ref backend: a length class before its compress");
    Instruction resolved = in;
    resolve_length(resolved, it->second);
    ref::run_instruction(resolved, *this);
  }

  ref::BaseMemory for_write(BaseId id) override {
    void* p = memory_.for_write(id);
    const HostMemory::Buffer& b = memory_.find(id);
    return {p, b.dtype, b.nelem};
  }

  ref::BaseMemory for_read(BaseId id) override {
    const HostMemory::Buffer& b = memory_.find(id);
    return {b.data.get(), b.dtype, b.nelem};
  }

  HostMemory memory_;
};

}  // namespace

std::unique_ptr<Backend> make_ref_backend(const Config& config) {
  return std::make_unique<RefBackend>(config);
}

}  // namespace arrvm
