#include "backends/ref/ref_block.hpp"

#include <string>
#include <unordered_set>
#include <vector>

#include "backends/ref/ref_chunks.hpp"
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

// Runs instructions one at a time, as far as they can: one that fails is
// recorded and poisons what it writes, one that reads a poisoned base is
// skipped and poisons what it writes.
class Runner {
 public:
  Runner(std::span<const Instruction> batch, HostMemory& memory, std::unordered_map<BaseId, int64_t>& lengths)
      : batch_(batch), access_(memory, lengths) {}

  // Whether instruction i reads what failed (then skipped and recorded so).
  bool skipped(uint32_t i) {
    ARRVM_ASSERT(i < batch_.size());
    const Instruction& in = batch_[i];
    if (bad_.empty() || !reads_any(in, bad_)) return false;
    if (!is_control(in.op)) bad_.insert(in.out.base);
    return true;
  }

  void run(uint32_t i) {
    if (skipped(i)) return;
    const Instruction& in = batch_[i];
    try {
      access_.run(in);
    } catch (const InternalError&) {
      throw;
    } catch (const InterruptedError&) {
      throw;
    } catch (const Error& e) {
      if (failures_.empty()) first_ = e.what();
      failures_.push_back({i, std::current_exception()});
      bad_.insert(in.out.base);
      if (in.op == Opcode::Compress) bad_.insert(-1 - in.out.base);  // (its length class, above)
    }
  }

  void finish() {
    if (!failures_.empty()) throw InstructionsFailed(std::move(failures_), 1, first_);
  }

 private:
  std::span<const Instruction> batch_;
  HostAccess access_;
  std::vector<InstructionsFailed::Failure> failures_;
  std::unordered_set<BaseId> bad_;  // written by a failed or skipped instruction of this block
  std::string first_;
};

}  // namespace

void run_block(std::span<const Instruction> batch, std::span<const uint32_t> block, HostMemory& memory,
               std::unordered_map<BaseId, int64_t>& lengths) {
  Runner runner(batch, memory, lengths);
  for (uint32_t i : block) runner.run(i);
  runner.finish();
}

std::size_t run_block_chunked(std::span<const Instruction> batch, std::span<const uint32_t> block,
                              HostMemory& memory, std::unordered_map<BaseId, int64_t>& lengths,
                              const char** whole) {
  if (whole != nullptr) *whole = nullptr;
  // (Most interpreted blocks are small: no bookkeeping for them.)
  bool large = false;
  for (uint32_t i : block) {
    ARRVM_ASSERT(i < batch.size());
    large = large || (chunkable(batch[i]) && run_shape(batch[i]).product() >= kChunkMinElements);
  }
  if (!large) {
    if (whole != nullptr) *whole = "too small";
    run_block(batch, block, memory, lengths);
    return 0;
  }
  // Per base: the instructions that mention it (frees aside), and whether
  // the block frees it.
  std::unordered_map<BaseId, std::size_t> mentions;
  std::unordered_set<BaseId> freed;
  for (uint32_t i : block) {
    ARRVM_ASSERT(i < batch.size());
    const Instruction& in = batch[i];
    if (opcode_kind(in.op) == OpKind::Free) {
      freed.insert(in.out.base);
      continue;
    }
    std::unordered_set<BaseId> mine{in.out.base};
    for (int k = 0; k < in.nin; ++k) {
      if (!in.in[k].is_const) mine.insert(in.in[k].view.base);
    }
    for (BaseId b : mine) ++mentions[b];
  }

  Runner runner(batch, memory, lengths);
  std::size_t chunked = 0;
  // Consecutive chunkable instructions of one shape, with the frees and
  // syncs among them, in order.
  std::vector<uint32_t> run;
  std::size_t chunkables = 0;
  auto end_run = [&] {
    std::vector<const Instruction*> body;
    for (uint32_t i : run) {
      if (chunkable(batch[i]) && !runner.skipped(i)) body.push_back(&batch[i]);
    }
    // The bases the block frees that this run alone mentions.
    std::unordered_map<BaseId, std::size_t> here;
    for (const Instruction* in : body) {
      std::unordered_set<BaseId> mine{in->out.base};
      for (int k = 0; k < in->nin; ++k) {
        if (!in->in[k].is_const) mine.insert(in->in[k].view.base);
      }
      for (BaseId b : mine) ++here[b];
    }
    std::unordered_set<BaseId> freed_here;
    for (const auto& [b, n] : here) {
      if (freed.count(b) != 0 && mentions[b] == n) freed_here.insert(b);
    }
    const char* reason = nullptr;
    if (!body.empty() && run_chunks(body, freed_here, memory, &reason)) {
      chunked += body.size();
      for (uint32_t i : run) {  // the frees and syncs, after
        if (!chunkable(batch[i])) runner.run(i);
      }
    } else {
      if (reason != nullptr && whole != nullptr) *whole = reason;
      for (uint32_t i : run) runner.run(i);  // in order (a free releases its memory where it stands)
    }
    run.clear();
    chunkables = 0;
  };
  for (uint32_t i : block) {
    const Instruction& in = batch[i];
    const OpKind kind = opcode_kind(in.op);
    if (chunkables > 0 && (kind == OpKind::Free || kind == OpKind::Sync)) {
      run.push_back(i);
    } else if (chunkable(in)) {
      if (chunkables > 0 && run_shape(in) != run_shape(batch[run[0]])) end_run();
      run.push_back(i);
      ++chunkables;
    } else {
      if (chunkables > 0) end_run();
      if (whole != nullptr && kind != OpKind::Free && kind != OpKind::Sync)
        *whole = opcode_name(in.op).data();
      runner.run(i);
    }
  }
  if (chunkables > 0) end_run();
  runner.finish();
  return chunked;
}

}  // namespace arrvm::ref
