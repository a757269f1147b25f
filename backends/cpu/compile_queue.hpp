// Kernels compiled on background threads (the cpu backend's tiered
// execution): a launch whose kernel is not compiled yet runs its block
// interpreted (backends/ref/ref_block.hpp) while a worker compiles the
// kernel; a later launch finds it and runs compiled. Several kernels compile
// at once, one per worker.
//
// Each worker owns a KernelCache (the compiler runs under its time limit,
// in its own process group; the disk cache is shared through the cache
// directory as between processes). A kernel is compiled once however often
// it is asked for. Hot first: a worker takes the kernels whose blocks have
// run interpreted longest (their heat: the seconds those blocks took), up
// to kUnitKernels, then those no block has run for yet, oldest first. The
// hottest compiles alone, soon, when it is hotter than all the others
// together (a loop's one large block) or a launch waits for it (infinitely
// hot). A unit compiles in one compiler run when its kernels may share a
// translation unit
// (KernelCache::get_all). At destruction (and at exit) the
// compiles get ARRVM_BACKGROUND_GRACE seconds to finish, so that the next run
// finds them in the disk cache; then the queued kernels are dropped and a
// compile that is running is killed (its thread's cancel flag:
// vm/interrupt.hpp): a program's exit waits that long at most.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <exception>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "cache/kernel_cache.hpp"
#include "vm/config.hpp"

namespace arrvm {

class CompileQueue {
 public:
  static constexpr std::size_t kUnitKernels = 8;

  CompileQueue(const Config& config, int workers);
  ~CompileQueue();
  CompileQueue(const CompileQueue&) = delete;
  CompileQueue& operator=(const CompileQueue&) = delete;

  // What poll() knows of a kernel.
  struct State {
    bool done = false;
    void* fn = nullptr;        // done: the kernel, or nullptr if its compile failed
    std::exception_ptr error;  // done and failed: the BackendError
    double seconds = 0;        // done: how long the worker took (lookup and compile)
    bool compiled = false;     // done: the compiler ran (not a disk hit)
  };

  // The state of the kernel `source` (symbol `symbol`), known by `id` (its
  // signature). The first call submits it; until a worker is done, `done`
  // is false.
  State poll(const std::string& id, const std::string& source, const std::string& symbol);

  // While a Burst lives, kernels polled for the first time queue without
  // waking a worker; its end wakes them, so that a batch's kernels asked
  // for together (CpuBackend::execute, a new partition) reach one worker
  // as a unit instead of one kernel a compiler run.
  class Burst {
   public:
    explicit Burst(CompileQueue* q);
    ~Burst();
    Burst(const Burst&) = delete;
    Burst& operator=(const Burst&) = delete;

   private:
    CompileQueue* q_;
  };

  // Adds `seconds` to the heat of kernel `id` (submitted before): its
  // blocks ran interpreted that long while it waited to compile.
  void heat(const std::string& id, double seconds);

  // Blocks until the kernel `id` (submitted before) is done, or `seconds`
  // passed, or the queue stopped; its state then.
  State wait(const std::string& id, double seconds);

  // The workers' kernel caches' counters, summed.
  KernelCacheStats stats() const;

  int workers() const { return static_cast<int>(threads_.size()); }
  double grace() const { return config_.background_grace; }
  bool stopped() const { return stop_.load(); }

  // Gives the queued and running compiles up to `grace` seconds to finish
  // (into the disk cache, for the next run), then drops the queued ones,
  // kills a running compile and joins the threads (idempotent; the
  // destructor and, for queues alive then, exit). poll() then never
  // reports a kernel done.
  void shutdown(double grace);

 private:
  struct Job {
    std::string source, symbol;
    State state;
    bool running = false;
    double heat = 0;  // seconds its blocks ran interpreted while it waited
  };
  void work(std::size_t index);
  // (under mutex_) How many workers may compile at once while the program
  // runs: one fewer than there are, so that the thread running the
  // program's interpreted blocks keeps a core; all while it waits for a
  // kernel (wait) or once the program is done (shutdown); a kernel a
  // launch waits for (infinitely hot) starts on any idle worker.
  int background_limit() const;
  bool may_start() const;

  Config config_;
  mutable std::mutex mutex_;
  std::condition_variable wake_, done_;
  std::deque<std::string> queue_;                               // ids waiting, oldest first
  std::unordered_map<std::string, std::unique_ptr<Job>> jobs_;  // every id asked for
  std::vector<std::unique_ptr<KernelCache>> caches_;            // one per worker
  std::vector<KernelCacheStats> snapshots_;                     // theirs after each job (under mutex_)
  std::atomic<bool> stop_{false};
  std::vector<std::thread> threads_;
  std::mutex join_mutex_;
  int busy_ = 0;
  int held_ = 0;           // Bursts alive (under mutex_)
  bool draining_ = false;  // shutdown began (under mutex_)
  int waiters_ = 0;        // threads in wait() (under mutex_)
};

}  // namespace arrvm
