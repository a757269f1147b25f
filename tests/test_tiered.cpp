// Tiered execution on the cpu backend (ARRVM_TIERED, backends/cpu/
// compile_queue.hpp): a block whose kernel is still compiling runs
// interpreted, with ref's values, and the compiled kernel takes over once
// it is ready; a kernel that fails to compile stays interpreted; a VM
// destroyed while a compile runs does not wait for it; many kernels
// compile on the queue's workers, each once.
#include <doctest/doctest.h>
#include <sys/stat.h>

#include <arrvm/arrvm.hpp>
#include <atomic>
#include <chrono>
#include <cmath>
#include <fstream>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "engine/runtime.hpp"
#include "tests/cpu_test_util.hpp"
#include "vm/profile.hpp"

namespace {

using arrvm::Array;
using arrvm::DType;

// An executable shell script `name` in `dir` running `body`.
std::string script(const cputest::TempDir& dir, const std::string& name, const std::string& body) {
  const std::string path = dir.file(name);
  std::ofstream(path) << "#!/bin/sh\n" << body << "\n";
  ::chmod(path.c_str(), 0755);
  return path;
}

double seconds_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

// A step of a small program: three kernels' worth (elementwise, a reduction
// over rows, a scan), its values as float64.
std::vector<double> step(const arrvm::Vm& vm, int i) {
  const Array x = Array::arange(0.0, 6000.0, 1.0, DType::Float64, vm).reshape({60, 100}) * (0.001 * (i + 1));
  const Array y = arrvm::sqrt(x * x + 1.0) - x;
  std::vector<double> v = y.sum(1).to_vector<double>();
  const std::vector<double> c = (y.reshape({6000}) * 0.5).cumsum().to_vector<double>();
  v.insert(v.end(), c.begin(), c.end());
  return v;
}

arrvm::Vm::Options tiered(const cputest::TempDir& dir, const std::string& cc) {
  return {{"backend", "cpu"}, {"tiered", "on"}, {"cache_dir", dir.path()}, {"cc", cc}, {"log", "off"}};
}

}  // namespace

TEST_CASE(
    "tiered: blocks run interpreted while their kernels compile, then compiled; ref's values throughout") {
  cputest::TempDir dir;
  const std::string slow = script(dir, "slow-cc", "sleep 1; exec cc \"$@\"");
  const arrvm::Vm ref({{"backend", "ref"}});
  const arrvm::Vm cpu(tiered(dir, slow));
  const auto start = std::chrono::steady_clock::now();
  const std::vector<double> want = step(ref, 0);
  const std::vector<double> first = step(cpu, 0);
  CHECK(seconds_since(start) < 1.0);  // nothing waited for the compiler's second
  const arrvm::Profile& p = cpu.runtime().profile();
  CHECK(p.blocks_interpreted > 0);
  CHECK(p.kernels_launched == 0);
  REQUIRE(first.size() == want.size());
  for (std::size_t k = 0; k < want.size(); ++k) CHECK(first[k] == want[k]);  // the interpreter is ref's
  // Later steps find the kernels compiled (the compiles run 1 s each, on the workers).
  int i = 1;
  while (p.kernels_launched == 0 && seconds_since(start) < 60) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    const std::vector<double> got = step(cpu, i);
    const std::vector<double> expect = step(ref, i);
    for (std::size_t k = 0; k < expect.size(); ++k)
      CHECK(got[k] == doctest::Approx(expect[k]).epsilon(1e-12));
    ++i;
  }
  CHECK(p.kernels_launched > 0);
  CHECK(p.kernels_compiled > 0);
  // Once every kernel is taken, the compiler's second at least (kernels
  // compiled together share their run's time).
  for (uint64_t before = p.blocks_interpreted + 1;
       p.blocks_interpreted != before && seconds_since(start) < 60;) {
    before = p.blocks_interpreted;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    step(cpu, i++);
  }
  CHECK(p.compile_background_s > 0.9);
  const uint64_t compiled = p.kernels_compiled;
  for (int r = 0; r < 3; ++r) step(cpu, r);
  CHECK(p.kernels_compiled == compiled);  // each kernel compiled once
}

TEST_CASE("tiered: a kernel that fails to compile stays interpreted, with ref's values") {
  cputest::TempDir dir;
  const arrvm::Vm ref({{"backend", "ref"}});
  const arrvm::Vm cpu(tiered(dir, "false"));
  const auto start = std::chrono::steady_clock::now();
  const arrvm::Profile& p = cpu.runtime().profile();
  for (int i = 0; i < 30 && seconds_since(start) < 60; ++i) {
    const std::vector<double> got = step(cpu, i), want = step(ref, i);
    REQUIRE(got.size() == want.size());
    for (std::size_t k = 0; k < want.size(); ++k) CHECK(got[k] == want[k]);
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  CHECK(p.kernels_launched == 0);
  CHECK(p.kernels_compiled == 0);
  CHECK(p.blocks_interpreted >= 30);
}

TEST_CASE("tiered: destroying the VM does not wait for a compile that runs") {
  cputest::TempDir dir;
  const std::string hang = script(dir, "hang-cc", "sleep 600");
  const auto start = std::chrono::steady_clock::now();
  {
    const arrvm::Vm cpu(tiered(dir, hang));
    const std::vector<double> v = (Array::full({1000}, 2.0, DType::Float64, cpu) * 3.0).to_vector<double>();
    CHECK(v[999] == 6.0);
    std::this_thread::sleep_for(std::chrono::milliseconds(200));  // the compile is running
  }
  CHECK(seconds_since(start) < 10.0);
}

TEST_CASE("tiered: ARRVM_TIERED=off waits for each kernel (the synchronous contract)") {
  cputest::TempDir dir;
  const arrvm::Vm cpu({{"backend", "cpu"}, {"tiered", "off"}, {"cache_dir", dir.path()}});
  step(cpu, 0);
  const arrvm::Profile& p = cpu.runtime().profile();
  CHECK(p.blocks_interpreted == 0);
  CHECK(p.kernels_launched > 0);
  CHECK(p.kernels_compiled > 0);
}

TEST_CASE("tiered: a launch too big to interpret waits for its kernel") {
  cputest::TempDir dir;
  const std::string slow = script(dir, "slow-cc", "sleep 1; exec cc \"$@\"");
  const arrvm::Vm cpu(tiered(dir, slow));
  const arrvm::Profile& p = cpu.runtime().profile();
  const auto start = std::chrono::steady_clock::now();
  // 2^24 elements of a chain of ten statements: past the 2^27
  // element-statements that the interpreter takes on (CpuKernels::kInterpretWork).
  const Array x = Array::arange(0.0, 16777216.0, 1.0, DType::Float64, cpu);
  const std::vector<double> y =
      (((((((x * 2.0 + 1.0) * 0.5) - 0.25) * 4.0) + 1.0) * 0.5) - 1.0).to_vector<double>();
  CHECK(seconds_since(start) > 0.9);  // it waited for the slow compiler
  CHECK(p.kernels_launched > 0);
  REQUIRE(y.size() == 16777216u);
  // ((2i + 1) / 2 - 1/4) * 4 = 4i + 1; (4i + 1 + 1) / 2 - 1 = 2i
  for (std::size_t i = 0; i < y.size(); i += 4099) CHECK(y[i] == 2.0 * static_cast<double>(i));
}

namespace {

// Two threads that spin while it lives: /proc/loadavg counts them as
// runnable, so Threads::for_launch gives every launch one thread (a loaded
// machine, whatever else the machine runs).
class Load {
 public:
  Load() {
    for (auto& t : spinners_)
      t = std::thread([this] {
        while (!stop_.load(std::memory_order_relaxed)) {
        }
      });
  }
  ~Load() {
    stop_ = true;
    for (auto& t : spinners_) t.join();
  }

 private:
  std::atomic<bool> stop_{false};
  std::thread spinners_[2];
};

// `a = a * 0.5 + 0.5` over side x side elements on a team of two beside
// two spinning threads, checked at every step against the same arithmetic
// done here, until `done(forms)` holds for the forms the compiler logged of
// the loop's kernel (the only one that adds: "parallel" or "serial" a
// source) and at least 64 steps ran, or a minute passed. The forms logged.
std::string loop_on_loaded_machine(int side, const std::function<bool(const std::string&)>& done) {
  cputest::TempDir dir;
  const std::string log = dir.file("forms");
  const std::string cc = script(
      dir, "log-cc",
      "for a in \"$@\"; do case $a in *.c) if grep -q f_add_float64 \"$a\"; then if grep -q 'omp parallel' "
      "\"$a\"; then echo parallel; else echo serial; fi >> " +
          log + "; fi;; esac; done; exec cc \"$@\"");
  cputest::EnvVar two("OMP_NUM_THREADS", "2");  // (a team of two: parallel forms may be compiled)
  const arrvm::Vm cpu(tiered(dir, cc));
  const Load load;
  const int n = side * side;
  std::vector<double> want(n);
  for (int i = 0; i < n; ++i) want[i] = i * 0.001;
  Array a = Array::arange(0.0, n, 1.0, DType::Float64, cpu).reshape({side, side}) * 0.001;
  auto forms = [&] {
    std::ifstream in(log);
    std::string line, all;
    while (std::getline(in, line)) all += line + " ";
    return all;
  };
  const auto start = std::chrono::steady_clock::now();
  int steps = 0;
  while ((!done(forms()) || steps < 64) && seconds_since(start) < 60) {
    a = a * 0.5 + 0.5;
    for (double& w : want) w = w * 0.5 + 0.5;
    const std::vector<double> got = a.reshape({n}).to_vector<double>();
    ++steps;
    REQUIRE(got.size() == want.size());
    for (int i = 0; i < n; i += 97) REQUIRE(got[i] == want[i]);
    std::this_thread::sleep_for(std::chrono::milliseconds(steps < 64 ? 0 : 20));
  }
  return forms();
}

}  // namespace

TEST_CASE("tiered: a loaded machine never compiles a mid-sized kernel's parallel form") {
  // 200 x 200, 2 statements an element: past kParallelWork, below
  // kSureParallelWork. Compiled serial first (CpuBackend::first_form); its
  // parallel form only once a launch wants a team, which none does here.
  const std::string f =
      loop_on_loaded_machine(200, [](const std::string& f) { return f.find("serial") != std::string::npos; });
  CHECK(f.find("serial") != std::string::npos);
  CHECK(f.find("parallel") == std::string::npos);
}

TEST_CASE("tiered: a big kernel launched on one thread gets its serial form, with the same values") {
  // 1100 x 1100, 2 statements an element: past kSureParallelWork, so
  // compiled parallel first; its launches on one thread skip libgomp's
  // region once its serial form is there (CpuKernels::other_form).
  const std::string f = loop_on_loaded_machine(1100, [](const std::string& f) {
    return f.find("serial") != std::string::npos && f.find("parallel") != std::string::npos;
  });
  CHECK(f.find("parallel") != std::string::npos);
  CHECK(f.find("serial") != std::string::npos);
}
