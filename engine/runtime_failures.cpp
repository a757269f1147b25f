// The runtime's containment of run-time failures (docs/semantics.md, "Run-time
// errors poison arrays"): which arrays a failed flush poisons, and what of the
// flush still runs. Split from runtime.cpp, which issues and flushes.
#include <algorithm>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "backends/backend.hpp"
#include "engine/runtime.hpp"
#include "vm/error.hpp"
#include "vm/interrupt.hpp"
#include "vm/timeline.hpp"

namespace arrvm {

// Backends name the failing instruction by its text (`in `gather b3[...]``);
// prefix the error with the instruction's number in the program's stream, as
// validation errors are, so the user can find the operation that failed.
std::exception_ptr Runtime::name_failure(const std::vector<uint32_t>& block, std::exception_ptr error) const {
  try {
    std::rethrow_exception(error);
  } catch (const BackendError&) {
    return error;
  } catch (const InterruptedError&) {
    return error;
  } catch (const Error& e) {
    const std::string msg = e.what();
    for (uint32_t i : block) {
      if (msg.find("`" + to_string(batch_[i]) + "`") == std::string::npos) continue;
      const std::string named = "instruction #" + std::to_string(batch_origin_[i]) + " (" +
                                std::string(opcode_name(batch_[i].op)) + "): " + msg;
      // (the class says what happened: NOMEM in C, MemoryError in Python)
      if (dynamic_cast<const OutOfMemoryError*>(&e)) return std::make_exception_ptr(OutOfMemoryError(named));
      return std::make_exception_ptr(Error(named));
    }
    return error;
  } catch (...) {
    return error;
  }
}

namespace {

// Whether block `b` (in batch order) can run again, instruction by
// instruction, after it failed part way: it frees nothing (a freed base may
// be gone) and no instruction of it reads a base that it or a later one
// writes (a write after read), so whatever the failed run wrote, each input
// still holds, when its reader runs again, what it held at the reader's turn
// in the program.
bool rerunnable(std::span<const Instruction> batch, const Block& b) {
  std::unordered_set<BaseId> written_later;
  for (auto it = b.rbegin(); it != b.rend(); ++it) {
    const Instruction& in = batch[*it];
    if (in.op == Opcode::Free) return false;
    if (is_control(in.op)) continue;
    written_later.insert(in.out.base);
    for (int k = 0; k < in.nin; ++k) {
      if (!in.in[k].is_const && written_later.count(in.in[k].view.base) != 0) return false;
    }
  }
  return true;
}

}  // namespace

// A block failed at run time. Poisoning is per result, whatever the fuser
// put together (docs/semantics.md): when instructions failed and the rest of
// the block ran (InstructionsFailed: an index out of range, a reduction over
// an empty axis), only their results are poisoned, and so is every array
// computed from a poisoned one. When the block failed as a whole (its kernel
// did not compile, memory ran out), it runs again one instruction at a time
// if that is safe (rerunnable), with the same outcome; otherwise all it
// writes is poisoned. Every later block still runs, one at a time, unless it
// reads a poisoned array. An interrupt stops the flush: nothing more runs,
// and everything not yet computed is poisoned with it. Frees are applied.
void Runtime::contain_failure(const Partition& partition, std::size_t failed, std::exception_ptr error) {
  ARRVM_ASSERT(failed < partition.blocks.size());
  const bool interrupted = is_interrupt(error);
  auto poison_block = [&](const Block& block, std::exception_ptr why) {
    for (uint32_t i : block) {
      if (!is_control(batch_[i].op)) poisoned_[batch_[i].out.base] = why;
    }
  };
  // The error of the first poisoned array `in` reads, or null.
  auto poisoned_input = [&](const Instruction& in) -> std::exception_ptr {
    for (int k = 0; k < in.nin; ++k) {
      if (in.in[k].is_const) continue;
      const auto it = poisoned_.find(in.in[k].view.base);
      if (it != poisoned_.end()) return it->second;
    }
    return nullptr;
  };
  auto release_frees = [&](const Block& block) {
    for (uint32_t i : block) {
      if (batch_[i].op != Opcode::Free) continue;
      backend_->release(batch_[i].out.base);
      poisoned_.erase(batch_[i].out.base);
    }
  };
  std::vector<Block> rest;
  std::size_t span = 1;  // the blocks the failed run covered
  const InstructionsFailed* partial = nullptr;
  try {
    std::rethrow_exception(error);
  } catch (const InstructionsFailed& f) {
    partial = &f;  // (alive while `error` is)
    span = std::max<std::size_t>(1, std::min(f.span, partition.blocks.size() - failed));
  } catch (...) {
  }
  Block first;  // (a block lists its instructions in no particular order; the batch's is a legal one)
  for (std::size_t b = failed; b < failed + span; ++b)
    first.insert(first.end(), partition.blocks[b].begin(), partition.blocks[b].end());
  std::sort(first.begin(), first.end());
  if (partial != nullptr) {
    // The rest of the run completed: poison the failed results and, in
    // program order, what reads a poisoned array.
    std::unordered_map<uint32_t, std::exception_ptr> failed_at;
    for (const InstructionsFailed::Failure& f : partial->failures)
      failed_at[f.instr] = name_failure({f.instr}, f.error);
    for (uint32_t i : first) {
      const Instruction& in = batch_[i];
      if (is_control(in.op)) continue;
      const auto f = failed_at.find(i);
      if (f != failed_at.end()) {
        poisoned_[in.out.base] = f->second;
        continue;
      }
      if (std::exception_ptr why = poisoned_input(in)) poisoned_[in.out.base] = why;
    }
    release_frees(first);
  } else if (!interrupted && first.size() > 1 && rerunnable(batch_, first)) {
    for (uint32_t i : first) rest.push_back(Block{i});
  } else {
    poison_block(first, name_failure(first, error));
    release_frees(first);
  }
  rest.insert(rest.end(), partition.blocks.begin() + static_cast<std::ptrdiff_t>(failed + span),
              partition.blocks.end());
  for (const Block& block : rest) {
    if (interrupted) {
      poison_block(block, error);
      release_frees(block);
      continue;
    }
    std::exception_ptr inherited;
    for (uint32_t i : block) {
      if (!inherited) inherited = poisoned_input(batch_[i]);
    }
    if (inherited) {
      poison_block(block, inherited);
      release_frees(block);
      continue;
    }
    try {
      ScopedTimer t(&profile_.exec_s);
      backend_->execute(batch_, Partition{{block}});
    } catch (const InternalError&) {
      throw;
    } catch (...) {
      poison_block(block, name_failure(block, std::current_exception()));
      release_frees(block);
    }
  }
  ++profile_.failed_batches;
}

}  // namespace arrvm
