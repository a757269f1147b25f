#include "engine/anytime.hpp"

#include <chrono>
#include <exception>

#include "fusion/algorithms.hpp"
#include "fusion/cost.hpp"
#include "fusion/graph.hpp"
#include "fusion/row_nests.hpp"
#include "vm/error.hpp"

namespace arrvm::fusion {

namespace {

// CBC is not documented as safe to run in several threads at once, and a
// background solve is never urgent: one at a time per process.
std::mutex& solve_mutex() {
  static std::mutex m;
  return m;
}

}  // namespace

AnytimeWorker::AnytimeWorker(std::string fuser, std::string cost, double time_limit, FusionRules rules)
    : fuser_(std::move(fuser)), cost_(std::move(cost)), time_limit_(time_limit), rules_(rules) {}

AnytimeWorker::~AnytimeWorker() {
  stop();
}

bool AnytimeWorker::submit(AnytimeJob job) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (stopping_ || jobs_.size() >= kMaxQueued) return false;
  jobs_.push_back(std::move(job));
  if (!thread_.joinable()) thread_ = std::thread([this] { run(); });
  wake_.notify_one();
  return true;
}

std::vector<AnytimeResult> AnytimeWorker::take_results() {
  std::lock_guard<std::mutex> lock(mutex_);
  std::vector<AnytimeResult> out;
  out.swap(results_);
  return out;
}

void AnytimeWorker::wait_idle() {
  std::unique_lock<std::mutex> lock(mutex_);
  idle_.wait(lock, [this] { return jobs_.empty() && !running_job_; });
}

void AnytimeWorker::stop(double grace) {
  {
    std::unique_lock<std::mutex> lock(mutex_);
    if (grace > 0 && !stopping_ && thread_.joinable())
      idle_.wait_for(lock, std::chrono::duration<double>(grace),
                     [this] { return jobs_.empty() && !running_job_; });
    stopping_ = true;
    jobs_.clear();
    wake_.notify_all();
  }
  if (thread_.joinable()) thread_.join();
}

void AnytimeWorker::run() {
  std::unique_lock<std::mutex> lock(mutex_);
  while (true) {
    wake_.wait(lock, [this] { return stopping_ || !jobs_.empty(); });
    if (jobs_.empty()) return;  // stopping
    AnytimeJob job = std::move(jobs_.front());
    jobs_.pop_front();
    running_job_ = true;
    lock.unlock();
    AnytimeResult r = solve(job);
    lock.lock();
    running_job_ = false;
    results_.push_back(std::move(r));
    if (jobs_.empty()) idle_.notify_all();
  }
}

AnytimeResult AnytimeWorker::solve(const AnytimeJob& job) const {
  AnytimeResult r;
  r.key = job.key;
  r.partition = job.provisional;
  const auto start = std::chrono::steady_clock::now();
  try {
    std::lock_guard<std::mutex> one_at_a_time(solve_mutex());
    const Algorithm* algorithm = find_algorithm(fuser_);
    if (algorithm == nullptr) throw Error("unknown fuser '" + fuser_ + "'");
    const std::unique_ptr<CostModel> cost = make_cost_model(cost_);
    const Graph graph(job.batch, rules_);
    Options options;
    options.time_limit = time_limit_;
    Partition p = run_algorithm(*algorithm, graph, *cost, options);
    // Checked in every build: this partition replaces one that is known good.
    if (const std::string problem = check_partition(graph, p); !problem.empty()) {
      r.error = "fuser '" + fuser_ + "' returned an illegal partition (" + problem + "); greedy's is kept";
    } else {
      const Cost exact = cost->cost(graph, p), old = cost->cost(graph, job.provisional);
      if (exact <= old) {
        r.partition = std::move(p);
        r.improved = exact < old;
      }
    }
  } catch (const std::exception& e) {
    r.error = "background fusion with '" + fuser_ + "' failed: " + e.what() + "; greedy's partition is kept";
  }
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return r;
}

}  // namespace arrvm::fusion
