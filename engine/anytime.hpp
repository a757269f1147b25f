// Anytime fusion: the exact fusers (optimal, ilp) may take up to
// Config.fuse_time_limit per batch. On a merge-cache miss the driver runs
// greedy at once and hands the batch to this worker, which solves it with
// the exact fuser on a background thread; the driver swaps the better
// partition into the merge cache when it is ready, so the next flush of the
// same batch uses it. Values computed are the same either way (every
// partition is legal); only the time spent waiting for fusion differs.
//
// The worker owns copies of everything it reads (the batch may be gone when
// it runs), checks every result with check_partition and never returns one
// that costs more than the partition it replaces. Destroying it drops the
// queued jobs and waits for the running one (at most the time limit, plus
// CBC's overrun), so nothing outlives the library state it uses. Background
// solves of all workers in a process run one at a time.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "cache/merge_cache.hpp"
#include "vm/instruction.hpp"
#include "vm/partition.hpp"

namespace arrvm::fusion {

struct AnytimeJob {
  MergeKey key;
  std::vector<Instruction> batch;  // a copy: the runtime's batch is cleared after the flush
  Partition provisional;           // what the cache holds meanwhile (greedy's)
};

struct AnytimeResult {
  MergeKey key;
  Partition partition;    // the exact fuser's, or `provisional` if that was not better or failed
  bool improved = false;  // strictly cheaper than `provisional`
  double seconds = 0;     // time the solve took on the background thread
  std::string error;      // non-empty: the solve failed or was illegal (provisional kept)
};

class AnytimeWorker {
 public:
  static constexpr std::size_t kMaxQueued = 16;

  AnytimeWorker(std::string fuser, std::string cost, double time_limit, FusionRules rules = {});
  ~AnytimeWorker();
  AnytimeWorker(const AnytimeWorker&) = delete;
  AnytimeWorker& operator=(const AnytimeWorker&) = delete;

  // Queues a solve (starting the thread on first use). False if the queue
  // is full; the entry stays provisional and may be submitted again later.
  bool submit(AnytimeJob job);

  // The results finished so far (non-blocking).
  std::vector<AnytimeResult> take_results();

  // Blocks until nothing is queued or running (tests, benchmarks).
  void wait_idle();

  // Gives the queued and running jobs up to `grace` seconds, then drops the
  // queued ones and waits for the running one; later submits are refused.
  // Results already finished stay available to take_results.
  void stop(double grace = 0);

 private:
  void run();
  AnytimeResult solve(const AnytimeJob& job) const;

  const std::string fuser_, cost_;
  const double time_limit_;
  const FusionRules rules_;
  std::mutex mutex_;
  std::condition_variable wake_, idle_;
  std::deque<AnytimeJob> jobs_;
  std::vector<AnytimeResult> results_;
  bool running_job_ = false;
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace arrvm::fusion
