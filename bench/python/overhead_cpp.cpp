// The C++ side of bench/python/overhead.py: the same loop (10^5 elementwise
// operations on 10-element float64 arrays, flushing every 1000) on the C++
// Array API, so that the Python layer's own cost is the difference. Prints
// one JSON line: cpp_us_per_op, cpp_issue_us_per_op, cpp_flush_us_per_op
// (medians over the 1000-operation chunks).
// Usage: python_overhead_cpp [--chain] [OPS]
#include <arrvm/arrvm.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <utility>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

// Per 1000-operation chunk: {seconds issuing, seconds in flush}.
std::vector<std::pair<double, double>> loop(long ops, bool chain) {
  using arrvm::Array;
  const arrvm::Vm& vm = arrvm::Vm::default_vm();
  Array x = Array::ones({10});
  const Array y = Array::ones({10}) * 0.5;
  Array z;
  std::vector<std::pair<double, double>> chunks;
  for (long c = 0; c < ops / 1000; ++c) {
    const auto t0 = Clock::now();
    for (int i = 0; i < 1000; ++i) {
      if (chain) {
        x = x * y;
      } else {
        z = x * y;
      }
    }
    const double issue = seconds_since(t0);
    const auto t1 = Clock::now();
    vm.flush();
    chunks.emplace_back(issue, seconds_since(t1));
  }
  (chain ? x : z)(0).item<double>();
  return chunks;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  bool chain = false;
  long ops = 100000;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--chain") == 0) {
      chain = true;
    } else {
      ops = std::atol(argv[i]);
    }
  }
  if (ops < 1000) ops = 1000;
  loop(3000, chain);  // warm: kernels compiled, partitions in the merge cache
  const auto chunks = loop(ops, chain);
  std::vector<double> issue, flush;
  for (const auto& [i, f] : chunks) {
    issue.push_back(i);
    flush.push_back(f);
  }
  const double us = 1e6 / 1000.0;
  const double mi = median(issue), mf = median(flush);
  std::sort(issue.begin(), issue.end());
  std::printf(
      "{\"cpp_us_per_op\": %.4f, \"cpp_issue_us_per_op\": %.4f, \"cpp_flush_us_per_op\": %.4f, "
      "\"cpp_p10_issue_us_per_op\": %.4f}\n",
      (mi + mf) * us, mi * us, mf * us, issue[issue.size() / 10] * us);
  return 0;
}
