// Counters and timers of one VM, printed or written at exit under ARRVM_PROFILE.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

namespace arrvm {

struct Profile {
  double fusion_s = 0, exec_s = 0;
  uint64_t batches = 0, instructions = 0, blocks = 0;
  uint64_t bytes_from_host = 0, bytes_to_host = 0;

  std::string to_text() const;
  std::string to_json() const;
};

// Adds the seconds of its lifetime to a counter.
class ScopedTimer {
 public:
  explicit ScopedTimer(double* acc) : acc_(acc), start_(std::chrono::steady_clock::now()) {}
  ~ScopedTimer() {
    *acc_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  }
  ScopedTimer(const ScopedTimer&) = delete;
  ScopedTimer& operator=(const ScopedTimer&) = delete;

 private:
  double* acc_;
  std::chrono::steady_clock::time_point start_;
};

}  // namespace arrvm
