// The VM, the top of the engine layer: live bases (vm/base_registry.hpp),
// validation of incoming instructions, the batch, and the flush pipeline
// (fusion stage -> backend; the stages are listed at Runtime::flush in
// engine/runtime.cpp). Not thread-safe: one thread drives one Runtime.
#pragma once

#include <chrono>
#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <span>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "rewrite/copy_back.hpp"
#include "rewrite/pass.hpp"
#include "rewrite/pipeline.hpp"
#include "vm/base_registry.hpp"
#include "vm/config.hpp"
#include "vm/instruction.hpp"
#include "vm/partition.hpp"
#include "vm/profile.hpp"

namespace arrvm {

class Backend;
class FusionStage;
class TraceWriter;
struct Partition;

// Called after each flushed batch (the CLI uses it to report partitions).
struct FlushObserver {
  virtual ~FlushObserver() = default;
  virtual void on_flush(std::span<const Instruction> batch, const Partition& partition) = 0;
};

class Runtime {
 public:
  explicit Runtime(Config config);  // throws Error for a bad config
  ~Runtime();
  Runtime(const Runtime&) = delete;
  Runtime& operator=(const Runtime&) = delete;

  const Config& config() const { return config_; }
  Backend& backend() { return *backend_; }
  FusionRules fusion_rules() const;  // the backend's (Backend::fusion_rules)
  // Fusion with the merge cache (engine/fusion_stage.hpp).
  FusionStage& fusion() { return *fusion_; }
  const BaseRegistry& bases() const { return bases_; }
  // Counters so far; total_s is brought up to date on each call.
  Profile& profile();
  // Prints or writes the profile as ARRVM_PROFILE says, once: the destructor
  // does it unless this was called (a binding whose arrays may outlive its
  // interpreter calls it at exit).
  void report_profile();

  // A new base array of nelem elements (no memory until first written).
  BaseId new_base(DType dtype, int64_t nelem);

  // Sets all of a live base from host memory (`bytes` must be its size).
  void write(BaseId id, const void* data, std::size_t bytes);

  // Makes `data` (`bytes` must be the base's size) the memory of a live base
  // without copying, where the backend allows (Backend::adopt); `deleter`
  // runs when the base is released. Returns false if the backend copied
  // (and ran the deleter already).
  bool adopt(BaseId id, void* data, std::size_t bytes, std::function<void(void*)> deleter);

  // Validates `instr`, normalizes it (dtypes from the bases, inputs broadcast
  // to the iteration shape) and appends it to the batch; flushes on `sync`
  // and when the batch is full. A rejected instruction throws Error naming it
  // and leaves the VM exactly as it was.
  void issue(const Instruction& instr);

  // The eager path without an instruction (engine/runtime_eager.cpp), for
  // a frontend's commonest small operation: elementwise opcode `op` (a
  // cast included) over `n` elements, each operand one run of a base
  // (DenseRun: an offset and one step; an input may be a constant; one on
  // the output's base must be the output's run or apart from it), run
  // at once where the eager path would run its instruction at once and
  // the backend has a loop for it (Backend::run_dense_now). Counts as one
  // instruction of the stream. Returns false with nothing changed
  // otherwise (a trace, pending work, a base with books kept, an overlap,
  // no loop): the caller then issues the instruction.
  bool run_dense_now(Opcode op, std::span<const DenseRun> in, DenseRun out, DType out_dtype, int64_t n);
  // run_dense_now's conditions on the VM's state, for `n` elements: what
  // a frontend asks before it makes the output (a few loads).
  bool dense_now_ok(int64_t n) const {
    return eager_ && n <= config_.eager && batch_.empty() && !trace_ && carry_keys_.empty() &&
           watched_.empty() && poisoned_.empty() && bases_.filtered_count() == 0;
  }

  // Runs everything pending. A run-time failure (an index out of range, a
  // failed compile) does not throw here: it poisons the arrays the failing
  // block writes and those computed from them; every other array is
  // computed as usual.
  void flush();

  // The floating-point flags (vm/fp_flags.hpp: FpFlag bits) that the work
  // run since the last call raised, cleared; `ops`, if given, gets the
  // names of the instructions of that work that may have raised them (the
  // floating-point ones; at most 8, each once). NumPy's errstate acts on
  // them (the Python frontend: frontend/python/arrvm/_fp.py).
  uint32_t take_fp_flags(std::vector<std::string>* ops = nullptr);
  // A frontend's report of the flags (Python: NumPy's errstate), called when
  // flags are pending at the end of an instruction's acceptance (after its
  // eager run or a flush) other than a free's, and of flush(): never inside
  // a free (a destructor's), so it may throw (errstate's `raise`); the
  // flags of a free's flush wait for the next report. nullptr removes it.
  void set_fp_report(std::function<void()> report) { fp_report_ = std::move(report); }

  // sync + flush + copy all of a base to `dst` (`bytes` must be its size).
  // Reading a poisoned base rethrows the error that poisoned it.
  void read(BaseId id, void* dst, std::size_t bytes);

  // Copies `count` elements of base `id` from element `offset`, every
  // `stride` elements, next to each other to `dst` at once, with no flush, and returns true, when nothing
  // pending touches the base (its memory is current), it is not poisoned, its elements are its own (not
  // padded: rewrite/copy_back.hpp), it has no length class, the run is not traced and the backend's memory is
  // the host's; false otherwise (nothing done). read() always flushes (the C API's sync and a replay keep
  // their batches); the Array API tries this first.
  bool read_now(BaseId id, int64_t offset, int64_t count, void* dst, int64_t stride = 1);

  // The same for a write: copies `count` elements (the base's dtype, bools
  // as bytes 0/1) from `src` into base `id` from element `offset` at once
  // and returns true, under read_now's conditions (nothing pending touches
  // the base, not poisoned, not padded, no length class, not traced, host
  // memory); false otherwise (nothing done: issue an instruction instead).
  // A NumPy loop's `T[i, j] = v`, with nothing to fuse it with.
  bool write_now(BaseId id, int64_t offset, int64_t count, const void* src);

  // A number that changes whenever base `id` is written (an instruction
  // writing it is issued, or the host writes it), for a frontend's cache
  // of something computed from the base's contents (Python: a mask's true
  // positions). A base on the program's own memory (adopt) gets a new number
  // at every call.
  uint64_t version(BaseId id);

  // Issues `free` for a base.
  void free_base(BaseId id);

  // How many elements a base holds: its size, or for a member of a length
  // class (the output of a `compress` and what is computed from it,
  // vm/length_class.hpp) the number the compress kept, running what is
  // pending first if that is not known yet.
  int64_t length(BaseId id);

  std::size_t pending() const { return batch_.size(); }
  // For each instruction of the batch being flushed: the stream position
  // (instructions_issued() before it was issued) of the instruction it comes
  // from (the VM adds copies and frees for overlapping views).
  std::span<const uint64_t> batch_origin() const { return batch_origin_; }
  bool is_poisoned(BaseId id) const { return poisoned_.count(id) != 0; }
  uint64_t instructions_issued() const { return issued_; }
  void set_flush_observer(FlushObserver* o) { observer_ = o; }

 private:
  // flush(), and on a sync of `synced` (>= 0) the deferral of the names
  // alive at it (rewrite/defer.hpp).
  void run_batch(BaseId synced);
  // A base whose contents the host replaces is no longer padded (rewrite/copy_back.hpp).
  void forget_padding(BaseId id);
  void init_rewrite_context();  // rewrite_ctx_'s services, once
  void watch(const std::vector<Instruction>& batch);
  void record_sync(BaseId id);
  // Logs the flush that just ran (at info; counters since `before`).
  void log_flush(const Profile& before, const Partition& partition) const;
  void accept_last();  // validates and takes in the batch's last instruction (issue)
  // The eager path (engine/runtime_eager.cpp): whether the batch, all of it
  // issued by one accept_last, may run at once; and running it.
  bool eager_ok() const;
  void run_eager();
  // The batch reached Config::batch: flush it, or its part up to where the
  // rest starts as it started (engine/batch_cut.hpp), keeping the rest.
  void flush_full();
  // After running `batch` (or its `block`): this thread's and the backend's
  // floating-point flags, with the instructions that may have raised them.
  void note_fp_flags(std::span<const Instruction> batch);
  // Calls the frontend's report if flags are pending (set_fp_report).
  void report_fp();
  // Whether the pending batch touches base `id` (touched_, indexed lazily).
  bool pending_uses(BaseId id);
  void forget_touched();
  void append(const Instruction& instr, uint64_t origin);
  void resolve_lengths();
  BaseId copy_input(Instruction* instr, int i, uint64_t origin);
  void propagate_poison(const Instruction& instr);
  void rethrow_if_poisoned(BaseId id) const;
  std::exception_ptr name_failure(const std::vector<uint32_t>& block, std::exception_ptr error) const;
  void contain_failure(const Partition& partition, std::size_t failed,
                       std::exception_ptr error);  // (runtime_failures.cpp)

  Config config_;
  std::unique_ptr<FusionStage> fusion_;
  std::unique_ptr<Backend> backend_;
  std::unique_ptr<TraceWriter> trace_;
  BaseRegistry bases_;
  std::vector<Instruction> batch_;
  std::vector<uint64_t> batch_origin_;  // stream position of each batch instruction's source
  // A full batch's part after its cut while the rest runs (flush_full),
  // kept for its capacity: a megabyte that malloc would map and fault in
  // again on every cut.
  std::vector<Instruction> cut_rest_;
  std::vector<uint64_t> cut_rest_origin_;
  // The batch's first carry_keys_.size() instructions were carried into it
  // by a deferral (rewrite/defer.hpp), each with the site key of the base it
  // serves (0: a free).
  std::vector<uint64_t> carry_keys_;
  std::unordered_set<uint64_t> refused_sites_;               // deferred once, then read: not deferred again
  std::unordered_set<uint64_t> good_sites_;                  // wrote a base at a sync that died unread
  std::unordered_map<BaseId, uint64_t> watched_;             // candidates not deferred -> their site
  std::unordered_map<BaseId, std::exception_ptr> poisoned_;  // base -> the error that poisoned it
  CopyBack copy_back_;                   // copy-backs made renames (rewrite/copy_back.hpp)
  std::unordered_set<BaseId> adopted_;   // bases on memory the program gave (adopt)
  uint64_t adopted_versions_ = 0;        // version(): an adopted base's next number
  std::vector<BaseId> pending_lengths_;  // class members whose length the next flush gives
  uint64_t issued_ = 0;                  // instructions accepted so far (names them in errors)
  FlushObserver* observer_ = nullptr;
  bool eager_ = false;                   // Config::eager, on a backend that can run work at once
  std::vector<uint32_t> block_scratch_;  // run_eager's block
  std::unordered_set<BaseId> touched_;   // bases of batch_[0, touched_upto_) (pending_uses)
  std::size_t touched_upto_ = 0;
  Profile profile_;
  uint32_t fp_flags_ = 0;  // FpFlag bits raised since take_fp_flags
  std::function<void()> fp_report_;
  std::vector<std::string> fp_ops_;  // the instructions that may have raised them
  RewritePipeline rewrites_;         // ARRVM_PASSES (rewrite/passes.def)
  RewriteContext rewrite_ctx_;       // what the passes may ask of this VM (set up once)
  bool profile_reported_ = false;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
};

}  // namespace arrvm
