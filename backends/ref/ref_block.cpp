#include "backends/ref/ref_block.hpp"

#include <string>
#include <unordered_set>
#include <vector>

#include "backends/ref/ref_kernels.hpp"
#include "vm/error.hpp"
#include "vm/length_class.hpp"

namespace arrvm::ref {

namespace {

// Kernels reach HostMemory through this.
class HostAccess final : public MemoryAccess {
 public:
  HostAccess(HostMemory& memory, std::unordered_map<BaseId, int64_t>& lengths)
      : memory_(memory), lengths_(lengths) {}

  BaseMemory for_write(BaseId id, int64_t writes) override {
    const HostMemory::Buffer& b = memory_.find(id);
    void* p = memory_.for_write(id, writes > 0 && writes == b.nelem);
    return {p, b.dtype, b.nelem};
  }
  BaseMemory for_read(BaseId id) override {
    const HostMemory::Buffer& b = memory_.find(id);
    return {b.data.get(), b.dtype, b.nelem};
  }
  void release(BaseId id) override { memory_.release(id); }
  void kept(BaseId out, int64_t n) override { lengths_[out] = n; }

  // Runs one instruction; one of a length class over the length its compress kept.
  void run(const Instruction& in) {
    if (in.length_class < 0) {
      run_instruction(in, *this);
      return;
    }
    const auto it = lengths_.find(in.length_class);
    if (it == lengths_.end())
      throw InternalError("ref: `" + to_string(in) + "` of a length class before its compress");
    Instruction resolved = in;
    resolve_length(resolved, it->second);
    run_instruction(resolved, *this);
  }

 private:
  HostMemory& memory_;
  std::unordered_map<BaseId, int64_t>& lengths_;
};

bool reads_any(const Instruction& in, const std::unordered_set<BaseId>& bases) {
  for (int k = 0; k < in.nin; ++k) {
    if (!in.in[k].is_const && bases.count(in.in[k].view.base) != 0) return true;
  }
  // A member of a length class whose compress failed has no length.
  return in.length_class >= 0 && bases.count(-1 - in.length_class) != 0;
}

}  // namespace

void run_block(std::span<const Instruction> batch, std::span<const uint32_t> block, HostMemory& memory,
               std::unordered_map<BaseId, int64_t>& lengths) {
  HostAccess access(memory, lengths);
  std::vector<InstructionsFailed::Failure> failures;
  std::unordered_set<BaseId> bad;  // written by a failed or skipped instruction of this block
  std::string first;
  for (uint32_t i : block) {
    ARRVM_ASSERT(i < batch.size());
    const Instruction& in = batch[i];
    if (!bad.empty() && reads_any(in, bad)) {
      if (!is_control(in.op)) bad.insert(in.out.base);
      continue;
    }
    try {
      access.run(in);
    } catch (const InternalError&) {
      throw;
    } catch (const InterruptedError&) {
      throw;
    } catch (const Error& e) {
      if (failures.empty()) first = e.what();
      failures.push_back({i, std::current_exception()});
      bad.insert(in.out.base);
      if (in.op == Opcode::Compress) bad.insert(-1 - in.out.base);  // (its length class, above)
    }
  }
  if (!failures.empty()) throw InstructionsFailed(std::move(failures), 1, first);
}

}  // namespace arrvm::ref
