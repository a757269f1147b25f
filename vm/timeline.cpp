#include "vm/timeline.hpp"

#include <algorithm>
#include <fstream>

#include <nlohmann/json.hpp>

#include "vm/error.hpp"

namespace arrvm {

void Timeline::add(std::string name, std::string category, Clock::time_point start, Clock::time_point end,
                   Args args) {
  Event e;
  e.name = std::move(name);
  e.category = std::move(category);
  e.ts_us = std::chrono::duration<double, std::micro>(start - origin_).count();
  e.dur_us = std::chrono::duration<double, std::micro>(end - start).count();
  e.args = std::move(args);
  const std::thread::id me = std::this_thread::get_id();
  std::lock_guard<std::mutex> lock(mutex_);
  const auto it = std::find(threads_.begin(), threads_.end(), me);
  e.tid = static_cast<uint32_t>(it - threads_.begin());
  if (it == threads_.end()) threads_.push_back(me);
  events_.push_back(std::move(e));
}

std::vector<Timeline::Event> Timeline::events() const {
  std::vector<Event> out;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    out = events_;
  }
  // Start order; a parent before the children that start with it.
  std::stable_sort(out.begin(), out.end(), [](const Event& a, const Event& b) {
    if (a.ts_us != b.ts_us) return a.ts_us < b.ts_us;
    return a.dur_us > b.dur_us;
  });
  return out;
}

std::string Timeline::to_json() const {
  nlohmann::ordered_json events = nlohmann::ordered_json::array();
  events.push_back(
      {{"name", "process_name"}, {"ph", "M"}, {"pid", 1}, {"tid", 0}, {"args", {{"name", "arrvm"}}}});
  for (const Event& e : this->events()) {
    nlohmann::ordered_json j;
    j["name"] = e.name;
    j["cat"] = e.category;
    j["ph"] = "X";
    j["ts"] = e.ts_us;
    j["dur"] = e.dur_us;
    j["pid"] = 1;
    j["tid"] = e.tid;
    if (!e.args.empty()) {
      nlohmann::ordered_json a = nlohmann::ordered_json::object();
      for (const auto& [k, v] : e.args) a[k] = v;
      j["args"] = std::move(a);
    }
    events.push_back(std::move(j));
  }
  nlohmann::ordered_json doc;
  doc["traceEvents"] = std::move(events);
  doc["displayTimeUnit"] = "ms";
  return doc.dump();
}

void Timeline::write(const std::string& path) const {
  std::ofstream out(path);
  if (!out) throw Error("timeline: cannot write " + path);
  out << to_json() << "\n";
  if (!out) throw Error("timeline: write failed: " + path);
}

ScopedSpan::~ScopedSpan() {
  const auto end = Timeline::Clock::now();
  if (acc_ != nullptr) *acc_ += std::chrono::duration<double>(end - start_).count();
  if (timeline_ == nullptr) return;
  try {
    timeline_->add(name_, category_, start_, end, std::move(args_));
  } catch (...) {
    // Out of memory while recording: the timeline misses a span, the run goes on.
  }
}

}  // namespace arrvm
