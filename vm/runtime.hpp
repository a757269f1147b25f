// The VM: base-array registry, validation of incoming instructions, the
// batch, and the flush pipeline (fuse -> execute). Not thread-safe: one
// thread drives one Runtime.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <span>
#include <unordered_map>
#include <vector>

#include "vm/config.hpp"
#include "vm/instruction.hpp"
#include "vm/profile.hpp"

namespace arrvm {

class Backend;
class FusionStage;
class TraceWriter;
struct Partition;

struct BaseInfo {
  DType dtype;
  int64_t nelem;
};

// Live base arrays. Ids are handed out in increasing order and never reused,
// so a freed base needs no tombstone: an id below next_id() that is not
// live was freed (this keeps a long loop's registry at constant size).
class BaseRegistry {
 public:
  BaseId add(DType dtype, int64_t nelem);
  void remove(BaseId id) { live_.erase(id); }
  const BaseInfo* find(BaseId id) const;
  bool was_freed(BaseId id) const { return id >= 0 && id < next_ && !live_.count(id); }
  std::size_t live_count() const { return live_.size(); }

 private:
  std::unordered_map<BaseId, BaseInfo> live_;
  BaseId next_ = 0;
};

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
  // Fusion with the merge cache (fusion/driver.hpp).
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

  // Validates `instr`, normalizes it (dtypes from the bases, inputs broadcast
  // to the iteration shape) and appends it to the batch; flushes on `sync`
  // and when the batch is full. A rejected instruction throws Error naming it
  // and leaves the VM exactly as it was.
  void issue(Instruction instr);

  // Runs everything pending. If execution fails, the batch is dropped, the
  // bases it freed are released, and the error is rethrown.
  void flush();

  // sync + flush + copy all of a base to `dst` (`bytes` must be its size).
  void read(BaseId id, void* dst, std::size_t bytes);

  // Issues `free` for a base.
  void free_base(BaseId id);

  std::size_t pending() const { return batch_.size(); }
  uint64_t instructions_issued() const { return issued_; }
  void set_flush_observer(FlushObserver* o) { observer_ = o; }

 private:
  void record_sync(BaseId id);

  Config config_;
  std::unique_ptr<FusionStage> fusion_;
  std::unique_ptr<Backend> backend_;
  std::unique_ptr<TraceWriter> trace_;
  BaseRegistry bases_;
  std::vector<Instruction> batch_;
  std::vector<BaseId> batch_bases_;  // bases referenced by the batch (unsorted, may repeat)
  uint64_t issued_ = 0;              // instructions accepted so far (names them in errors)
  FlushObserver* observer_ = nullptr;
  Profile profile_;
  bool profile_reported_ = false;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
};

}  // namespace arrvm
