// Kernels compiled together (cache/kernel_cache.hpp, KernelCache::get_all;
// backends/cpu/compile_queue.hpp): the cpu backend's kernels, printed with
// guarded helpers and named after their signatures, share one translation
// unit and one compiler run when several wait; what would act on the
// kernels after it keeps a kernel apart; each kernel's disk entry serves a
// later process; and a program run tiered gives ref's values with fewer
// compiler runs than kernels; the compile queue takes the hottest kernel
// first.
#include <dlfcn.h>
#include <doctest/doctest.h>
#include <sys/stat.h>

#include <algorithm>
#include <arrvm/arrvm.hpp>
#include <chrono>
#include <fstream>
#include <functional>
#include <limits>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "backends/cpu/compile_queue.hpp"
#include "cache/kernel_cache.hpp"
#include "engine/runtime.hpp"
#include "tests/cpu_test_util.hpp"
#include "vm/config.hpp"
#include "vm/profile.hpp"

namespace {

using arrvm::Array;
using arrvm::DType;

// A kernel as the cpu backend prints it: the prelude, guarded helpers, an
// OpenMP reduction named arrvm_r0, the function `name`. `op` is its
// combine ("a + b", "a > b ? a : b"): kernels that share the reduction's
// name but not its combine must not meet in one unit.
std::string kernel(const std::string& name, const std::string& helper, const std::string& op) {
  return "#include <stdint.h>\n#include <string.h>\n#include <math.h>\n"
         "#define ARRVM_DIV0() do { volatile double arrvm_z_ = 0.0; arrvm_z_ = 1.0 / arrvm_z_; } while (0)\n"
         "#ifndef ARRVM_HELPER_" +
         helper + "\n#define ARRVM_HELPER_" + helper + "\nstatic inline double " + helper +
         "(double a, double b) { return " + op +
         "; }\n#endif\n"
         "#pragma omp declare reduction(arrvm_r0 : double : omp_out = " +
         helper + "(omp_out, omp_in)) initializer(omp_priv = -0.0)\n" + "double " + name +
         "(const double* x, int64_t n) {\n  double acc0 = -0.0;\n"
         "#pragma omp parallel for reduction(arrvm_r0:acc0)\n"
         "  for (int64_t i = 0; i < n; ++i) acc0 = " +
         helper + "(acc0, x[i]);\n  return acc0;\n}\n";
}

// `src` with one more guarded helper, `guard`'s `text`, ahead of its code.
std::string with_helper(const std::string& src, const std::string& guard, const std::string& text) {
  const std::size_t at = src.find("#ifndef ARRVM_HELPER_");
  return src.substr(0, at) + "#ifndef ARRVM_HELPER_" + guard + "\n#define ARRVM_HELPER_" + guard + "\n" +
         text + "#endif\n" + src.substr(at);
}

using Fn = double (*)(const double*, int64_t);

int lines_in(const std::string& path) {
  std::ifstream in(path);
  int n = 0;
  std::string line;
  while (std::getline(in, line)) ++n;
  return n;
}

// An executable shell script `name` in `dir` running `body`.
std::string script(const cputest::TempDir& dir, const std::string& name, const std::string& body) {
  const std::string path = dir.file(name);
  std::ofstream(path) << "#!/bin/sh\n" << body << "\n";
  ::chmod(path.c_str(), 0755);
  return path;
}

}  // namespace

TEST_CASE("compile units: which kernels may share a translation unit") {
  const std::string sum = kernel("k_sum", "f_add_float64", "a + b");
  const std::string max = kernel("k_max", "f_maximum_float64", "a > b ? a : b");
  const std::string sum2 = kernel("k_sum2", "f_add_float64", "a + b");
  // The same helper name with another text: apart.
  const std::string other_add = kernel("k_bad", "f_add_float64", "b + a");
  // What acts on the kernels after it, and a static outside a guard: apart.
  const std::string gcc = "#pragma GCC optimize (\"no-tree-vectorize\")\n" + kernel("k_gcc", "f_x", "a");
  const std::string simd =
      "#pragma omp declare simd notinbranch\ndouble exp(double);\n" + kernel("k_simd", "f_y", "a");
  const std::string loose =
      "static inline double f_z(double a) { return a; }\n" + kernel("k_loose", "f_w", "a");
  CHECK(arrvm::unit_members({sum, max, sum2}) == std::vector<std::size_t>{0, 1, 2});
  CHECK(arrvm::unit_members({sum, other_add, max}) == std::vector<std::size_t>{0, 2});
  CHECK(arrvm::unit_members({gcc, sum, simd, loose, max}) == std::vector<std::size_t>{1, 4});
  CHECK(arrvm::unit_members({}).empty());
  // A helper that declares exp `omp declare simd` (vector math) joins a
  // unit with kernels that call exp only through such helpers; not with one
  // whose own code calls exp (a helper that does not declare it, or the
  // kernel's body), which the declaration would turn into a vector call.
  const std::string decl = "#pragma omp declare simd notinbranch\ndouble exp(double);\n";
  const std::string vexp =
      with_helper(kernel("k_v1", "f_add_float64", "a + b"), "f_exp_float64",
                  decl + "static inline double f_exp_float64(double a) { return exp(a); }\n");
  const std::string vexp2 =
      with_helper(kernel("k_v2", "f_maximum_float64", "a > b ? a : b"), "f_exp_float64",
                  decl + "static inline double f_exp_float64(double a) { return exp(a); }\n");
  const std::string sexp =
      with_helper(kernel("k_s", "f_y", "a"), "f_softplus_float64",
                  "static inline double f_softplus_float64(double a) { return log1p(exp(a)); }\n");
  const std::string body_exp = kernel("k_b", "f_z", "exp(a) + b");
  const std::string expm1 =
      with_helper(kernel("k_m", "f_w", "a"), "f_expm1_float64",
                  "static inline double f_expm1_float64(double a) { return expm1(a); }\n");
  CHECK(arrvm::unit_members({vexp, vexp2, sum}) == std::vector<std::size_t>{0, 1, 2});
  CHECK(arrvm::unit_members({vexp, sexp, vexp2}) == std::vector<std::size_t>{0, 2});
  CHECK(arrvm::unit_members({sexp, vexp, body_exp}) == std::vector<std::size_t>{0, 2});
  CHECK(arrvm::unit_members({body_exp, vexp, vexp2}) == std::vector<std::size_t>{0});
  CHECK(arrvm::unit_members({vexp, expm1}) == std::vector<std::size_t>{0, 1});  // (expm1 is not exp)
  // A helper that declares sin but calls exp as well: not with vexp.
  const std::string vsin_exp =
      with_helper(kernel("k_se", "f_q", "a"), "f_sinexp_float64",
                  "#pragma omp declare simd notinbranch\ndouble sin(double);\n"
                  "static inline double f_sinexp_float64(double a) { return sin(a) + exp(a); }\n");
  CHECK(arrvm::unit_members({vexp, vsin_exp, vexp2}) == std::vector<std::size_t>{0, 2});
  CHECK(arrvm::unit_members({vsin_exp, vexp}) == std::vector<std::size_t>{0});
  // Each kernel's reduction gets a name of its own around its source.
  const std::string unit = arrvm::unit_source({sum, max}, {"k_sum", "k_max"});
  CHECK(unit.find("#define arrvm_r0 k_sum_r0\n") != std::string::npos);
  CHECK(unit.find("#define arrvm_r0 k_max_r0\n") != std::string::npos);
  CHECK(unit.find("#undef arrvm_r0\n") != std::string::npos);
}

TEST_CASE("compile units: one compiler run for kernels that may share one; each entry serves a new cache") {
  cputest::TempDir dir;
  const std::string counting =
      script(dir, "counting-cc", "echo x >> \"" + dir.file("runs") + "\"; exec cc \"$@\"");
  arrvm::Config config;
  config.cc = counting;
  config.cache_dir = dir.file("cache");
  const std::vector<std::string> sources = {
      kernel("k_sum", "f_add_float64", "a + b"), kernel("k_max", "f_maximum_float64", "a > b ? a : b"),
      kernel("k_sum2", "f_add_float64", "a + b"),
      "#pragma GCC optimize (\"no-tree-vectorize\")\n" + kernel("k_gcc", "f_first", "a")};
  const std::vector<std::string> symbols = {"k_sum", "k_max", "k_sum2", "k_gcc"};
  const double x[5] = {1.0, -2.0, 7.5, 3.0, 0.25};
  const double want[4] = {9.75, 7.5, 9.75, -0.0};  // (k_gcc's combine keeps its start)
  {
    arrvm::KernelCache cache(config);
    const std::vector<void*> fns = cache.get_all(sources, symbols);
    REQUIRE(fns.size() == 4);
    for (std::size_t i = 0; i < 4; ++i) {
      REQUIRE(fns[i] != nullptr);
      CHECK(reinterpret_cast<Fn>(fns[i])(x, 5) == want[i]);
    }
    CHECK(lines_in(dir.file("runs")) == 2);  // the three in one unit, the GCC pragma's apart
    CHECK(cache.stats().compiled == 2);
    CHECK(cache.stats().misses == 4);
    // Asked again: memory.
    CHECK(cache.get_all(sources, symbols) == fns);
    CHECK(lines_in(dir.file("runs")) == 2);
  }
  // A new cache on the same directory: every kernel from its own entry.
  arrvm::KernelCache fresh(config);
  for (std::size_t i = 0; i < 4; ++i) {
    void* fn = fresh.get(sources[i], symbols[i]);
    REQUIRE(fn != nullptr);
    CHECK(reinterpret_cast<Fn>(fn)(x, 5) == want[i]);
  }
  CHECK(fresh.stats().disk_hits == 4);
  CHECK(lines_in(dir.file("runs")) == 2);
}

TEST_CASE("compile units: a unit that fails to compile leaves each kernel to its own run") {
  cputest::TempDir dir;
  arrvm::Config config;
  config.cache_dir = dir.file("cache");
  arrvm::KernelCache cache(config);
  const std::string broken = kernel("k_broken", "f_broken", "a +* b");
  CHECK_THROWS_AS(cache.get_all({kernel("k_ok", "f_add_float64", "a + b"), broken}, {"k_ok", "k_broken"}),
                  arrvm::BackendError);
  // The good kernel alone compiles (the compile queue then asks one by one).
  CHECK(cache.get(kernel("k_ok", "f_add_float64", "a + b"), "k_ok") != nullptr);
}

TEST_CASE("compile units: a program run tiered compiles its kernels in fewer runs, with ref's values") {
  cputest::TempDir dir;
  const std::string counting =
      script(dir, "counting-cc", "echo x >> \"" + dir.file("runs") + "\"; exec cc \"$@\"");
  // Twelve kernels of distinct structure, each read at once (a batch each:
  // interpreted at once while the first compiles, so the others wait in
  // the queue together).
  const auto program = [](const arrvm::Vm& vm) {
    std::vector<double> out;
    const Array x = Array::arange(0.0, 600.0, 1.0, DType::Float64, vm).reshape({20, 30}) * 0.01;
    const std::vector<std::function<Array()>> steps = {[&] { return x + 1.0; },
                                                       [&] { return x * x; },
                                                       [&] { return arrvm::sqrt(x + 2.0); },
                                                       [&] { return (x - 0.5) * (x + 0.5); },
                                                       [&] { return x.sum(1); },
                                                       [&] { return (x * x).sum(1); },
                                                       [&] { return arrvm::exp(x * -1.0); },
                                                       [&] { return x / (x + 1.0); },
                                                       [&] { return x.max(1); },
                                                       [&] { return (x * 3.0 - 1.0) * x; },
                                                       [&] { return x.min(1); },
                                                       [&] { return (x + x * x).sum(1); }};
    for (const auto& step : steps) {
      for (double v : step().to_vector<double>()) out.push_back(v);
    }
    return out;
  };
  const arrvm::Vm ref({{"backend", "ref"}});
  const std::vector<double> want = program(ref);
  const arrvm::Vm cpu({{"backend", "cpu"},
                       {"tiered", "on"},
                       {"eager", "off"},
                       {"cache_dir", dir.file("cache")},
                       {"cc", counting},
                       {"log", "off"}});
  const arrvm::Profile& p = cpu.runtime().profile();
  const auto start = std::chrono::steady_clock::now();
  uint64_t kernels = 0;
  for (int round = 0; round < 600; ++round) {
    const std::vector<double> got = program(cpu);
    REQUIRE(got.size() == want.size());
    for (std::size_t k = 0; k < want.size(); ++k) CHECK(got[k] == doctest::Approx(want[k]).epsilon(1e-12));
    if (p.blocks_interpreted > 0 && p.kernels_launched > 0 && round > 2) {
      // Every kernel compiled once the last round interpreted nothing.
      const uint64_t before = p.blocks_interpreted;
      program(cpu);
      if (p.blocks_interpreted == before) {
        kernels = p.kernel_cache_misses;
        break;
      }
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    if (std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() > 120) break;
  }
  const int runs = lines_in(dir.file("runs"));
  MESSAGE(kernels << " kernels compiled in " << runs << " compiler runs (" << p.kernels_compiled
                  << " counted)");
  REQUIRE(kernels >= 8);
  CHECK(static_cast<uint64_t>(runs) < kernels);
  CHECK(p.kernels_compiled == kernels);  // (kernels the compiler built, several a run)
  // A second process's VM on that cache: every kernel from its disk entry
  // (counted as a hit, not compiled), no compiler run, ref's values.
  const arrvm::Vm again({{"backend", "cpu"},
                         {"tiered", "on"},
                         {"eager", "off"},
                         {"cache_dir", dir.file("cache")},
                         {"cc", counting},
                         {"log", "off"}});
  const arrvm::Profile& q = again.runtime().profile();
  for (int round = 0; round < 200 && q.kernel_cache_disk_hits < kernels; ++round) {
    const std::vector<double> got = program(again);
    for (std::size_t k = 0; k < want.size(); ++k) CHECK(got[k] == doctest::Approx(want[k]).epsilon(1e-12));
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  CHECK(q.kernel_cache_disk_hits >= kernels);
  CHECK(q.kernels_compiled == 0);
  CHECK(lines_in(dir.file("runs")) == runs);
}

TEST_CASE(
    "compile queue: a kernel hotter than all others together compiles first and alone, the rest as a unit") {
  cputest::TempDir dir;
  // A slow compiler (0.4 s a run): a kernel compiled in a later run than
  // another cannot be done when that one is.
  const std::string slow =
      script(dir, "slow-cc", "echo x >> \"" + dir.file("runs") + "\"; sleep 0.4; exec cc \"$@\"");
  arrvm::Config config;
  config.cc = slow;
  config.cache_dir = dir.file("cache");
  arrvm::CompileQueue queue(config, 1);
  const auto source = [](const std::string& name) { return kernel(name, "f_add_float64", "a + b"); };
  // The worker takes "a" alone (nothing else waits yet) and is busy while
  // b, c, d and e queue behind it.
  CHECK_FALSE(queue.poll("a", source("k_a"), "k_a").done);
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  for (const char* id : {"b", "c", "d", "e"}) {
    CHECK_FALSE(queue.poll(id, source(std::string("k_") + id), std::string("k_") + id).done);
  }
  // d's blocks ran interpreted for a second, more than the others'
  // together (0.6 s); e's and b's for 0.3 s each; c's not yet.
  queue.heat("d", 1.0);
  queue.heat("e", 0.3);
  queue.heat("b", 0.3);
  const arrvm::CompileQueue::State d = queue.wait("d", 30);
  REQUIRE(d.done);
  CHECK(d.fn != nullptr);
  // d compiled alone after a; the rest wait for the next run, together.
  CHECK_FALSE(queue.poll("b", "", "").done);
  CHECK_FALSE(queue.poll("c", "", "").done);
  CHECK_FALSE(queue.poll("e", "", "").done);
  std::vector<arrvm::CompileQueue::State> rest;
  for (const char* id : {"b", "c", "e"}) {
    rest.push_back(queue.wait(id, 30));
    REQUIRE(rest.back().done);
  }
  // Runs: a; d; b, c and e in one.
  CHECK(lines_in(dir.file("runs")) == 3);
  for (const arrvm::CompileQueue::State& state : rest) {
    REQUIRE(state.fn != nullptr);
    const double x[2] = {1.5, 2.0};
    CHECK(reinterpret_cast<Fn>(state.fn)(x, 2) == 3.5);
  }
}

// The most compiler runs that ran at once, from a log of "s" (start) and
// "e" (end) lines.
static int most_at_once(const std::string& path) {
  std::ifstream in(path);
  int now = 0, most = 0;
  std::string line;
  while (std::getline(in, line)) {
    now += line == "s" ? 1 : -1;
    most = std::max(most, now);
  }
  return most;
}

TEST_CASE(
    "compile queue: a burst's kernels compile as one unit; one worker fewer than there are compiles in the "
    "background, every worker for a kernel a launch waits for") {
  cputest::TempDir dir;
  const std::string log = dir.file("log");
  const std::string slow =
      script(dir, "slow-cc",
             "echo s >> \"" + log + "\"; sleep 0.4; cc \"$@\"; r=$?; echo e >> \"" + log + "\"; exit $r");
  arrvm::Config config;
  config.cc = slow;
  config.cache_dir = dir.file("cache");
  arrvm::CompileQueue queue(config, 2);
  const auto ask = [&](const std::string& id) {
    return queue.poll(id, kernel("k_" + id, "f_add_float64", "a + b"), "k_" + id).done;
  };
  // Polled until done, not waited for (a thread in wait() lifts the limit).
  const auto settle = [&](const std::vector<std::string>& ids) {
    for (int i = 0; i < 1500; ++i) {
      bool all = true;
      for (const std::string& id : ids) all = all && queue.poll(id, "", "").done;
      if (all) return;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  };
  const auto done = [&](const std::string& id) {
    const arrvm::CompileQueue::State s = queue.wait(id, 30);
    REQUIRE(s.done);
    REQUIRE(s.fn != nullptr);
    const double x[2] = {1.5, 2.0};
    CHECK(reinterpret_cast<Fn>(s.fn)(x, 2) == 3.5);
  };
  // Asked for in a burst: no worker starts before its end, then one takes
  // all four (the background limit: one of the two workers).
  {
    arrvm::CompileQueue::Burst burst(&queue);
    for (const char* id : {"a", "b", "c", "d"}) {
      CHECK_FALSE(ask(id));
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    CHECK(lines_in(log) == 0);
  }
  settle({"a", "b", "c", "d"});
  for (const char* id : {"a", "b", "c", "d"}) done(id);
  CHECK(lines_in(log) == 2);  // one run
  // Two background kernels asked one after the other: one run at a time.
  CHECK_FALSE(ask("g"));
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  CHECK_FALSE(ask("h"));
  settle({"g", "h"});
  done("g");
  done("h");
  CHECK(lines_in(log) == 6);
  CHECK(most_at_once(log) == 1);
  // A kernel a launch waits for (infinitely hot) takes the other worker
  // while one compiles; so does any kernel while a thread waits.
  CHECK_FALSE(ask("e"));
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  CHECK_FALSE(ask("f"));
  queue.heat("f", std::numeric_limits<double>::infinity());
  done("f");
  done("e");
  CHECK(lines_in(log) == 10);
  CHECK(most_at_once(log) == 2);
}
