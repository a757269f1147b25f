#include "cache/disk_writer.hpp"

#include <pthread.h>

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <cstdlib>
#include <deque>
#include <filesystem>
#include <memory>
#include <mutex>
#include <system_error>
#include <thread>
#include <unordered_map>

#include "cache/disk_entry.hpp"

namespace arrvm {

namespace {

struct Op {
  std::shared_ptr<const std::string> data;  // null: remove the file
  uint64_t seq = 0;
};

// The writer's state. Never destroyed: its detached thread may still run
// while the process's statics are destroyed.
struct Writer {
  std::mutex mu;
  std::condition_variable work;                 // the thread: something to do
  std::condition_variable idle;                 // drain: nothing pending, nothing in flight
  std::unordered_map<std::string, Op> pending;  // the last op asked per path
  std::deque<std::string> order;                // paths in the order asked (a path may repeat)
  uint64_t seq = 0;
  int in_flight = 0;
  bool running = false;
};

std::atomic<Writer*> g_writer{nullptr};

void perform(const std::string& path, const Op& op) {
  if (op.data) {
    write_file_atomically(path, *op.data);  // a cache that cannot be written is not an error
  } else {
    std::error_code ec;
    std::filesystem::remove(path, ec);
  }
}

void run(Writer* w) {
  std::unique_lock<std::mutex> lock(w->mu);
  for (;;) {
    w->work.wait(lock, [w] { return !w->order.empty(); });
    const std::string path = std::move(w->order.front());
    w->order.pop_front();
    auto it = w->pending.find(path);
    if (it == w->pending.end()) continue;  // done at an earlier mention
    const Op op = it->second;
    ++w->in_flight;
    lock.unlock();
    perform(path, op);
    lock.lock();
    --w->in_flight;
    it = w->pending.find(path);
    if (it != w->pending.end() && it->second.seq == op.seq) w->pending.erase(it);
    if (w->pending.empty() && w->in_flight == 0) w->idle.notify_all();
  }
}

// fork(): the child gets a fresh writer (the parent's mutex and condition
// variables may be mid-use by a thread the child does not have); what the
// parent had pending, the parent writes.
void before_fork() {
  g_writer.load()->mu.lock();
}
void after_fork_parent() {
  g_writer.load()->mu.unlock();
}
void after_fork_child() {
  g_writer.store(new Writer);
}

Writer& writer() {
  static const bool once = [] {
    g_writer.store(new Writer);
    pthread_atfork(before_fork, after_fork_parent, after_fork_child);
    std::atexit(drain_file_writes);
    return true;
  }();
  (void)once;
  return *g_writer.load();
}

void enqueue(const std::string& path, std::shared_ptr<const std::string> data) {
  Writer& w = writer();
  std::unique_lock<std::mutex> lock(w.mu);
  if (!w.running) {
    try {
      std::thread(run, &w).detach();
      w.running = true;
    } catch (const std::system_error&) {  // no thread to be had: write now
      lock.unlock();
      perform(path, Op{std::move(data), 0});
      return;
    }
  }
  w.pending[path] = Op{std::move(data), ++w.seq};
  w.order.push_back(path);
  w.work.notify_one();
}

}  // namespace

void write_file_later(const std::string& path, std::string data) {
  enqueue(path, std::make_shared<const std::string>(std::move(data)));
}

void remove_file_later(const std::string& path) {
  enqueue(path, nullptr);
}

std::optional<std::string> pending_file(const std::string& path, bool* known) {
  Writer& w = writer();
  std::lock_guard<std::mutex> lock(w.mu);
  const auto it = w.pending.find(path);
  *known = it != w.pending.end();
  if (!*known || !it->second.data) return std::nullopt;
  return *it->second.data;
}

void drain_file_writes() {
  Writer& w = writer();
  std::unique_lock<std::mutex> lock(w.mu);
  w.idle.wait(lock, [&w] { return w.pending.empty() && w.in_flight == 0; });
}

}  // namespace arrvm
