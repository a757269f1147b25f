// How many threads a cpu kernel runs on (backends/cpu/threads.hpp): the
// team follows OMP_NUM_THREADS or the process's cores, a launch gets the
// team less the cores other processes keep busy (at least one), libgomp's
// spin is bounded unless the user chose a wait policy; and the kernels give
// ref's values whatever team runs them (a team larger than the cores too).
#include <dlfcn.h>
#include <doctest/doctest.h>
#include <sched.h>

#include <algorithm>
#include <arrvm/arrvm.hpp>
#include <cmath>
#include <cstdlib>
#include <string>
#include <vector>

#include "backends/cpu/threads.hpp"
#include "engine/runtime.hpp"
#include "tests/cpu_test_util.hpp"

namespace {

using cputest::EnvVar;

int affinity_count() {
  cpu_set_t set;
  CPU_ZERO(&set);
  REQUIRE(sched_getaffinity(0, sizeof(set), &set) == 0);
  return CPU_COUNT(&set);
}

}  // namespace

TEST_CASE("the team is the process's cores, or OMP_NUM_THREADS") {
  const int cores = arrvm::usable_cores();
  CHECK(cores >= 1);
  CHECK(cores <= affinity_count());
  {
    EnvVar unset("OMP_NUM_THREADS", nullptr);
    CHECK(arrvm::Threads().team() == cores);
  }
  {
    EnvVar three("OMP_NUM_THREADS", "3");
    CHECK(arrvm::Threads().team() == 3);
  }
  {
    EnvVar list("OMP_NUM_THREADS", "5,2");  // OpenMP's nested list: the first level's
    CHECK(arrvm::Threads().team() == 5);
  }
  {
    EnvVar bad("OMP_NUM_THREADS", "zero");
    CHECK(arrvm::Threads().team() == cores);
  }
}

TEST_CASE("a launch gets the team less the cores others keep busy, at least one") {
  EnvVar four("OMP_NUM_THREADS", "4");
  arrvm::Threads t;
  REQUIRE(t.team() == 4);
  const std::vector<std::pair<int, int>> cases = {{0, 4}, {1, 3}, {3, 1}, {4, 1}, {9, 1}};
  for (const auto& [others, threads] : cases) {
    t.assume_others(others);
    CHECK(t.for_launch() == threads);
  }
  EnvVar one("OMP_NUM_THREADS", "1");
  arrvm::Threads single;
  single.assume_others(0);
  CHECK(single.for_launch() == 1);
}

TEST_CASE("a kernel's team is measured against one thread: the faster wins, a tie goes to one thread") {
  using arrvm::TeamChoice;
  // Runs one probe: `team_s` and `one_s` seconds a launch; returns the
  // threads the launches after it get.
  auto probe = [](TeamChoice& c, double team_s, double one_s) {
    std::vector<int> seen;
    while (c.decided() == 0) {
      bool timed = false;
      const int threads = c.pick(4, &timed);
      REQUIRE(timed);
      seen.push_back(threads);
      c.ran(threads, threads > 1 ? team_s : one_s);
    }
    // kProbe on the team, then kProbe on one thread
    REQUIRE(seen.size() == 2 * TeamChoice::kProbe);
    for (std::size_t i = 0; i < seen.size(); ++i) CHECK(seen[i] == (i < TeamChoice::kProbe ? 4 : 1));
    bool timed = true;
    const int after = c.pick(4, &timed);
    CHECK(!timed);  // decided launches read no clock
    return after;
  };
  TeamChoice slow_team, fast_team, tie;
  CHECK(probe(slow_team, 5.7e-6, 3.4e-6) == 1);  // rule 30's step
  CHECK(probe(fast_team, 5.8e-6, 6.7e-6) == 4);  // clearly faster on the team
  CHECK(probe(tie, 1.0e-5, 1.05e-5) == 1);       // within kMargin: one thread
  // The fastest launch of each side counts: a kernel's first launch meets
  // cold caches, and a run's first the caches the other side left (the
  // 200x200 loop's one-thread launches: 15-27 us after a team launch, 5 us
  // in a run).
  TeamChoice cold;
  for (int i = 0; i < 2 * TeamChoice::kProbe; ++i) {
    bool timed = false;
    const int threads = cold.pick(2, &timed);
    cold.ran(threads, i == 0 ? 1.0 : threads > 1 ? 1e-6 : 2e-6);
  }
  bool timed = false;
  CHECK(cold.pick(2, &timed) == 2);
  TeamChoice moved;
  for (int i = 0; i < 2 * TeamChoice::kProbe; ++i) {
    bool timed_probe = false;
    const int threads = moved.pick(2, &timed_probe);
    moved.ran(threads, threads > 1 ? 4.6e-6 : i == TeamChoice::kProbe ? 2e-5 : 4.0e-6);
  }
  CHECK(moved.pick(2, &timed) == 1);
  // After kRenew launches the choice is measured again (load and sizes change).
  for (int i = 1; i < TeamChoice::kRenew; ++i) CHECK(slow_team.pick(4, &timed) == 1);
  CHECK(slow_team.decided() == 0);
  CHECK(probe(slow_team, 1e-6, 3e-6) == 4);
}

TEST_CASE("/proc/loadavg's runnable count includes this thread") {
  // (Linux is the platform: a missing /proc/loadavg would make every launch
  // assume an idle machine, which this test would catch.)
  CHECK(arrvm::runnable_tasks() >= 1);
}

TEST_CASE("libgomp's spin is bounded unless the user chose a wait policy") {
  EnvVar no_policy("OMP_WAIT_POLICY", nullptr);
  EnvVar no_spin("GOMP_SPINCOUNT", nullptr);
  void* gomp = ::dlopen("libgomp.so.1", RTLD_LAZY | RTLD_NOLOAD);
  arrvm::Threads t;
  const char* spin = std::getenv("GOMP_SPINCOUNT");
  if (gomp == nullptr) {  // (ctest runs this file alone: nothing loaded libgomp yet)
    REQUIRE(spin != nullptr);
    CHECK(std::string(spin) == std::to_string(arrvm::Threads::kSpinCount));
  } else {  // libgomp read its environment already: setting it now would only mislead
    ::dlclose(gomp);
    CHECK(spin == nullptr);
  }
  {
    EnvVar active("OMP_WAIT_POLICY", "active");
    EnvVar unset("GOMP_SPINCOUNT", nullptr);
    arrvm::Threads u;
    CHECK(std::getenv("GOMP_SPINCOUNT") == nullptr);  // the user's policy stands
  }
}

TEST_CASE("kernels give ref's values on any team, larger than the cores too") {
  cputest::TempDir dir;
  std::vector<std::vector<double>> results;
  for (const char* team : {"1", "2", "3", "7"}) {
    EnvVar t("OMP_NUM_THREADS", team);
    for (const char* backend : {"ref", "cpu"}) {
      arrvm::Vm vm({{"backend", backend}, {"cache_dir", dir.path()}});
      using arrvm::Array;
      // Parallel kernels: elementwise, a reduction of rows, a full sum and a scan.
      const Array x = Array::arange(0.0, 300000.0, 1.0, arrvm::DType::Float64, vm) * 0.5;
      const Array m = (x * x + 1.0).reshape({600, 500});
      std::vector<double> v = m.sum(1).to_vector<double>();
      v.push_back(x.sum().to_vector<double>()[0]);
      const std::vector<double> c = (x * 1e-3).cumsum().to_vector<double>();
      v.insert(v.end(), c.begin(), c.end());
      results.push_back(v);
      // The profile's team launches: none on a team of one, never more than all.
      const arrvm::Profile& p = vm.runtime().profile();
      CHECK(p.kernels_on_team <= p.kernels_launched);
      if (std::string(team) == "1" || std::string(backend) == "ref") CHECK(p.kernels_on_team == 0);
    }
  }
  double worst = 0;
  for (std::size_t i = 1; i < results.size(); ++i) {
    REQUIRE(results[i].size() == results[0].size());
    for (std::size_t k = 0; k < results[0].size(); ++k) {
      const double d = std::fabs(results[i][k] - results[0][k]) / std::max(1.0, std::fabs(results[0][k]));
      worst = std::max(worst, d);
    }
  }
  // Sums may associate differently per team: within a few ulp of ref.
  CHECK(worst < 1e-12);
}
