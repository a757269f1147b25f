// Random programs (tests/random_program.hpp) on the opencl backend, fused by
// every algorithm, equal ref: integers exactly, float64 within rtol 1e-12
// (full reductions are work-group trees, so their summation order differs
// from ref's; everything else is exact, and the test counts how many float
// results were not bit-identical). One backend serves every program and
// fuser, as a long-running process would: PoCL builds are slow and kernels
// repeat. ARRVM_TEST_SCALE=k runs k times as many programs (k = 25: 500
// programs under each of the six fusers).
#include <doctest/doctest.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <string>

#include "backends/backend.hpp"
#include "backends/opencl/opencl_backend.hpp"
#include "fusion/algorithms.hpp"
#include "fusion/cost.hpp"
#include "fusion/graph.hpp"
#include "tests/opencl_test_util.hpp"
#include "tests/random_program.hpp"

using namespace arrvm;  // tests only

namespace {

int test_scale() {
  const char* s = std::getenv("ARRVM_TEST_SCALE");
  const int k = (s == nullptr || *s == '\0') ? 1 : std::atoi(s);
  return k > 0 ? k : 1;
}

// Exact for integers and bools; float64 within rtol 1e-12 (atol 1e-14),
// NaN equal to NaN. *inexact counts float elements that differ at all.
bool close_enough(DType t, const std::vector<uint8_t>& got, const std::vector<uint8_t>& want, int* inexact) {
  if (got == want) return true;
  if (t != DType::Float64 || got.size() != want.size()) return false;
  for (std::size_t i = 0; i < got.size(); i += 8) {
    double a = 0, b = 0;
    std::memcpy(&a, &got[i], 8);
    std::memcpy(&b, &want[i], 8);
    if (std::memcmp(&a, &b, 8) == 0 || (std::isnan(a) && std::isnan(b))) continue;
    ++*inexact;
    if (!(std::abs(a - b) <= 1e-14 + 1e-12 * std::abs(b))) return false;
  }
  return true;
}

}  // namespace

TEST_CASE("opencl: random programs under every fuser equal ref") {
  const int programs = 20 * test_scale();
  const auto cost = fusion::make_cost_model("bohrium");
  fusion::Options options;
  options.time_limit = 0.2;
  const std::unique_ptr<Backend> ocl = make_backend(opencltest::config("opencl"));
  Profile profile;
  ocl->attach_profile(&profile);
  int inexact = 0, fused = 0;
  for (const char* fuser : {"singleton", "linear", "greedy", "unintrusive", "optimal", "ilp"}) {
    const fusion::Algorithm* algo = fusion::find_algorithm(fuser);
    REQUIRE(algo != nullptr);
    const uint64_t launched_before = profile.kernels_launched;
    for (int seed = 0; seed < programs; ++seed) {
      testing::RandomProgramOptions po;
      po.max_instructions = seed % 4 == 0 ? 20 : 10;
      const testing::RandomProgram prog = testing::random_program(static_cast<uint64_t>(seed) + 9000, po);
      INFO("fuser " << fuser << ", seed " << seed + 9000 << ", " << prog.batch.size() << " instructions");
      const std::unique_ptr<Backend> ref = make_backend(opencltest::config("ref"));
      const auto expected = testing::run_program(*ref, prog, singleton_partition(prog.batch.size()));
      const fusion::Graph g(prog.batch);
      const Partition p = algo->fuse(g, *cost, options);
      if (p.blocks.size() < prog.batch.size()) ++fused;
      const auto got = testing::run_program(*ocl, prog, p);
      REQUIRE(got.size() == expected.size());
      std::size_t b = 0;
      for (const testing::BaseSpec& spec : prog.bases) {
        if (spec.freed) continue;
        INFO("base " << spec.id << " (" << dtype_name(spec.dtype) << ")");
        CHECK(close_enough(spec.dtype, got[b], expected[b], &inexact));
        ++b;
      }
    }
    MESSAGE(std::string(fuser) << ": " << profile.kernels_launched - launched_before << " kernels launched");
  }
  const OpenClBackendStats s = opencl_backend_stats(*ocl);
  MESSAGE(programs << " programs x 6 fusers: " << s.kernels_launched << " kernels launched (" << s.sequential_launches
                   << " on one work item), " << s.programs_built << " programs built (" << s.sources_built
                   << " kernel sources), " << s.memory_hits
                   << " memory hits, " << s.disk_hits << " disk hits, " << profile.arrays_contracted
                   << " arrays contracted, " << inexact << " float elements not bit-identical, compile "
                   << profile.compile_s << " s");
  CHECK(s.kernels_launched > 0);
  CHECK(fused > 0);
  CHECK(profile.arrays_contracted > 0);
}
