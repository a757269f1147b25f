// Random programs (tests/random_program.hpp) on the cpu backend, fused by
// greedy and by singleton, give exactly the bytes of ref. Reductions, scans
// and gathers run through the same scalar code as ref, and elementwise
// floats are bit-exact, so the comparison is exact.
// ARRVM_TEST_SCALE=k runs k times as many programs.
#include <doctest/doctest.h>

#include <cstdlib>
#include <string>

#include "backends/backend.hpp"
#include "backends/cpu/cpu_backend.hpp"
#include "fusion/algorithms.hpp"
#include "fusion/cost.hpp"
#include "fusion/graph.hpp"
#include "tests/cpu_test_util.hpp"
#include "tests/random_program.hpp"

using namespace arrvm;  // tests only

namespace {

int test_scale() {
  const char* s = std::getenv("ARRVM_TEST_SCALE");
  const int k = (s == nullptr || *s == '\0') ? 1 : std::atoi(s);
  return k > 0 ? k : 1;
}

}  // namespace

TEST_CASE("cpu: random programs under greedy and singleton equal ref") {
  cputest::TempDir dir;
  const int programs = 200 * test_scale();
  const auto cost = fusion::make_cost_model("bohrium");
  fusion::Options options;
  uint64_t contracted = 0, launched = 0, fused_blocks = 0;
  for (const char* fuser : {"greedy", "singleton"}) {
    // One backend per fuser, shared by all programs, as a long-running
    // process would: kernels compiled for one program serve the next.
    const std::unique_ptr<Backend> cpu = make_backend(cputest::config("cpu", dir.path(), fuser));
    const fusion::Algorithm* algo = fusion::find_algorithm(fuser);
    REQUIRE(algo != nullptr);
    for (int seed = 0; seed < programs; ++seed) {
      testing::RandomProgramOptions po;
      po.max_instructions = seed % 4 == 0 ? 20 : 10;
      const testing::RandomProgram prog = testing::random_program(static_cast<uint64_t>(seed) + 7000, po);
      INFO("fuser " << fuser << ", seed " << seed + 7000 << ", " << prog.batch.size() << " instructions");
      const std::unique_ptr<Backend> ref = make_backend(cputest::config("ref", dir.path()));
      const auto expected = testing::run_program(*ref, prog, singleton_partition(prog.batch.size()));
      const fusion::Graph g(prog.batch);
      const Partition p = algo->fuse(g, *cost, options);
      if (p.blocks.size() < prog.batch.size()) ++fused_blocks;
      const auto got = testing::run_program(*cpu, prog, p);
      REQUIRE(got.size() == expected.size());
      for (std::size_t b = 0; b < got.size(); ++b) {
        INFO("base " << b);
        CHECK(got[b] == expected[b]);
      }
    }
    const CpuBackendStats s = cpu_backend_stats(*cpu);
    contracted += s.contracted;
    launched += s.kernels_launched;
    MESSAGE(std::string(fuser) << ": " << s.kernels_launched << " kernels launched, " << s.cache.compiled << " compiled, "
                  << s.cache.memory_hits << " memory hits, " << s.cache.disk_hits << " disk hits, " << s.contracted
                  << " arrays contracted, " << s.interpreted << " instructions interpreted");
  }
  CHECK(launched > 0);
  CHECK(fused_blocks > 0);
  CHECK(contracted > 0);  // greedy fuses temporaries with their free: some become scalars
}
