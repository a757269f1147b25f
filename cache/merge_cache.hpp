// The merge cache (seed 001 Sec. V-F): batch -> partition, so that a loop
// whose iterations flush the same batch pays for fusion once. In memory
// (LRU, bounded by entries and bytes) and, with Config.cache = on, on disk
// in Config.cache_dir/merge/, so that the next process starts warm.
//
// Key: a canonical serialization of the batch in 64-bit words, every field
// fixed-width — opcode, arity, axis; per view its base renamed by first
// appearance in the batch, dtype, rank, offset less the offset of the
// base's first view in the batch, shape, stride; per constant
// only its dtype (so two iterations of a loop that differ in a scalar, or in
// the ids of their temporaries, share an entry) — behind a header holding
// the format version, the fuser, the cost model and (for the time-limited
// fusers) the time limit, and the backend's FusionRules. Everything the WSP
// graph and the cost models read is in the key, so equal keys mean equal
// graphs and one partition serves both. They read offsets only to compare
// views of one base (equal, overlapping, covering), which a shift of all of
// a base's views leaves as it is: a loop that works on row t of a table
// (`counts[t] = row.sum()`) flushes batches with one key. The full key is stored and compared on every hit;
// the 64-bit hash only finds the candidate.
//
// Value: the partition as instruction indices, which re-bind to any batch
// with the same key as they are. A disk entry stores the full key, the
// partition, a provisional flag (anytime fusion: greedy's partition while
// the exact one is being solved) and a SHA-256 of all of it; it is written
// (on the process's writer thread, cache/disk_writer.hpp: a miss does not
// wait for the file system) to a unique temporary file and renamed into
// place, so processes sharing the directory see the old entry, none, or the
// whole new one. A truncated or corrupt entry is removed with a warning and
// rebuilt by the caller.
//
// This module knows nothing about fusion: the caller (engine/fusion_stage) runs
// the fuser on a miss and checks partitions read from disk for legality.
// Not thread-safe: one thread uses one MergeCache.
#pragma once

#include <cstdint>
#include <list>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "vm/config.hpp"
#include "vm/instruction.hpp"
#include "vm/partition.hpp"

namespace arrvm {

// 2: the backend's FusionRules; 3: a broadcast view costs its distinct
// elements (fusion/README.md), so partitions cached before may differ;
// 4: greedy runs both tie orders (fusion/greedy.cpp); 5: offsets relative to
// the base's first view in the batch; 6: row programs (fusion/row_nests.hpp);
// 7: lanes rolled up before fusion (rewrite/lane_reroll.hpp); 8: ilp proves
// machine and robinson batches it stopped on before (fusion/ilp_cost_search.hpp);
// 9: a row program grows through a single segment (fusion/row_nests.cpp); 10:
// gathers of gather_clips and gather_clips of row reductions compose (pull-gathers);
// 11: ilp's walk cuts inside CBC's tree prove batches it stopped on before.
inline constexpr uint64_t kMergeKeyVersion = 11;

struct MergeKey {
  std::vector<uint64_t> words;  // header, then the batch
  uint64_t hash = 0;
  uint32_t instructions = 0;

  bool operator==(const MergeKey& o) const { return hash == o.hash && words == o.words; }
};

struct MergeCacheStats {
  uint64_t memory_hits = 0;
  uint64_t disk_hits = 0;
  uint64_t misses = 0;
  uint64_t evictions = 0;    // LRU entries dropped from memory
  uint64_t disk_writes = 0;  // entries stored to the cache directory (written on the writer's thread)
  uint64_t corrupt = 0;      // disk entries rejected and removed
  uint64_t foreign = 0;      // disk hits written under other fusion rules (checked by the caller)
};

// A cached partition.
struct MergeEntry {
  MergeKey key;
  Partition partition;
  bool provisional = false;     // anytime: a better partition may replace it
  bool foreign = false;         // read from a disk entry stamped with other fusion rules
  bool upgrade_queued = false;  // (in memory only) a background solve is pending
  // (In memory only, engine/fusion_stage.hpp) a final partition that
  // replaced a provisional one: whether the backend had its kernels when
  // last asked, and the provisional partition run until it has them.
  bool kernels_ready = false;
  Partition fallback;
  std::size_t bytes = 0;  // memory accounted to it
};

// A partition id unique in the process (Partition::structure), as every
// entry's partition gets when it enters a MergeCache.
uint64_t new_structure_id();

// Builds keys for one fuser / cost model / time limit. Reuses its scratch
// storage, so a key costs no allocation once warm. O(batch words).
class MergeKeyBuilder {
 public:
  MergeKeyBuilder(const std::string& fuser, const std::string& cost, double time_limit,
                  FusionRules rules = {});
  void build(std::span<const Instruction> batch, MergeKey* key);

 private:
  uint32_t rename(BaseId id);
  uint64_t* put_view(uint64_t* w, const View& v);  // its words at w; returns the end

  std::vector<uint64_t> header_;
  std::vector<uint64_t> scratch_;  // the words being built
  // BaseId -> first-appearance index: open addressing, cleared by bumping
  // the generation instead of touching every slot.
  struct Slot {
    BaseId id = 0;
    uint32_t index = 0;
    uint32_t generation = 0;
  };
  std::vector<Slot> slots_;
  int slot_bits_ = 0;  // log2(slots_.size())
  uint32_t generation_ = 0;
  uint32_t next_index_ = 0;
  // First-appearance index -> offset of the base's first view (kNoRef until
  // one is seen: a base may first appear as a length class).
  static constexpr int64_t kNoRef = INT64_MIN;
  std::vector<int64_t> refs_;
};

class MergeCache {
 public:
  static constexpr std::size_t kMaxEntries = 4096;
  static constexpr std::size_t kMaxBytes = std::size_t{64} << 20;

  // `dir` is the cache directory (the entries go to dir/merge/); empty or a
  // mode other than On: memory only. `rules_id` stamps the entries this
  // cache writes (the fusion rules they were made under); a disk entry with
  // another stamp comes back `foreign`, for the caller to check.
  MergeCache(CacheMode mode, const std::string& dir, uint64_t rules_id = 0);
  ~MergeCache();  // waits for its disk writes
  uint64_t rules_id() const { return rules_id_; }
  MergeCache(const MergeCache&) = delete;
  MergeCache& operator=(const MergeCache&) = delete;

  bool enabled() const { return mode_ != CacheMode::Off; }
  bool on_disk() const { return !dir_.empty(); }
  const std::string& directory() const { return dir_; }

  // The entry for `key`, from memory or else from disk (then kept in
  // memory, *from_disk set); nullptr on a miss. The pointer is valid until
  // the next call that inserts. Counts a hit or a miss.
  MergeEntry* find(const MergeKey& key, bool* from_disk = nullptr);

  // Inserts or replaces the entry for `key` (memory and, when on disk, the
  // cache directory) and returns it. `partition` must cover the key's
  // instructions exactly once.
  MergeEntry* put(const MergeKey& key, Partition partition, bool provisional);

  // Forgets `key` in memory and on disk (a disk entry that failed the
  // caller's legality check).
  void erase(const MergeKey& key);

  // Stores an entry to the cache directory only (no memory entry); used
  // when a background result arrives after this cache's owner is gone, and
  // to restamp a foreign entry the caller found legal.
  void store_to_disk(const MergeKey& key, const Partition& partition, bool provisional);

  std::size_t size() const { return lru_.size(); }
  std::size_t bytes() const { return bytes_; }
  const MergeCacheStats& stats() const { return stats_; }

  // The file that holds (or would hold) `key` on disk; empty if not on disk.
  std::string file_of(const MergeKey& key) const;

 private:
  MergeEntry* insert(MergeEntry entry);
  bool load_from_disk(const MergeKey& key, MergeEntry* out);
  void evict();

  CacheMode mode_;
  uint64_t rules_id_ = 0;
  std::string dir_;
  std::list<MergeEntry> lru_;                                            // most recently used first
  std::unordered_map<uint64_t, std::list<MergeEntry>::iterator> index_;  // by hash
  std::size_t bytes_ = 0;
  MergeCacheStats stats_;
};

// True if `p` covers instructions 0..n-1 exactly once with non-empty,
// ascending blocks (what re-binding a cached partition to a batch checks;
// legality against the graph is the caller's business).
bool covers_batch(const Partition& p, std::size_t n);

}  // namespace arrvm
