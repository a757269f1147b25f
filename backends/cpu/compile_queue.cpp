#include "backends/cpu/compile_queue.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <unordered_set>
#include <utility>

#include "vm/error.hpp"
#include "vm/interrupt.hpp"

namespace arrvm {

namespace {

// The live queues, stopped at exit: a VM that Python never destroys (an
// array alive at exit holds it) must not leave compile threads running
// while the process's static objects are destroyed.
std::mutex g_live_mutex;
std::unordered_set<CompileQueue*>* g_live = nullptr;

void stop_live_queues() {
  // (Under the lock: a queue another thread destroys meanwhile waits for
  // this, and its own shutdown then finds it stopped.)
  std::lock_guard<std::mutex> lock(g_live_mutex);
  if (g_live == nullptr) return;
  for (CompileQueue* q : *g_live) q->shutdown(q->grace());
}

}  // namespace

CompileQueue::CompileQueue(const Config& config, int workers) : config_(config) {
  {
    std::lock_guard<std::mutex> lock(g_live_mutex);
    if (g_live == nullptr) {
      g_live = new std::unordered_set<CompileQueue*>();  // (never destroyed: used at exit)
      std::atexit(stop_live_queues);
    }
    g_live->insert(this);
  }
  if (workers < 1) workers = 1;
  for (int w = 0; w < workers; ++w) caches_.push_back(std::make_unique<KernelCache>(config_));
  snapshots_.resize(caches_.size());
  for (int w = 0; w < workers; ++w) threads_.emplace_back([this, w] { work(static_cast<std::size_t>(w)); });
}

CompileQueue::~CompileQueue() {
  {
    std::lock_guard<std::mutex> lock(g_live_mutex);
    g_live->erase(this);
  }
  shutdown(config_.background_grace);
}

void CompileQueue::shutdown(double grace) {
  {
    std::unique_lock<std::mutex> lock(mutex_);
    draining_ = true;  // (the program is done: every worker may compile)
    wake_.notify_all();
    if (grace > 0 && !stop_.load()) {
      done_.wait_for(lock, std::chrono::duration<double>(grace),
                     [&] { return queue_.empty() && busy_ == 0; });
    }
    stop_.store(true);
    queue_.clear();
  }
  wake_.notify_all();
  done_.notify_all();
  std::lock_guard<std::mutex> join(join_mutex_);
  for (std::thread& t : threads_) {
    if (t.joinable()) t.join();
  }
}

CompileQueue::State CompileQueue::poll(const std::string& id, const std::string& source,
                                       const std::string& symbol) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = jobs_.find(id);
  if (it == jobs_.end()) {
    auto job = std::make_unique<Job>();
    job->source = source;
    job->symbol = symbol;
    jobs_.emplace(id, std::move(job));
    queue_.push_back(id);
    if (held_ == 0) wake_.notify_one();  // (else the Burst's end wakes them)
    return {};
  }
  return it->second->state;
}

CompileQueue::Burst::Burst(CompileQueue* q) : q_(q) {
  std::lock_guard<std::mutex> lock(q_->mutex_);
  ++q_->held_;
}

CompileQueue::Burst::~Burst() {
  {
    std::lock_guard<std::mutex> lock(q_->mutex_);
    --q_->held_;
  }
  q_->wake_.notify_all();  // (workers with nothing to take sleep again)
}

void CompileQueue::heat(const std::string& id, double seconds) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = jobs_.find(id);
    if (it != jobs_.end()) it->second->heat += seconds;
  }
  if (std::isinf(seconds)) wake_.notify_all();  // (a worker the background limit held may take it)
}

int CompileQueue::background_limit() const {
  const int workers = static_cast<int>(threads_.size());
  return draining_ || waiters_ > 0 ? workers : std::max(1, workers - 1);
}

bool CompileQueue::may_start() const {
  if (queue_.empty() || held_ > 0) return false;
  if (busy_ < background_limit()) return true;
  return std::any_of(queue_.begin(), queue_.end(),
                     [&](const std::string& id) { return std::isinf(jobs_.at(id)->heat); });
}

CompileQueue::State CompileQueue::wait(const std::string& id, double seconds) {
  std::unique_lock<std::mutex> lock(mutex_);
  auto it = jobs_.find(id);
  if (it == jobs_.end()) throw InternalError("compile queue: wait for a kernel never submitted");
  Job* job = it->second.get();
  ++waiters_;  // (the program waits: its core may compile too)
  if (waiters_ == 1) wake_.notify_all();
  done_.wait_for(lock, std::chrono::duration<double>(seconds),
                 [&] { return job->state.done || stop_.load(); });
  --waiters_;
  return job->state;
}

KernelCacheStats CompileQueue::stats() const {
  std::lock_guard<std::mutex> lock(mutex_);
  KernelCacheStats s;
  for (const KernelCacheStats& w : snapshots_) {
    s.compiled += w.compiled;
    s.memory_hits += w.memory_hits;
    s.disk_hits += w.disk_hits;
    s.misses += w.misses;
    s.corrupt += w.corrupt;
  }
  return s;
}

void CompileQueue::work(std::size_t index) {
  set_thread_cancel(&stop_);  // a running compile ends at shutdown
  KernelCache& cache = *caches_[index];
  std::unique_lock<std::mutex> lock(mutex_);
  while (true) {
    wake_.wait(lock, [&] { return stop_.load() || may_start(); });
    if (stop_.load()) break;
    // Hot first: the kernels whose blocks ran interpreted longest (heat),
    // up to kUnitKernels in all with those no block has run for yet,
    // oldest first. The hottest compiles alone, soon, when it is hotter than all
    // the others together (a loop's one large block) or a launch waits
    // for it (infinitely hot). One compiler run for a unit (those that may
    // share a translation unit: KernelCache::get_all).
    std::vector<Job*> jobs;
    std::vector<std::size_t> order(queue_.size());
    for (std::size_t q = 0; q < order.size(); ++q) order[q] = q;
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
      return jobs_.at(queue_[a])->heat > jobs_.at(queue_[b])->heat;
    });
    double rest = 0;  // the heat of all but the hottest
    for (std::size_t k = 1; k < order.size(); ++k) rest += jobs_.at(queue_[order[k]])->heat;
    const bool alone = !order.empty() && jobs_.at(queue_[order[0]])->heat > rest;
    // (Shared among the idle workers: a burst of 10 is two units of 5, both
    // cores compiling, not 8 and then 2.)
    // (A worker that a kernel waited for let past the limit counts one.)
    const std::size_t idle = static_cast<std::size_t>(std::max(1, background_limit() - busy_));
    const std::size_t share = std::min(kUnitKernels, (order.size() + idle - 1) / idle);
    std::vector<std::size_t> taken;
    for (std::size_t q : order) {
      if (taken.size() == (alone ? 1 : share)) break;
      taken.push_back(q);
    }
    for (std::size_t q : taken) jobs.push_back(jobs_.at(queue_[q]).get());
    std::sort(taken.rbegin(), taken.rend());
    for (std::size_t q : taken) queue_.erase(queue_.begin() + static_cast<std::ptrdiff_t>(q));
    std::vector<std::string> sources, symbols;
    for (Job* job : jobs) {
      job->running = true;
      sources.push_back(job->source);
      symbols.push_back(job->symbol);
    }
    ++busy_;
    const uint64_t compiled_before = cache.stats().compiled;
    lock.unlock();
    std::vector<State> states(jobs.size());
    const auto start = std::chrono::steady_clock::now();
    // Those in the cache's memory or on disk first (not compiled), then the rest.
    std::vector<std::size_t> missing;
    for (std::size_t j = 0; j < jobs.size(); ++j) {
      try {
        states[j].fn = cache.find(sources[j], symbols[j]);
      } catch (...) {
        states[j].error = std::current_exception();
      }
      if (states[j].fn == nullptr && !states[j].error) missing.push_back(j);
    }
    bool together = false;
    if (missing.size() > 1) {
      std::vector<std::string> unit_sources, unit_symbols;
      for (std::size_t j : missing) {
        unit_sources.push_back(sources[j]);
        unit_symbols.push_back(symbols[j]);
      }
      try {
        const std::vector<void*> fns = cache.get_all(unit_sources, unit_symbols);
        for (std::size_t u = 0; u < missing.size(); ++u) states[missing[u]].fn = fns[u];
        together = true;
      } catch (const InterruptedError&) {
        for (std::size_t j : missing) states[j].error = std::current_exception();
        together = true;
      } catch (...) {  // one at a time: each kernel its own error
      }
    }
    for (std::size_t j : missing) {
      if (together) break;
      try {
        states[j].fn = cache.get(sources[j], symbols[j]);
      } catch (...) {
        states[j].error = std::current_exception();
      }
    }
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    lock.lock();
    const bool compiled = cache.stats().compiled > compiled_before;
    snapshots_[index] = cache.stats();
    for (std::size_t j = 0; j < jobs.size(); ++j) {
      State& s = states[j];
      const bool built = std::find(missing.begin(), missing.end(), j) != missing.end();
      s.seconds = built ? seconds / static_cast<double>(missing.size()) : 0;  // (its share of the run)
      s.compiled = compiled && built;
      s.done = true;
      jobs[j]->state = std::move(s);
      jobs[j]->running = false;
      jobs[j]->source.clear();  // (the state is all that is read from now on)
    }
    --busy_;
    done_.notify_all();
  }
  set_thread_cancel(nullptr);
}

}  // namespace arrvm
