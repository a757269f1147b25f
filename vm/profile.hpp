// Counters and timers of one VM, printed or written at exit under ARRVM_PROFILE.
// The runtime owns one Profile; it hands the backend a pointer to it
// (Backend::attach_profile) and the fusion driver / merge cache update the
// fields they own. All times are seconds of wall clock.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

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
  uint64_t eager = 0;             // instructions run at once, outside a batch (Config::eager)
  uint64_t blocks_bounded = 0;    // fused blocks split at kMaxBlockViews (engine/block_bound.hpp)
  uint64_t blocks_laned = 0;      // fused blocks split into chunks of lanes (engine/block_lanes.hpp)
  uint64_t batches_cut = 0;       // full batches flushed up to a repeat of their start (engine/batch_cut.hpp)
  uint64_t work_blocks = 0;       // blocks with an instruction other than free/sync: one kernel each
  uint64_t overlap_copies = 0;    // copies the VM inserted for an output overlapping an input
  uint64_t fills_folded = 0;      // constant fills of a matrix's line made elementwise (engine/fill_fold.hpp)
  uint64_t fills_split = 0;       // fills split at the planes the next updates write (engine/fill_split.hpp)
  uint64_t boxes_split = 0;       // whole-array updates split at the next update's box (engine/box_split.hpp)
  uint64_t repeats_shared = 0;    // elementwise instructions that repeated an earlier one (engine/cse.hpp)
  uint64_t copies_forwarded = 0;  // copies read in place of their source (engine/copy_forward.hpp)
  uint64_t copies_renamed = 0;    // copy-backs that became renames (engine/copy_back.hpp)
  uint64_t gathers_pulled = 0;    // gathers that evaluate their source's producer (engine/gather_pull.hpp)
  uint64_t failed_batches = 0;    // batches in which a block failed (its arrays poisoned)
  // Names alive at a sync (engine/defer.hpp): bases deferred, writes dropped
  // as dead (their base freed unread), deferred chains that ran after all.
  uint64_t bases_deferred = 0, dead_writes = 0, deferrals_recomputed = 0;

  // Kernels (backends that generate code).
  uint64_t kernels_compiled = 0;  // compiler runs
  uint64_t kernels_launched = 0;  // generated kernels run
  uint64_t rows_fused = 0;        // blocks run inside the previous block's kernel (row fusion)
  uint64_t blocks_interpreted =
      0;  // tiered: blocks run instruction by instruction (kernel not ready or failed)
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
