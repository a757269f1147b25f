// cpu_vs_c: the cpu backend against hand-written C+OpenMP (issue 4). Five
// programs of the benchmark suite run three ways in one process: libarrvm
// fused by greedy, libarrvm with singleton fusion (one kernel per
// instruction), both on the cpu backend with a warm kernel cache, and the
// hand-written loops of hand_kernels.c, compiled with the JIT's flags
// (-O3 -march=native -fopenmp -fno-math-errno -ffp-contract=off). Prints the
// best time of each, the ratios fused/hand and singleton/hand, and checks that
// the three checksums agree. The target is fused within 1.25x of the hand loop.
//
//   cpu_vs_c [--size tiny|default|paper] [--repeat N] [NAME...]
//
// Exit status: 0 if every checksum agrees, 1 if one does not, 2 on an error.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

#include "arrvm/arrvm.hpp"
#include "bench/hand_c/hand_kernels.h"
#include "bench/programs/programs.hpp"

namespace {

using arrvm::bench::Program;
using arrvm::bench::Size;

struct Contender {
  const char* program;  // the registry's name
  double (*hand)(int64_t n, int64_t iterations);
};

const Contender kContenders[] = {
    {"black_scholes", hand_black_scholes}, {"heat_equation", hand_heat_equation},
    {"leibnitz_pi", hand_leibnitz_pi},     {"monte_carlo_pi", hand_monte_carlo_pi},
    {"rosenbrock", hand_rosenbrock},
};

struct Timing {
  double best = 0;  // seconds, the fastest of the timed runs
  double checksum = 0;
};

// One warm-up run (it fills the kernel cache), then the best of `repeat`.
Timing time_it(const std::function<double()>& run, int repeat) {
  Timing t;
  t.checksum = run();
  t.best = 1e300;
  for (int i = 0; i < repeat; ++i) {
    const auto start = std::chrono::steady_clock::now();
    t.checksum = run();
    t.best = std::min(t.best, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  return t;
}

bool agree(double a, double b, double rtol) { return std::fabs(a - b) <= rtol * std::max(std::fabs(a), std::fabs(b)); }

int usage(const char* what) {
  std::fprintf(stderr, "cpu_vs_c: %s\nusage: cpu_vs_c [--size tiny|default|paper] [--repeat N] [NAME...]\n", what);
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  arrvm::bench::SizeClass size = arrvm::bench::SizeClass::Default;
  int repeat = 3;
  std::vector<std::string> only;
  try {
    for (int i = 1; i < argc; ++i) {
      const std::string a = argv[i];
      if (a == "--size" && i + 1 < argc) {
        size = arrvm::bench::parse_size_class(argv[++i]);
      } else if (a == "--repeat" && i + 1 < argc) {
        repeat = std::atoi(argv[++i]);
        if (repeat < 1) return usage("--repeat needs a positive number");
      } else if (!a.empty() && a[0] == '-') {
        return usage(("unknown option " + a).c_str());
      } else {
        only.push_back(a);
      }
    }
  } catch (const arrvm::Error& e) {
    return usage(e.what());
  }

  int failures = 0;
  try {
    const arrvm::Vm fused({{"backend", "cpu"}, {"fuser", "greedy"}});
    const arrvm::Vm single({{"backend", "cpu"}, {"fuser", "singleton"}});
    std::printf("cpu backend vs hand-written C+OpenMP; best of %d runs after a warm-up, seconds\n\n", repeat);
    std::printf("%-16s %-16s %9s %9s %9s %11s %11s  %s\n", "program", "size", "fused", "singleton", "hand C",
                "fused/hand", "single/hand", "checksums");
    for (const Contender& c : kContenders) {
      if (!only.empty() && std::find(only.begin(), only.end(), c.program) == only.end()) continue;
      const Program* p = arrvm::bench::find_program(c.program);
      const Size s = p->size(size);
      const Timing tf = time_it([&] { return p->run(fused, s); }, repeat);
      const Timing ts = time_it([&] { return p->run(single, s); }, repeat);
      const Timing th = time_it([&] { return c.hand(s.n, s.iterations); }, repeat);
      const bool ok = agree(tf.checksum, th.checksum, p->rtol) && agree(ts.checksum, th.checksum, p->rtol);
      if (!ok) ++failures;
      const std::string sz = std::to_string(s.n) + " x " + std::to_string(s.iterations);
      std::printf("%-16s %-16s %9.4f %9.4f %9.4f %10.2fx %10.2fx  %s\n", c.program, sz.c_str(), tf.best, ts.best,
                  th.best, tf.best / th.best, ts.best / th.best, ok ? "agree" : "DIFFER");
      if (!ok) {
        std::printf("    fused %.17g, singleton %.17g, hand %.17g\n", tf.checksum, ts.checksum, th.checksum);
      }
      std::fflush(stdout);
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "cpu_vs_c: %s\n", e.what());
    return 2;
  }
  return failures == 0 ? 0 : 1;
}
