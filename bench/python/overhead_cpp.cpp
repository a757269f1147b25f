// The C++ side of bench/python/overhead.py: the same loop (10^5 elementwise
// operations on 10-element float64 arrays, flushing every 1000) on the C++
// Array API, so that the Python layer's own cost is the difference. Prints
// one JSON line: cpp_us_per_op, cpp_issue_us_per_op, cpp_flush_us_per_op.
// Usage: python_overhead_cpp [--chain] [OPS]
#include <arrvm/arrvm.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

// Returns {total, inside flush} seconds.
std::pair<double, double> loop(long ops, bool chain) {
  using arrvm::Array;
  const arrvm::Vm& vm = arrvm::Vm::default_vm();
  Array x = Array::ones({10});
  const Array y = Array::ones({10}) * 0.5;
  Array z;
  double in_flush = 0;
  const auto start = Clock::now();
  for (long i = 0; i < ops; ++i) {
    if (chain) {
      x = x * y;
    } else {
      z = x * y;
    }
    if (i % 1000 == 999) {
      const auto t = Clock::now();
      vm.flush();
      in_flush += seconds_since(t);
    }
  }
  const auto t = Clock::now();
  vm.flush();
  (chain ? x : z)(0).item<double>();
  in_flush += seconds_since(t);
  return {seconds_since(start), in_flush};
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
  std::pair<double, double> best{1e30, 0};
  for (int r = 0; r < 3; ++r) best = std::min(best, loop(ops, chain));
  const double us = 1e6 / static_cast<double>(ops);
  std::printf("{\"cpp_us_per_op\": %.4f, \"cpp_issue_us_per_op\": %.4f, \"cpp_flush_us_per_op\": %.4f}\n",
              best.first * us, (best.first - best.second) * us, best.second * us);
  return 0;
}
