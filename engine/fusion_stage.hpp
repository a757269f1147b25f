// The fusion stage of the pipeline: batch -> partition, under the configured
// algorithm and cost model, with the merge cache (cache/merge_cache.hpp)
// and anytime fusion (engine/anytime.hpp) around it, in this one place.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>

#include "cache/merge_cache.hpp"
#include "fusion/fuse.hpp"
#include "vm/config.hpp"
#include "vm/instruction.hpp"
#include "vm/partition.hpp"
#include "vm/profile.hpp"

namespace arrvm {

namespace fusion {
class AnytimeWorker;
}

// What a Runtime calls on every flush: hash the batch, look it up in the
// merge cache (memory, then Config.cache_dir/merge/), and on a miss run the
// fuser and remember its partition. With Config.anytime = on and an exact
// fuser (optimal, ilp) a miss runs greedy and queues the exact solve on a
// background thread; its partition replaces greedy's in the cache when
// ready (profile: merge_cache_upgrades). A partition read from disk is
// checked legal against the batch's graph before it is used.
// A final partition that replaced a provisional one runs only once the
// backend has its kernels (Backend::kernels_ready): until then the
// provisional one, whose kernels a tiered backend has compiled or is
// compiling, runs in its place (the runtime asks: upgrade_unchecked,
// upgrade_ready, fallback), so an upgrade never stalls a run on compiles.
// Profile: merge_cache_s (hash, lookup, re-bind, disk, upgrades),
// fusion_s (fusers run on this thread), merge_cache_hits / misses.
class FusionStage {
 public:
  // `rules`: the backend's (Backend::fusion_rules). Throws Error for an
  // unknown fuser or cost model.
  explicit FusionStage(const Config& config, FusionRules rules = {});
  ~FusionStage();  // drops queued background solves, waits for a running one
  FusionStage(const FusionStage&) = delete;
  FusionStage& operator=(const FusionStage&) = delete;

  // The partition for `batch` (a validated batch).
  Partition partition(std::span<const Instruction> batch, Profile& profile);

  // After partition(): true if it returned a final partition that replaced
  // a provisional one and the backend has not been seen to hold its
  // kernels. The caller asks the backend, then calls upgrade_ready() or
  // runs fallback(batch) instead.
  bool upgrade_unchecked() const { return unchecked_ != nullptr; }
  // The backend holds the kernels of the partition partition() returned:
  // it is not asked about that entry again in this process.
  void upgrade_ready();
  // The provisional partition that the last partition() replaced: the
  // quick fuser's (greedy for an exact fuser, linear for tiered greedy),
  // computed once per entry, with its own structure id. Only while
  // upgrade_unchecked().
  Partition fallback(std::span<const Instruction> batch, Profile& profile);

  // Blocks until no background solve is queued or running; the next
  // partition() call applies what they found.
  void wait_for_background();

  bool anytime() const { return worker_ != nullptr; }
  const MergeCache& cache() const { return cache_; }

 private:
  Partition fuse_miss(std::span<const Instruction> batch, Profile& profile);
  // Whether a miss on `batch` gets a provisional partition first, and the fuser that makes it.
  bool provisional_first(std::span<const Instruction> batch) const;
  const char* quick_fuser() const;
  void apply_background(Profile& profile);
  bool submit(std::span<const Instruction> batch, const MergeKey& key, const Partition& provisional);

  Config config_;
  FusionRules rules_;
  MergeKeyBuilder keys_;
  MergeCache cache_;
  MergeKey key_;  // scratch, reused by every flush
  std::unique_ptr<fusion::AnytimeWorker> worker_;
  MergeEntry* unchecked_ = nullptr;  // (upgrade_unchecked; valid until the next partition())
};

}  // namespace arrvm
