#include "backends/backend.hpp"

#include "vm/error.hpp"
#include "vm/length_class.hpp"

namespace arrvm {

bool BackendStats::has(std::string_view name) const {
  for (const auto& [n, v] : counters) {
    if (n == name) return true;
  }
  for (const auto& [n, v] : labels) {
    if (n == name) return true;
  }
  return false;
}

double BackendStats::get(std::string_view name) const {
  for (const auto& [n, v] : counters) {
    if (n == name) return v;
  }
  throw InternalError("backend " + backend + " has no counter '" + std::string(name) + "'");
}

const std::string& BackendStats::label(std::string_view name) const {
  for (const auto& [n, v] : labels) {
    if (n == name) return v;
  }
  throw InternalError("backend " + backend + " has no label '" + std::string(name) + "'");
}

std::span<const Instruction> Backend::resolve_classes(std::span<const Instruction> batch,
                                                      std::span<const uint32_t> block, BaseId* pending) {
  auto compress_in_block = [&](std::size_t upto, BaseId klass) {
    for (std::size_t q = 0; q < upto; ++q) {
      const Instruction& c = batch[block[q]];
      if (c.op == Opcode::Compress && c.out.base == klass) return true;
    }
    return false;
  };
  // The block's top (the domain its loop runs over) is a class whose
  // compress ran before: its length (planned ahead: its nominal length, and
  // the class reported). The classes nested in it (their compress in the
  // block) keep their class; their nominal length, the top's capacity,
  // becomes that length too (their loop is the top's).
  int64_t length = -1;
  for (std::size_t p = 0; p < block.size() && length < 0; ++p) {
    const Instruction& in = batch[block[p]];
    if (in.length_class < 0 || compress_in_block(p, in.length_class)) continue;
    if (pending != nullptr) {
      *pending = in.length_class;
      const OpKind kind = opcode_kind(in.op);
      const bool over_input =
          kind == OpKind::Reduce || kind == OpKind::Accumulate || kind == OpKind::Compress;
      length = over_input ? in.in[0].view.shape[0] : in.out.shape[0];
      break;
    }
    const auto it = lengths_.find(in.length_class);
    if (it == lengths_.end())
      throw InternalError(name() + " backend: `" + to_string(in) +
                          "` of a length class before its compress ran");
    length = it->second;
  }
  if (length < 0) return batch;
  resolved_.assign(batch.begin(), batch.end());
  for (std::size_t p = 0; p < block.size(); ++p) {
    Instruction& in = resolved_[block[p]];
    if (in.length_class < 0) continue;
    const BaseId klass = in.length_class;
    resolve_length(in, length);
    if (compress_in_block(p, klass)) in.length_class = klass;  // nested: still inside its compress
  }
  return resolved_;
}

void Backend::check_empty_classes(std::span<const Instruction> batch, std::span<const uint32_t> block) const {
  for (uint32_t i : block) {
    const Instruction& in = batch[i];
    if (in.length_class < 0 || (in.op != Opcode::MinimumReduce && in.op != Opcode::MaximumReduce)) continue;
    const auto it = lengths_.find(in.length_class);
    if (it != lengths_.end() && it->second == 0)
      throw Error(std::string(opcode_name(in.op)) + " over an empty axis in `" + to_string(in) + "`");
  }
}

void Backend::rename(BaseId from, BaseId to) {
  throw InternalError(name() + " backend: cannot rename b" + std::to_string(from) + " to b" +
                      std::to_string(to));
}

int64_t index_limit(const Instruction& in) {
  return opcode_kind(in.op) == OpKind::Gather ? in.in[0].view.nelem() : in.out.nelem();
}

Error index_error(const Instruction& in, int64_t index) {
  return Error(std::string(opcode_name(in.op)) + ": index " + std::to_string(index) + " out of range [0, " +
               std::to_string(index_limit(in)) + ") in `" + to_string(in) + "`");
}

void throw_index_failures(std::span<const Instruction> batch,
                          std::span<const std::pair<uint32_t, int64_t>> bad) {
  if (bad.empty()) return;
  std::vector<InstructionsFailed::Failure> failures;
  std::string first;
  for (const auto& [i, index] : bad) {
    const Error error = index_error(batch[i], index);
    if (first.empty()) first = error.what();
    failures.push_back({i, std::make_exception_ptr(error)});
  }
  throw InstructionsFailed(std::move(failures), 1, first);
}

}  // namespace arrvm
