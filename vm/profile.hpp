// Counters and timers of one VM, printed or written at exit under ARRVM_PROFILE.
// The runtime owns one Profile; it hands the backend a pointer to it
// (Backend::attach_profile) and the fusion driver / merge cache update the
// fields they own. All times are seconds of wall clock.
#pragma once

#include <array>
#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>

namespace arrvm {

class Timeline;

struct Profile {
  // Where spans are recorded (vm/timeline.hpp: ScopedSpan); null: nowhere.
  // `arrvm replay --timeline` sets it.
  Timeline* timeline = nullptr;

  // Time. exec_s is the time inside Backend::execute, which includes the
  // backend's codegen_s and compile_s; execution proper is exec_s minus both.
  // total_s is the VM's lifetime (set when the profile is reported);
  // unaccounted = total - fusion - exec - merge_cache (the frontend, the
  // validation, the user's own code).
  double total_s = 0;
  double fusion_s = 0;             // running the fuser (merge-cache misses)
  double fusion_background_s = 0;  // anytime fusion: exact solves on the background thread (not in total)
  double merge_cache_s = 0;        // hashing the batch, looking it up, re-binding
  double exec_s = 0;
  double codegen_s = 0;             // lowering blocks and printing source
  double compile_s = 0;             // running the compiler and loading the result
  double compile_background_s = 0;  // tiered: compiles on the cpu backend's compile threads (not in total)

  uint64_t batches = 0, instructions = 0, blocks = 0;
  uint64_t eager = 0;           // instructions run at once, outside a batch (Config::eager)
  uint64_t eager_direct = 0;    // of those, run without an instruction built (Runtime::run_dense_now)
  uint64_t blocks_bounded = 0;  // fused blocks split at the size limit (kMaxBlockViews)
  uint64_t batches_cut = 0;     // full batches flushed up to a repeat of their start
  uint64_t work_blocks = 0;     // blocks with an instruction other than free/sync: one kernel each
  uint64_t overlap_copies = 0;  // copies the VM inserted for an output overlapping an input
  uint64_t failed_batches = 0;  // batches in which a block failed (its arrays poisoned)
  // Chains deferred at a sync (the defer pass) that ran after all.
  uint64_t deferrals_recomputed = 0;
  // The optional passes (ARRVM_PASSES): how often each fired, by the
  // pass's name (the VM sets the names, static strings, when it starts).
  static constexpr int kMaxPasses = 24;
  std::array<const char*, kMaxPasses> pass_names{};
  std::array<uint64_t, kMaxPasses> pass_counts{};
  // The count of the pass called `name` (0 for a name not set).
  uint64_t pass(std::string_view name) const;
  // Adds `n` to it (a Backend pass, which the backend counts; nothing for a name not set).
  void count_pass(std::string_view name, uint64_t n);

  // Kernels (backends that generate code).
  uint64_t kernels_compiled = 0;  // compiler runs
  uint64_t kernels_launched = 0;  // generated kernels run
  uint64_t kernels_on_team = 0;   // of those, run on more than one thread
  uint64_t blocks_interpreted =
      0;                        // tiered: blocks run instruction by instruction (kernel not ready or failed)
  uint64_t blocks_chunked = 0;  // of those, run a chunk at a time (backends/ref/ref_block.hpp)
  uint64_t kernel_cache_hits = 0;  // in memory or on disk
  uint64_t kernel_cache_disk_hits = 0;
  uint64_t kernel_cache_misses = 0;

  // Memory of base arrays held by the backend.
  uint64_t arrays_contracted = 0;  // bases never allocated: scalar temporaries
  uint64_t bytes_allocated = 0;    // now
  uint64_t bytes_allocated_peak = 0;

  // Merge cache (partitions of batches seen before).
  uint64_t merge_cache_hits = 0, merge_cache_misses = 0, merge_cache_upgrades = 0;
  uint64_t merge_cache_rejected = 0;  // partitions read from disk that failed check_partition
  uint64_t upgrades_held =
      0;  // flushes that ran a provisional partition while the final one's kernels compiled

  // Data moved between the host and base arrays (user writes / reads), and,
  // for device backends, between host and device memory.
  uint64_t bytes_from_host = 0, bytes_to_host = 0;
  uint64_t writes_direct =
      0;  // element writes with nothing pending on the base: no instruction (Runtime::write_now)
  uint64_t reads_direct = 0;  // reads of a base nothing pending touched: no flush (Runtime::read_now)
  uint64_t bytes_to_device = 0, bytes_from_device = 0;

  // Communication between ranks (the mpi backend): bytes this rank sent and
  // received, messages and collectives it took part in, time waiting in MPI.
  uint64_t comm_bytes_sent = 0, comm_bytes_received = 0, comm_messages = 0;
  double comm_wait_s = 0;

  void allocated(uint64_t bytes) {
    bytes_allocated += bytes;
    if (bytes_allocated > bytes_allocated_peak) bytes_allocated_peak = bytes_allocated;
  }
  void deallocated(uint64_t bytes) { bytes_allocated -= bytes < bytes_allocated ? bytes : bytes_allocated; }

  double execution_s() const { return exec_s - codegen_s - compile_s; }
  double unaccounted_s() const { return total_s - fusion_s - merge_cache_s - exec_s; }

  std::string to_text() const;
  std::string to_json() const;
};

// Adds the seconds of its lifetime to a counter.
class ScopedTimer {
 public:
  explicit ScopedTimer(double* acc) : acc_(acc), start_(std::chrono::steady_clock::now()) {}
  ~ScopedTimer() {
    *acc_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  }
  ScopedTimer(const ScopedTimer&) = delete;
  ScopedTimer& operator=(const ScopedTimer&) = delete;

 private:
  double* acc_;
  std::chrono::steady_clock::time_point start_;
};

}  // namespace arrvm
