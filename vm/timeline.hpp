// A timeline of one run in the Chrome trace event format (Perfetto,
// chrome://tracing): complete events ("ph": "X") with start and duration in
// microseconds. The runtime records a span per batch (fusion, execute); the
// backends record codegen, compile and one span per kernel launch inside
// `execute`. Recording is off unless Profile::timeline points at one, so the
// cost without it is one branch per span.
#pragma once

#include <chrono>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "vm/profile.hpp"

namespace arrvm {

class Timeline {
 public:
  using Clock = std::chrono::steady_clock;
  using Args = std::vector<std::pair<std::string, int64_t>>;

  struct Event {
    std::string name;
    std::string category;
    double ts_us = 0;  // since the timeline's origin
    double dur_us = 0;
    uint32_t tid = 0;  // 0: the thread that created the timeline; others numbered as seen
    Args args;
  };

  Timeline() : origin_(Clock::now()), threads_{std::this_thread::get_id()} {}

  // Records one span. Thread-safe.
  void add(std::string name, std::string category, Clock::time_point start, Clock::time_point end,
           Args args = {});

  std::vector<Event> events() const;
  // {"traceEvents": [...], "displayTimeUnit": "ms"}, events in start order.
  std::string to_json() const;
  // Writes to_json() to `path`. Throws Error if it cannot.
  void write(const std::string& path) const;

 private:
  Clock::time_point origin_;
  mutable std::mutex mutex_;
  std::vector<Event> events_;
  std::vector<std::thread::id> threads_;  // index = tid
};

// Adds its lifetime to a Profile counter (if `acc` is not null) and, when the
// profile has a timeline, records it as a span there.
class ScopedSpan {
 public:
  ScopedSpan(Profile& profile, double* acc, const char* name, const char* category = "arrvm",
             Timeline::Args args = {})
      : timeline_(profile.timeline),
        acc_(acc),
        name_(name),
        category_(category),
        args_(std::move(args)),
        start_(Timeline::Clock::now()) {}
  ~ScopedSpan();
  ScopedSpan(const ScopedSpan&) = delete;
  ScopedSpan& operator=(const ScopedSpan&) = delete;

  // Adds an argument shown with the span (e.g. a count known only at its end).
  void arg(std::string name, int64_t value) { args_.emplace_back(std::move(name), value); }
  // Names the span for what turned out to happen in it (a static string).
  void rename(const char* name) { name_ = name; }

 private:
  Timeline* timeline_;
  double* acc_;
  const char* name_;
  const char* category_;
  Timeline::Args args_;
  Timeline::Clock::time_point start_;
};

}  // namespace arrvm
