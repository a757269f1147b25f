// The backend interface: memory for base arrays, and execution of partitions.
// A backend's own header exposes only its factory; backends/registry.cpp maps
// names to factories.
#pragma once

#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "vm/config.hpp"
#include "vm/error.hpp"
#include "vm/instruction.hpp"
#include "vm/partition.hpp"
#include "vm/profile.hpp"

namespace arrvm {

// A backend's own counters (beyond the Profile it updates), by name, in a
// fixed order: what tests, benchmarks and `arrvm replay --json` read without
// knowing which backend they run on (Backend::stats()).
struct BackendStats {
  std::string backend;                                      // Backend::name()
  std::vector<std::pair<std::string, double>> counters;     // counts and seconds
  std::vector<std::pair<std::string, std::string>> labels;  // e.g. the OpenCL device

  bool has(std::string_view name) const;
  // The counter or label `name`; throws InternalError naming it if absent.
  double get(std::string_view name) const;
  const std::string& label(std::string_view name) const;
  // get(name) as an unsigned count.
  uint64_t count(std::string_view name) const { return static_cast<uint64_t>(get(name)); }
};

class Backend {
 public:
  virtual ~Backend() = default;
  virtual std::string name() const = 0;

  // The backend's own counters (none by default).
  virtual BackendStats stats() const { return BackendStats{name(), {}, {}}; }

  // What this backend adds to the fusibility rules. The fusers respect it,
  // so execute() runs every block it is given as one kernel.
  virtual FusionRules fusion_rules() const { return {}; }

  // The VM's profile, which the backend updates (codegen/compile time,
  // kernels, kernel cache, allocation, contraction, device transfers). The
  // runtime attaches its own right after construction; until then the
  // backend writes to a private one.
  void attach_profile(Profile* profile) { profile_ = profile != nullptr ? profile : &own_profile_; }

  // A base array now exists. Its memory is allocated lazily, on first write
  // (64-byte aligned on host backends), and never for a base that is freed
  // before it is written.
  virtual void declare(BaseId id, DType dtype, int64_t nelem) = 0;

  // Sets all of a base from host memory (nelem * dtype_size bytes).
  virtual void copy_from_host(BaseId id, const void* src) = 0;

  // Makes `data` (nelem * dtype_size bytes, the layout of copy_from_host)
  // the memory of a base declared just before, without copying, and returns
  // true; `deleter(data)` (if set) runs when the base is released. Backends
  // whose memory is elsewhere (a device) copy it instead, run the deleter at
  // once and return false: that is this default.
  virtual bool adopt(BaseId id, void* data, std::function<void(void*)> deleter) {
    copy_from_host(id, data);
    if (deleter) deleter(data);
    return false;
  }

  // Copies all of a base to host memory; elements never written read as 0.
  virtual void copy_to_host(BaseId id, void* dst) = 0;

  // Copies `count` elements of a base, from element `offset` every
  // `stride` elements (inside the base), next to each other to `dst`, and
  // returns true when the backend can do so at once (its memory is the
  // host's); false (the default: a device) makes the VM sync and copy the
  // whole base instead. The VM asks only when nothing pending touches it.
  virtual bool read_elements(BaseId id, int64_t offset, int64_t stride, int64_t count, void* dst) {
    (void)id, (void)offset, (void)stride, (void)count, (void)dst;
    return false;
  }

  // Copies `count` elements from `src` into a base from element `offset`
  // and returns true when the backend can do so at once (its memory is the
  // host's); false (the default) does nothing. The VM asks only when
  // nothing pending touches the base (Runtime::write_now).
  virtual bool write_elements(BaseId id, int64_t offset, int64_t count, const void* src) {
    (void)id, (void)offset, (void)count, (void)src;
    return false;
  }

  // Forgets a base and releases its memory (idempotent). `free` instructions
  // do this when they execute; the VM also calls it to clean up after a
  // batch that failed part-way.
  virtual void release(BaseId id) = 0;

  // Renaming (rewrite/copy_back.hpp): moves the memory of base `from` to base
  // `to`, which holds none (released, or declared and never written), and
  // forgets `from`. A backend that cannot says so in can_rename (the
  // default), and the VM then never asks.
  virtual bool can_rename() const { return false; }
  virtual void rename(BaseId from, BaseId to);
  // True if each block becomes a compiled kernel (cpu, opencl, mpi's node
  // kernels): the VM then cuts blocks of lanes so that kernels do not
  // change with a loop's trip count (rewrite/block_lanes.hpp). An
  // interpreter (ref) compiles nothing and keeps the fuser's blocks.
  virtual bool compiles_kernels() const { return false; }
  // A hint for a base declared just before: nothing reads an element of it
  // before writing it, so its memory need not be zero-filled.
  virtual void leave_unfilled(BaseId) {}

  // Executes `batch` block by block in the order of `partition`. Throws Error
  // for run-time errors of the program (e.g. a gather index out of range),
  // BackendError when the backend itself fails.
  // Must keep progress() up to date, so that the VM can contain a failure.
  virtual void execute(std::span<const Instruction> batch, const Partition& partition) = 0;

  // Whether every block of `partition` has its compiled kernel now, or
  // never will (its compile failed: it runs interpreted for good). A
  // backend that compiles in the background (tiered) queues the compiles
  // of the kernels it lacks and says false; the VM then runs the
  // partition this one replaced (FusionStage::fallback) and asks again at
  // the next flush of the batch. The default: true (kernels compiled at
  // launch, or none).
  virtual bool kernels_ready(std::span<const Instruction> batch, const Partition& partition) {
    (void)batch, (void)partition;
    return true;
  }

  // Runs `block` of `batch` at once, instruction by instruction on host
  // memory (ref::run_block: frees release their base), and returns true;
  // false (the default: memory elsewhere) runs nothing. The VM's eager path
  // (Config::eager, engine/runtime_eager.cpp) asks, for small work issued
  // when nothing is pending; an empty block asks whether the backend can.
  // Throws as execute() does.
  virtual bool run_now(std::span<const Instruction> batch, std::span<const uint32_t> block) {
    (void)batch, (void)block;
    return false;
  }

  // The eager path without an instruction (Runtime::run_dense_now): runs
  // elementwise opcode `op` (one or two inputs, a cast included, not a
  // select) over `n` elements at once, every operand one run of a base
  // (DenseRun: an offset and one step; an input may be a constant), and
  // returns true. false (the default) runs nothing, and the VM issues the
  // instruction instead. Validated by the VM: every base exists, every run
  // lies inside its base, the output's run is injective, and an input on
  // the output's base is the output's run (each element read before it is
  // written) or apart from it. Throws as run_now() does.
  virtual bool run_dense_now(Opcode op, std::span<const DenseRun> in, DenseRun out, DType out_dtype,
                             int64_t n) {
    (void)op, (void)in, (void)out, (void)out_dtype, (void)n;
    return false;
  }

  // The floating-point flags (vm/fp_flags.hpp) raised since the last call
  // by threads of the backend other than the one that calls execute() and
  // run_now() (the VM reads that one's itself), each thread's cleared.
  virtual uint32_t take_fp_flags() { return 0; }

  // How far the last execute() got: blocks [0, done) of its partition
  // completed. When execute() throws, block `done` is the one that failed
  // and the blocks after it did not run.
  struct Progress {
    std::size_t done = 0;
  };
  const Progress& progress() const { return progress_; }

  // Length classes (vm/length_class.hpp): how many elements each `compress`
  // that ran kept, by its output base (the class), since the runtime last
  // cleared the map. An instruction of a class whose compress ran in an
  // earlier block iterates over that length (resolve_length).
  std::unordered_map<BaseId, int64_t>& lengths() { return lengths_; }

 protected:
  // The batch to run `block` from: `batch` itself, or a copy (kept until
  // the next call) in which the block's instructions of a length class
  // whose compress ran in an earlier block iterate over its length. Those
  // whose compress is in the block stay: the block's loop runs them inside
  // the compress's (the transducer rule). With `pending` (a backend that
  // plans a batch before it runs), the block keeps its nominal length and
  // *pending is set to the class: the launch sets the length.
  std::span<const Instruction> resolve_classes(std::span<const Instruction> batch,
                                               std::span<const uint32_t> block, BaseId* pending = nullptr);
  // After a block ran: a minimum or maximum reduction of a class that its
  // compress left empty has no identity: ref's Error (the kernel wrote the
  // start value, which the poisoning that follows hides).
  void check_empty_classes(std::span<const Instruction> batch, std::span<const uint32_t> block) const;

  Profile& profile() { return *profile_; }
  Progress progress_;
  std::unordered_map<BaseId, int64_t> lengths_;
  std::vector<Instruction> resolved_;

 private:
  Profile own_profile_;
  Profile* profile_ = &own_profile_;
};

// ref's error for gather or scatter `in` with index `index` outside
// [0, index_limit(in)): the same message on every backend.
int64_t index_limit(const Instruction& in);  // a gather's source's elements, a scatter's target's
Error index_error(const Instruction& in, int64_t index);
// For a kernel that ran to its end with bad indices: InstructionsFailed
// (vm/error.hpp) naming each (batch index, bad index) of `bad`, the first
// one's message its own. Returns if `bad` is empty.
void throw_index_failures(std::span<const Instruction> batch,
                          std::span<const std::pair<uint32_t, int64_t>> bad);

// The backend named by config.backend. Throws Error listing the known names.
std::unique_ptr<Backend> make_backend(const Config& config);
std::vector<std::string> backend_names();

}  // namespace arrvm
