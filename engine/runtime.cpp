#include "engine/runtime.hpp"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <vector>

#include "backends/backend.hpp"
#include "engine/batch_cut.hpp"
#include "engine/block_bound.hpp"
#include "engine/calibrate.hpp"
#include "engine/fusion_stage.hpp"
#include "rewrite/batch_users.hpp"
#include "vm/error.hpp"
#include "vm/fp_flags.hpp"
#include "vm/hash.hpp"
#include "vm/interrupt.hpp"
#include "vm/length_class.hpp"
#include "vm/log.hpp"
#include "vm/timeline.hpp"
#include "vm/trace.hpp"
#include "vm/validate.hpp"

namespace arrvm {

namespace {

// A reduction over an empty axis (`x[:0].sum()`, a sum over a (3, 0)
// array's rows) reads no element of its input, yet names its base:
// dependencies follow elements, so the base's free could run before it,
// and a backend would look up a base that is gone. Its result is the
// reduction's identity in every element, which a fill writes. (Minimum and
// maximum have none: validation rejected them.)
void fill_empty_reduction(Instruction& in) {
  if (opcode_kind(in.op) != OpKind::Reduce || in.in[0].is_const || in.in[0].view.nelem() != 0) return;
  const int64_t identity = in.op == Opcode::MultiplyReduce || in.op == Opcode::LogicalAndReduce ? 1 : 0;
  in.op = Opcode::Identity;
  in.in[0] = Operand::of(Scalar::of_int(in.out.dtype, identity));
  in.axis = 0;
}

}  // namespace

Runtime::Runtime(Config config) : config_(std::move(config)), rewrites_(config_, &profile_) {
  configure_logging(config_.log);
  init_hashing();  // (before any thread of this VM hashes: vm/hash.hpp)
  // The machine cost model's parameters: measured on this host once (cached).
  if (config_.cost == "machine") fusion::set_machine_costs(calibrated_machine_costs(config_));
  check_fuser_name(config_.fuser);
  check_cost_name(config_.cost);
  backend_ = make_backend(config_);
  fusion_ = std::make_unique<FusionStage>(config_, backend_->fusion_rules());
  backend_->attach_profile(&profile_);
  // (An empty block runs nothing and tells whether the backend can run work at once.)
  eager_ = config_.eager > 0 && backend_->run_now({}, {});
  if (!config_.trace.empty()) trace_ = std::make_unique<TraceWriter>(config_.trace);
  init_rewrite_context();
  logger().info("VM: backend {}, fuser {}, cost model {}, batch {}, cache {} in {}", backend_->name(),
                config_.fuser, config_.cost, config_.batch, to_string(config_.cache), config_.cache_dir);
}

FusionRules Runtime::fusion_rules() const {
  return backend_->fusion_rules();
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
  const BaseId id = bases_.add(dtype, nelem);  // (checks the size)
  backend_->declare(id, dtype, nelem);
  if (trace_) trace_->base(id, dtype, nelem);
  return id;
}

namespace {

std::size_t base_bytes(const BaseInfo& b) {
  return static_cast<std::size_t>(b.nelem) * dtype_size(b.dtype);
}

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
  if (pending_uses(id)) flush();
  forget_padding(id);
  bases_.note_write(id);
  backend_->copy_from_host(id, data);
  poisoned_.erase(id);
  bases_.set_class(id, -1, -1);  // all of it written: an ordinary base again (length classes)
  profile_.bytes_from_host += bytes;
  if (trace_) trace_->data(id, data, bytes);
}

bool Runtime::adopt(BaseId id, void* data, std::size_t bytes, std::function<void(void*)> deleter) {
  const BaseInfo& b = live_base(bases_, id, "adopt");
  check_size(b, id, bytes, "adopt");
  if (data == nullptr && bytes > 0) throw Error("adopt: null data for base b" + std::to_string(id));
  if (pending_uses(id)) flush();
  // The trace records the contents as a write: a replay copies them.
  if (trace_) trace_->data(id, data, bytes);
  forget_padding(id);
  const bool shared = backend_->adopt(id, data, std::move(deleter));
  if (shared) adopted_.insert(id);
  bases_.note_write(id);
  poisoned_.erase(id);
  bases_.set_class(id, -1, -1);
  if (!shared) profile_.bytes_from_host += bytes;
  return shared;
}

void Runtime::forget_padding(BaseId id) {
  const BaseId holder = copy_back_.forget(id);
  if (holder >= 0) backend_->release(holder);
  // The arrays that are a box of this one get their own memory first.
  const auto lent = copy_back_.lend_back(id);
  if (lent.empty()) return;
  for (const auto& [whole, box] : lent) {
    Instruction c;
    c.op = Opcode::Identity;
    c.out = whole;
    c.add_input(Operand::of(box));
    append(c, issued_);
  }
  flush();
}

void Runtime::issue(const Instruction& instr) {
  batch_.push_back(instr);
  accept_last();
}

// Validates the instruction just put at the end of the batch in place (no
// copy of it: an Instruction is ~800 bytes) and takes it into the stream, or
// removes it again and throws.
void Runtime::accept_last() {
  const bool was_empty = batch_.size() == 1 && carry_keys_.empty();
  LengthEffect length_effect;
  bool classes = false;
  try {
    Instruction& in = batch_.back();
    validate_instruction(in, bases_, issued_);
    // Length classes (vm/length_class.hpp): the trace keeps the instruction
    // as the frontend wrote it, so a replay that flushes elsewhere sees the same.
    classes = bases_.filtered_count() != 0 || in.op == Opcode::Compress;
    if (classes) {
      Instruction classed = in;
      length_effect = apply_length_classes(classed, bases_, issued_);
      if (trace_ && in.op != Opcode::Sync) trace_->instruction(in);
      in = classed;
    }
  } catch (...) {
    batch_.pop_back();
    throw;
  }
  // Accepted: from here on the instruction is part of the stream.
  const uint64_t origin = issued_++;
  batch_origin_.push_back(origin);
  ++profile_.instructions;
  const Instruction& instr = batch_.back();
  const bool is_sync = instr.op == Opcode::Sync;
  const bool is_free = instr.op == Opcode::Free;
  const BaseId synced = instr.out.base;
  if (trace_ && !classes && !is_sync) trace_->instruction(instr);
  if (!classes) fill_empty_reduction(batch_.back());  // (the trace keeps the reduction)
  if (classes) {
    record_length_class(instr, length_effect, bases_);
    if (length_effect.writes_whole && length_effect.out_class >= 0 && length_effect.out_length < 0)
      pending_lengths_.push_back(instr.out.base);
  }
  if (!poisoned_.empty()) propagate_poison(instr);
  if (instr.op == Opcode::Free) {
    bases_.remove(instr.out.base);
    poisoned_.erase(instr.out.base);
  }
  // NumPy's overlap rule: inputs are read before the output is written. A
  // copy of each input that truly shares elements with the output (exact
  // test) goes first, and is freed right after, so fusion can contract it
  // where the views allow.
  int first = -1;
  for (int i = 0; i < instr.nin && first < 0; ++i) {
    if (input_needs_copy(instr, i)) first = i;
  }
  if (first >= 0) {
    Instruction moved = instr;  // (`instr` dies here: the batch grows)
    batch_.pop_back();
    batch_origin_.pop_back();
    BaseId temps[3];
    int ntemps = 0;
    for (int i = first; i < moved.nin; ++i) {
      if (input_needs_copy(moved, i)) temps[ntemps++] = copy_input(&moved, i, origin);
    }
    append(moved, origin);
    for (int t = 0; t < ntemps; ++t) {
      bases_.remove(temps[t]);
      append(control(Opcode::Free, temps[t]), origin);
    }
  }
  if (is_sync) {
    run_batch(synced);
    rethrow_if_poisoned(synced);
    if (trace_) record_sync(synced);
  } else if (was_empty && eager_ok()) {
    run_eager();
  } else if (static_cast<int64_t>(batch_.size()) >= config_.batch) {
    flush_full();
  }
  if (!is_free) report_fp();
}

void Runtime::flush_full() {
  // (Not across length classes: a class's members learn their length from
  // the flush that runs its compress.)
  const std::size_t cut = bases_.filtered_count() != 0
                              ? 0
                              : periodic_cut(batch_, std::max(batch_.size() / 2, carry_keys_.size() + 1));
  if (cut == 0) {
    flush();
    return;
  }
  cut_rest_.assign(std::make_move_iterator(batch_.begin() + static_cast<std::ptrdiff_t>(cut)),
                   std::make_move_iterator(batch_.end()));
  cut_rest_origin_.assign(batch_origin_.begin() + static_cast<std::ptrdiff_t>(cut), batch_origin_.end());
  batch_.resize(cut);
  batch_origin_.resize(cut);
  ++profile_.batches_cut;
  run_batch(-1);  // (leaves the batch empty: a flush carries nothing)
  batch_.insert(batch_.end(), std::make_move_iterator(cut_rest_.begin()),
                std::make_move_iterator(cut_rest_.end()));
  batch_origin_.insert(batch_origin_.end(), cut_rest_origin_.begin(), cut_rest_origin_.end());
  cut_rest_.clear();
}

void Runtime::append(const Instruction& instr, uint64_t origin) {
  batch_.push_back(instr);
  batch_origin_.push_back(origin);
}

BaseId Runtime::copy_input(Instruction* instr, int i, uint64_t origin) {
  // The copy keeps only the axes the view moves along: a broadcast input is
  // copied once, not once per output element.
  const DType dtype = instr->in[i].view.dtype;
  const int64_t n = copy_shape(instr->in[i].view).product();
  const BaseId tmp = bases_.add(dtype, n);
  backend_->declare(tmp, dtype, n);
  append(redirect_to_copy(instr, i, tmp), origin);
  ++profile_.overlap_copies;
  return tmp;
}

void Runtime::propagate_poison(const Instruction& instr) {
  if (is_control(instr.op)) return;
  for (int i = 0; i < instr.nin; ++i) {
    const Operand& o = instr.in[i];
    if (o.is_const) continue;
    const auto it = poisoned_.find(o.view.base);
    if (it == poisoned_.end()) continue;
    poisoned_[instr.out.base] = it->second;
    return;
  }
  // Overwriting every element of a base cures it (a scatter writes only the
  // elements its indices name).
  const BaseInfo* b = bases_.find(instr.out.base);
  if (b != nullptr && opcode_kind(instr.op) != OpKind::Scatter && is_injective(instr.out) &&
      instr.out.nelem() == b->nelem) {
    poisoned_.erase(instr.out.base);
  }
}

void Runtime::rethrow_if_poisoned(BaseId id) const {
  const auto it = poisoned_.find(id);
  if (it != poisoned_.end()) std::rethrow_exception(it->second);
}

void Runtime::record_sync(BaseId id) {
  const BaseInfo& b = live_base(bases_, id, "sync");
  std::vector<uint8_t> buf(base_bytes(b));
  backend_->copy_to_host(id, buf.data());
  trace_->sync(id, buf.data(), buf.size());
}

// One batch through the pipeline, each stage a span on the timeline (when
// there is one) and a Profile time:
//   fusion   merge cache lookup (merge_cache_s); on a miss the stages
//            graph (the WSP graph) and fuse (the fuser on it) (fusion_s)
//   execute  the backend (exec_s): codegen (lowering to the loop IR and
//            printing it, codegen_s), compile (compile_s), one span per
//            kernel launch
void Runtime::flush() {
  run_batch(-1);
  report_fp();
}

void Runtime::report_fp() {
  if (fp_flags_ != 0 && fp_report_) fp_report_();
}

void Runtime::init_rewrite_context() {
  RewriteContext& ctx = rewrite_ctx_;
  ctx.bases = &bases_;
  // A temporary of a rewritten batch: declared to the backend, and the
  // batch frees it (so the VM's registry never holds it).
  ctx.new_temp = [this](DType t, int64_t n) {
    const BaseId id = bases_.add(t, n);
    backend_->declare(id, t, n);
    bases_.remove(id);
    return id;
  };
  ctx.new_unfilled = [this](DType t, int64_t n) {
    const BaseId id = bases_.add(t, n);
    backend_->declare(id, t, n);
    backend_->leave_unfilled(id);
    bases_.remove(id);
    return id;
  };
  ctx.leave_unfilled = [this](BaseId b) { backend_->leave_unfilled(b); };
  ctx.adopted = [this](BaseId b) { return adopted_.count(b) != 0; };
  ctx.can_rename = backend_->can_rename();
  ctx.compiles = backend_->compiles_kernels();
  ctx.deferral.max_carry = static_cast<std::size_t>(std::max<int64_t>(config_.batch / 4, 0));
  ctx.deferral.every_site = config_.defer_every_site;
  ctx.deferral.good = &good_sites_;
  ctx.deferral.refused = &refused_sites_;
  ctx.copy_back = &copy_back_;
}

void Runtime::run_batch(BaseId synced) {
  if (batch_.empty()) return;
  if (carry_keys_.empty() && std::all_of(batch_.begin(), batch_.end(), [&](const Instruction& in) {
        return in.op == Opcode::Sync && !copy_back_.involves(in.out.base);
      })) {
    // Nothing to run (a read after eager work): no fusion, no launch. (A
    // padded base's sync goes through the rewrite, which restores it.)
    if (!watched_.empty()) watch(batch_);
    batch_.clear();
    batch_origin_.clear();
    forget_touched();
    return;
  }
  const Profile before = profile_;  // for the flush's log line
  // The rewrite passes (rewrite/passes.def) that ARRVM_PASSES leaves on.
  std::vector<uint64_t> keys = std::move(carry_keys_);
  const std::size_t carried_in = keys.size();
  carry_keys_.clear();
  keys.resize(batch_.size(), 0);
  if (!watched_.empty()) watch(batch_);
  RewriteContext& ctx = rewrite_ctx_;
  ctx.synced = synced;
  ctx.deferral.carried = carried_in;
  ctx.carry_batch.clear();
  ctx.carry_origin.clear();
  ctx.carry_keys.clear();
  ctx.watch.clear();
  ctx.renames.clear();
  RewriteBatch batch{batch_, batch_origin_, keys};
  rewrites_.run(PassStage::Sync, batch, ctx);
  for (const auto& [b, key] : ctx.watch) watched_[b] = key;
  for (std::size_t i = 0; i < batch_.size(); ++i) {
    if (keys[i] != 0 && !is_control(batch_[i].op) && refused_sites_.insert(keys[i]).second)
      ++profile_.deferrals_recomputed;
  }
  rewrites_.run(PassStage::Batch, batch, ctx);
  if (!adopted_.empty()) {  // (after the passes: copy-rename must not pad an adopted base the batch frees)
    for (const Instruction& in : batch_) {
      if (in.op == Opcode::Free) adopted_.erase(in.out.base);
    }
  }
  ScopedSpan batch_span(profile_, nullptr, "batch", "batch",
                        {{"index", static_cast<int64_t>(profile_.batches)},
                         {"instructions", static_cast<int64_t>(batch_.size())}});
  // Times itself: merge_cache_s for the lookup, fusion_s for a miss.
  Partition partition;
  {
    ScopedSpan t(profile_, nullptr, "fusion");
    const uint64_t hits = profile_.merge_cache_hits;
    partition = fusion_->partition(batch_, profile_);
    if (profile_.merge_cache_hits != hits) t.rename("merge cache hit");
  }
  auto finish = [&](Partition* p) {  // the Partition passes, then views per block bounded
    batch.partition = p;
    rewrites_.run(PassStage::Partition, batch, ctx);
    return bound_blocks(batch_, p, kMaxBlockViews);
  };
  std::size_t bounded = finish(&partition);
  // An upgraded partition runs once the backend has its kernels; until
  // then the one it replaced does (FusionStage::fallback).
  if (fusion_->upgrade_unchecked()) {
    if (backend_->kernels_ready(batch_, partition)) {
      fusion_->upgrade_ready();
    } else {
      partition = fusion_->fallback(batch_, profile_);
      bounded = finish(&partition);
      ++profile_.upgrades_held;
    }
  }
  profile_.blocks_bounded += bounded;
  batch_span.arg("blocks", static_cast<int64_t>(partition.blocks.size()));
  std::exception_ptr interrupted;  // rethrown once the flush's books are done
  fp_flags_clear();
  try {
    ScopedSpan t(profile_, &profile_.exec_s, "execute");
    backend_->execute(batch_, partition);
    note_fp_flags(batch_);
  } catch (const InternalError&) {
    batch_.clear();
    batch_origin_.clear();
    forget_touched();
    throw;
  } catch (...) {
    note_fp_flags(batch_);
    contain_failure(partition, backend_->progress().done, std::current_exception());
    if (is_interrupt(std::current_exception())) interrupted = std::current_exception();
  }
  // The renamed arrays take their new memory (and a poisoned one its error).
  for (const auto& [from, to] : ctx.renames) {
    backend_->rename(from, to);
    const auto it = poisoned_.find(from);
    if (it != poisoned_.end()) {
      poisoned_[to] = it->second;
      poisoned_.erase(from);
    }
  }
  if (!poisoned_.empty()) {  // a padded base's error is its holder's
    for (const auto& [base, holder] : copy_back_.padded()) {
      const auto it = poisoned_.find(holder);
      if (it != poisoned_.end()) poisoned_[base] = it->second;
    }
  }
  ++profile_.batches;
  profile_.blocks += partition.blocks.size();
  for (const Block& block : partition.blocks) {
    profile_.work_blocks +=
        std::any_of(block.begin(), block.end(), [&](uint32_t i) { return !is_control(batch_[i].op); });
  }
  log_flush(before, partition);
  if (observer_) observer_->on_flush(batch_, partition);
  // (assign, not move: the batch keeps its capacity; a 1000-instruction
  // batch is about a megabyte, which malloc maps and unmaps each time.)
  batch_.assign(std::make_move_iterator(ctx.carry_batch.begin()),
                std::make_move_iterator(ctx.carry_batch.end()));
  forget_touched();
  batch_origin_.assign(ctx.carry_origin.begin(), ctx.carry_origin.end());
  carry_keys_ = std::move(ctx.carry_keys);
  resolve_lengths();
  if (interrupted) std::rethrow_exception(interrupted);
}

// The bases a deferral did not defer (rewrite/defer.hpp) until something
// touches them: freed before anything reads them, their writer's site is
// good for deferral.
void Runtime::watch(const std::vector<Instruction>& batch) {
  for (const Instruction& in : batch) {
    if (in.op == Opcode::Free) {
      const auto it = watched_.find(in.out.base);
      if (it == watched_.end()) continue;
      good_sites_.insert(it->second);
      watched_.erase(it);
    } else if (in.op == Opcode::Sync) {
      watched_.erase(in.out.base);
    } else {
      for (int k = 0; k < in.nin; ++k) {
        if (!in.in[k].is_const) watched_.erase(in.in[k].view.base);
      }
    }
    if (watched_.empty()) return;
  }
}

// The members of length classes whose compress ran in this flush learn
// their length (a compress that failed leaves its class poisoned, length 0).
void Runtime::resolve_lengths() {
  auto& lengths = backend_->lengths();
  for (BaseId id : pending_lengths_) {
    const BaseInfo* b = bases_.find(id);
    if (b == nullptr || b->klass < 0 || b->length >= 0) continue;
    const auto it = lengths.find(b->klass);
    bases_.set_class(id, b->klass, it == lengths.end() ? 0 : it->second);
  }
  pending_lengths_.clear();
  lengths.clear();
}

int64_t Runtime::length(BaseId id) {
  const BaseInfo* b = &live_base(bases_, id, "length");
  if (b->klass < 0) return b->nelem;
  if (b->length < 0) {
    flush();
    rethrow_if_poisoned(id);
    b = &live_base(bases_, id, "length");
  }
  return b->length;
}

void Runtime::log_flush(const Profile& before, const Partition& partition) const {
  if (!logger().should_log(spdlog::level::info)) return;  // the cost below is not free
  const char* merge = profile_.merge_cache_hits > before.merge_cache_hits ? "hit" : "miss";
  logger().info(
      "flush #{}: {} instructions -> {} blocks, cost {} ({}), fusion {:.4f} s (merge cache {}), "
      "{} kernels launched, {} compiled in {:.3f} s, exec {:.4f} s",
      before.batches, batch_.size(), partition.blocks.size(), partition_cost(batch_, partition, config_.cost),
      config_.cost, profile_.fusion_s - before.fusion_s, merge,
      profile_.kernels_launched - before.kernels_launched,
      profile_.kernels_compiled - before.kernels_compiled, profile_.compile_s - before.compile_s,
      profile_.exec_s - before.exec_s);
}

void Runtime::read(BaseId id, void* dst, std::size_t bytes) {
  const BaseInfo& b = live_base(bases_, id, "read");
  check_size(b, id, bytes, "read");
  Instruction s = control(Opcode::Sync, id);
  validate_instruction(s, bases_, issued_);
  ++issued_;
  ++profile_.instructions;
  append(s, issued_ - 1);
  run_batch(id);
  rethrow_if_poisoned(id);
  backend_->copy_to_host(id, dst);
  profile_.bytes_to_host += bytes;
  if (trace_) trace_->sync(id, dst, bytes);
  report_fp();
}

void Runtime::free_base(BaseId id) {
  // Eager mode with nothing pending: what the eager path would do with the
  // one `free` (accept_last, then run_eager: forget the base, release its
  // memory) without building, validating and dispatching an instruction, a
  // fifth of an eager operation's cost (an arrvm array dies for every
  // temporary of a NumPy expression). Anything with books to keep on the
  // base (a trace, a deferral's watch list, a carry, length classes, a
  // padded base, a poisoned one) takes the full path.
  if (eager_ && batch_.empty() && !trace_ && carry_keys_.empty() && watched_.empty() &&
      bases_.filtered_count() == 0 && poisoned_.empty() && bases_.find(id) != nullptr &&
      !copy_back_.involves(id)) {
    ++issued_;
    ++profile_.instructions;
    bases_.remove(id);
    if (!adopted_.empty()) adopted_.erase(id);
    copy_back_.freed(id);
    backend_->release(id);
    return;
  }
  // Built in place at the end of the batch (issue() would copy it there).
  Instruction& s = batch_.emplace_back();
  s.op = Opcode::Free;
  s.out.base = id;
  accept_last();
}

}  // namespace arrvm
