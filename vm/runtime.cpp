#include "vm/runtime.hpp"

#include <cstdio>
#include <fstream>
#include <vector>

#include "backends/backend.hpp"
#include "fusion/driver.hpp"
#include "vm/error.hpp"
#include "vm/log.hpp"
#include "vm/trace.hpp"
#include "vm/validate.hpp"

namespace arrvm {

BaseId BaseRegistry::add(DType dtype, int64_t nelem) {
  const BaseId id = next_++;
  live_.emplace(id, BaseInfo{dtype, nelem});
  return id;
}

const BaseInfo* BaseRegistry::find(BaseId id) const {
  const auto it = live_.find(id);
  return it == live_.end() ? nullptr : &it->second;
}

Runtime::Runtime(Config config) : config_(std::move(config)) {
  configure_logging(config_.log);
  fusion_ = std::make_unique<FusionStage>(config_);  // checks the fuser and cost model names
  backend_ = make_backend(config_);
  backend_->attach_profile(&profile_);
  if (!config_.trace.empty()) trace_ = std::make_unique<TraceWriter>(config_.trace);
}

Runtime::~Runtime() {
  // Pending instructions have no observable effect any more (nothing can
  // sync after this), so they are dropped rather than run.
  if (!profile_reported_) report_profile();
}

void Runtime::report_profile() {
  if (config_.profile.empty() || profile_reported_) return;
  profile_reported_ = true;
  profile();  // brings total_s up to date
  try {
    if (config_.profile == "1") {
      std::fputs(profile_.to_text().c_str(), stderr);
    } else {
      std::ofstream(config_.profile) << profile_.to_json() << "\n";
    }
  } catch (const std::exception& e) {
    logger().error("could not write the profile: {}", e.what());
  }
}

Profile& Runtime::profile() {
  profile_.total_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  return profile_;
}

BaseId Runtime::new_base(DType dtype, int64_t nelem) {
  if (nelem < 0) throw Error("new base: negative element count " + std::to_string(nelem));
  const BaseId id = bases_.add(dtype, nelem);
  backend_->declare(id, dtype, nelem);
  if (trace_) trace_->base(id, dtype, nelem);
  return id;
}

namespace {

std::size_t base_bytes(const BaseInfo& b) { return static_cast<std::size_t>(b.nelem) * dtype_size(b.dtype); }

const BaseInfo& live_base(const BaseRegistry& bases, BaseId id, const char* what) {
  const BaseInfo* b = bases.find(id);
  if (b == nullptr) {
    throw Error(std::string(what) + ": " + (bases.was_freed(id) ? "base is freed: b" : "unknown base b") +
                std::to_string(id));
  }
  return *b;
}

void check_size(const BaseInfo& b, BaseId id, std::size_t bytes, const char* what) {
  if (bytes != base_bytes(b)) {
    throw Error(std::string(what) + ": base b" + std::to_string(id) + " holds " +
                std::to_string(base_bytes(b)) + " bytes, got a buffer of " + std::to_string(bytes));
  }
}

bool batch_uses(const std::vector<Instruction>& batch, BaseId id) {
  for (const Instruction& in : batch) {
    if (in.out.base == id) return true;
    for (int i = 0; i < in.nin; ++i) {
      if (!in.in[i].is_const && in.in[i].view.base == id) return true;
    }
  }
  return false;
}

Instruction control(Opcode op, BaseId id) {
  Instruction s;
  s.op = op;
  s.out.base = id;
  return s;
}

}  // namespace

void Runtime::write(BaseId id, const void* data, std::size_t bytes) {
  const BaseInfo& b = live_base(bases_, id, "write");
  check_size(b, id, bytes, "write");
  // The data replaces the base at this point of the stream: pending
  // instructions on it must run first.
  if (batch_uses(batch_, id)) flush();
  backend_->copy_from_host(id, data);
  profile_.bytes_from_host += bytes;
  if (trace_) trace_->data(id, data, bytes);
}

void Runtime::issue(Instruction instr) {
  validate_instruction(instr, bases_, issued_);
  // Accepted: from here on the instruction is part of the stream.
  ++issued_;
  ++profile_.instructions;
  if (instr.op == Opcode::Free) bases_.remove(instr.out.base);
  if (trace_ && instr.op != Opcode::Sync) trace_->instruction(instr);
  const bool is_sync = instr.op == Opcode::Sync;
  const BaseId synced = instr.out.base;
  batch_.push_back(instr);
  if (is_sync) {
    flush();
    if (trace_) record_sync(synced);
  } else if (static_cast<int64_t>(batch_.size()) >= config_.batch) {
    flush();
  }
}

void Runtime::record_sync(BaseId id) {
  const BaseInfo& b = live_base(bases_, id, "sync");
  std::vector<uint8_t> buf(base_bytes(b));
  backend_->copy_to_host(id, buf.data());
  trace_->sync(id, buf.data(), buf.size());
}

void Runtime::flush() {
  if (batch_.empty()) return;
  // Times itself: merge_cache_s for the lookup, fusion_s for a miss.
  const Partition partition = fusion_->partition(batch_, profile_);
  try {
    ScopedTimer t(&profile_.exec_s);
    backend_->execute(batch_, partition);
  } catch (...) {
    // The program is at fault (or the backend failed) part-way through the
    // batch; drop it so the VM stays usable, and release what it freed.
    for (const Instruction& in : batch_) {
      if (in.op == Opcode::Free) backend_->release(in.out.base);
    }
    batch_.clear();
    throw;
  }
  ++profile_.batches;
  profile_.blocks += partition.blocks.size();
  if (observer_) observer_->on_flush(batch_, partition);
  batch_.clear();
}

void Runtime::read(BaseId id, void* dst, std::size_t bytes) {
  const BaseInfo& b = live_base(bases_, id, "read");
  check_size(b, id, bytes, "read");
  Instruction s = control(Opcode::Sync, id);
  validate_instruction(s, bases_, issued_);
  ++issued_;
  ++profile_.instructions;
  batch_.push_back(s);
  flush();
  backend_->copy_to_host(id, dst);
  profile_.bytes_to_host += bytes;
  if (trace_) trace_->sync(id, dst, bytes);
}

void Runtime::free_base(BaseId id) { issue(control(Opcode::Free, id)); }

}  // namespace arrvm
