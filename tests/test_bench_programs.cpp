// The benchmark programs (programs/) at their tiny sizes: ref and cpu
// agree with each other and with NumPy, and a recorded run of each replays
// and verifies under every fuser.
#include <doctest/doctest.h>
#include <sys/wait.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <string>

#include <nlohmann/json.hpp>

#include "arrvm/arrvm.hpp"
#include "engine/runtime.hpp"
#include "programs/programs.hpp"
#include "tests/cpu_test_util.hpp"

namespace {

using arrvm::Vm;
using arrvm::bench::Program;
using arrvm::bench::SizeClass;

// The NumPy twins' checksums at the tiny sizes, from
//   /usr/bin/python3 bench/numpy/programs.py black_scholes 1000 3 game_of_life 32 4 heat_equation 16 5
//     leibnitz_pi 1000 3 gauss 12 11 lu 12 11 monte_carlo_pi 1000 3 stencil27 10 3 shallow_water 16 3
//     rosenbrock 1000 3 sor 16 5 nbody 16 3 nbody_nice 32 3 lattice_boltzmann 6 3 water_ice 6 3
// (one command line)
// (NumPy 1.24.2; the sizes are the registry's `tiny` ones, checked below; recomputed
// when a Philox block came to serve two elements).
const std::map<std::string, double>& numpy_checksums() {
  static const std::map<std::string, double> m = {
      {"black_scholes", 0.005321557562684345},
      {"game_of_life", 101.0},
      {"heat_equation", -7355.6345280000005},
      {"leibnitz_pi", 3.1410926536210444},
      {"gauss", 14.27040327543413},
      {"lu", 187.44251587151905},
      {"monte_carlo_pi", 3.132},
      {"stencil27", 15595.549458923944},
      {"shallow_water", 382.5973524380698},
      {"rosenbrock", 3700.5997327298996},
      {"sor", -20073.915176340477},
      {"nbody", 1373.3081243591791},
      {"nbody_nice", 1620926.2110701248},
      {"lattice_boltzmann", 33.22734409573703},
      {"water_ice", 5138.688278167744},
  };
  return m;
}

// The tiny sizes the numbers above were computed at.
const std::map<std::string, arrvm::bench::Size>& numpy_sizes() {
  static const std::map<std::string, arrvm::bench::Size> m = {
      {"black_scholes", {1000, 3}},
      {"game_of_life", {32, 4}},
      {"heat_equation", {16, 5}},
      {"leibnitz_pi", {1000, 3}},
      {"gauss", {12, 11}},
      {"lu", {12, 11}},
      {"monte_carlo_pi", {1000, 3}},
      {"stencil27", {10, 3}},
      {"shallow_water", {16, 3}},
      {"rosenbrock", {1000, 3}},
      {"sor", {16, 5}},
      {"nbody", {16, 3}},
      {"nbody_nice", {32, 3}},
      {"lattice_boltzmann", {6, 3}},
      {"water_ice", {6, 3}},
  };
  return m;
}

bool close(double got, double want, double rtol) {
  return std::fabs(got - want) <= rtol * std::max(std::fabs(got), std::fabs(want));
}

// Runs `cmd` with the shell; returns its exit status and output.
int run(const std::string& cmd, std::string* output) {
  FILE* p = ::popen((cmd + " 2>&1").c_str(), "r");
  REQUIRE(p != nullptr);
  char buf[4096];
  while (std::fgets(buf, sizeof buf, p) != nullptr) *output += buf;
  const int status = ::pclose(p);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

}  // namespace

TEST_CASE("bench programs: the registry has Table I's fifteen, each with a NumPy checksum") {
  const auto& progs = arrvm::bench::programs();
  CHECK(progs.size() == 15);
  for (const Program& p : progs) {
    const std::string name = p.name;
    CAPTURE(name);
    REQUIRE(numpy_checksums().count(p.name) == 1);
    const arrvm::bench::Size want = numpy_sizes().at(p.name);
    CHECK(p.tiny.n == want.n);
    CHECK(p.tiny.iterations == want.iterations);
    CHECK(arrvm::bench::find_program(p.name) == &p);
  }
  CHECK(arrvm::bench::find_program("no_such_program") == nullptr);
  CHECK_THROWS_AS(arrvm::bench::parse_size_class("huge"), arrvm::Error);
}

TEST_CASE("bench programs: tiny runs on ref and cpu match each other and NumPy") {
  cputest::TempDir dir;
  // One VM per backend for all programs, as `arrvm bench` keeps one per row.
  const Vm ref({{"backend", "ref"}, {"fuser", "singleton"}, {"cache_dir", dir.path()}});
  const Vm cpu({{"backend", "cpu"}, {"fuser", "greedy"}, {"cache_dir", dir.path()}});
  for (const Program& p : arrvm::bench::programs()) {
    const std::string name = p.name;
    CAPTURE(name);
    const arrvm::bench::Size size = p.size(SizeClass::Tiny);
    const double want = numpy_checksums().at(p.name);
    const double on_ref = p.run(ref, size);
    const double on_cpu = p.run(cpu, size);
    CAPTURE(on_ref);
    CAPTURE(on_cpu);
    CAPTURE(want);
    CHECK(close(on_ref, want, p.rtol));
    CHECK(close(on_cpu, want, p.rtol));
    // The backends differ at most in the order of summation.
    CHECK(close(on_cpu, on_ref, 1e-12));
  }
}

TEST_CASE("bench programs: a recorded tiny run replays and verifies under every fuser") {
  // Replays run on the cpu backend, where the partition decides kernels and
  // contraction, so a wrong partition shows as wrong bytes. The kernels are
  // compiled at -O0 (same semantics: no FP contraction either way) to keep
  // some 200 compilations within the test budget; the test above uses the
  // default flags.
  cputest::TempDir dir;
  // ARRVM_ANYTIME=off: optimal and ilp partition each batch themselves
  // rather than starting with greedy's (engine/anytime.hpp).
  // ARRVM_LOG=error: the cold-compile notice on stderr would mix into the JSON.
  const std::string env = "ARRVM_LOG=error ARRVM_CACHE_DIR='" + dir.path() +
                          "/cache' ARRVM_FUSE_TIME_LIMIT=0.2 ARRVM_ANYTIME=off " +
                          "ARRVM_CFLAGS='-O0 -fopenmp -fno-math-errno -ffp-contract=off' ";
  for (const Program& p : arrvm::bench::programs()) {
    const std::string name = p.name;
    CAPTURE(name);
    const std::string trace = dir.path() + "/" + p.name + ".trace";
    {
      const Vm vm({{"backend", "ref"}, {"fuser", "singleton"}, {"trace", trace}});
      p.run(vm, p.size(SizeClass::Tiny));
    }
    std::map<std::string, double> cost;
    for (const char* fuser : {"singleton", "linear", "greedy", "unintrusive", "optimal", "ilp"}) {
      CAPTURE(fuser);
      std::string out;
      const int rc = run(
          env + "'" + ARRVM_CLI_PATH + "' replay '" + trace + "' --backend cpu --fuser " + fuser + " --json",
          &out);
      CAPTURE(out);
      REQUIRE(rc == 0);
      const nlohmann::json j = nlohmann::json::parse(out);
      CHECK(j.at("verified").get<bool>());
      CHECK(j.at("fuser").get<std::string>() == fuser);
      CHECK(j.at("syncs_checked").get<int64_t>() > 0);
      cost[fuser] = j.at("cost").get<double>();
    }
    // Fusion never costs more than none, and optimal and ilp start from
    // greedy's partition (optimal also from linear's), so they never cost more.
    CHECK(cost["linear"] <= cost["singleton"]);
    CHECK(cost["greedy"] <= cost["singleton"]);
    CHECK(cost["optimal"] <= cost["greedy"]);
    CHECK(cost["optimal"] <= cost["linear"]);
    CHECK(cost["ilp"] <= cost["greedy"]);
  }
}

TEST_CASE("bench programs: every block with work runs as exactly one kernel on cpu and opencl") {
  cputest::TempDir dir;
  for (const char* backend : {"cpu", "opencl"}) {
    for (const Program& p : arrvm::bench::programs()) {
      INFO(std::string(backend) << " " << std::string(p.name));
      const Vm vm =
          Vm::from_runtime(std::make_shared<arrvm::Runtime>(cputest::config(backend, dir.path(), "greedy")));
      p.run(vm, p.size(SizeClass::Tiny));
      vm.flush();
      const arrvm::Profile& prof = vm.runtime().profile();
      CHECK(prof.work_blocks > 0);
      // A row nest (gauss and lu) is one block of the partition, so one
      // kernel too, on both backends.
      CHECK(prof.kernels_launched == prof.work_blocks);
      const uint64_t nests = prof.pass("row-fusion");
      const std::string name(p.name);
      if (name == "gauss" || name == "lu") CHECK(nests > 0);
      MESSAGE(std::string(backend) << " " << name << ": " << prof.kernels_launched << " kernels, "
                                   << prof.blocks << " blocks, " << nests << " row nests");
    }
  }
}
