// ilp under machine (a launch per block plus bohrium's traffic): the search
// for a cheaper partition (fusion/ilp_cost_search.hpp). Over single
// instructions of random batches (some with a compress: rule 9), at three
// launch costs (launches dominate, both matter, traffic dominates), against
// exhaustive search: given the
// optimum plus one as its bound it returns a legal partition that costs the
// optimum; given the optimum it proves that none is cheaper. Then the ilp
// fuser under machine on random batches of 25 instructions, where the launch
// stages and the search prove what CBC alone did not: every run proven, the
// cost equal to `optimal`'s search where that finishes.
// ARRVM_TEST_SCALE=k runs k times as many random batches.
#include <doctest/doctest.h>

#include <chrono>
#include <cstdlib>
#include <vector>

#include "fusion/algorithms.hpp"
#include "fusion/block.hpp"
#include "fusion/cost.hpp"
#include "fusion/cost_machine.hpp"
#include "fusion/graph.hpp"
#include "fusion/ilp.hpp"
#include "fusion/ilp_cost_search.hpp"
#include "testing/random_program.hpp"
#include "tests/exhaustive.hpp"

using namespace arrvm;          // tests only
using namespace arrvm::fusion;  // tests only

namespace {

int test_scale() {
  const char* s = std::getenv("ARRVM_TEST_SCALE");
  const int k = s != nullptr ? std::atoi(s) : 1;
  return k > 0 ? k : 1;
}

const auto kNoDeadline = std::chrono::steady_clock::now() + std::chrono::hours(1);

// The search's problem over the single instructions of g.
struct InstructionProblem {
  std::vector<std::pair<uint32_t, uint32_t>> edges;
  ilp::BitMatrix may;
  ilp::CheaperProblem p;
  InstructionProblem(const Graph& g, const CostModel& cost) : may(g.size()) {
    const uint32_t n = static_cast<uint32_t>(g.size());
    for (uint32_t a = 0; a < n; ++a) {
      for (uint32_t s : g.successors(a)) edges.emplace_back(a, s);
      for (uint32_t b = 0; b < n; ++b)
        if (a == b || g.fusible(a, b)) may.set(a, b);
      p.summary.push_back(BlockSummary::of(g, a));
      p.shape.push_back(p.summary.back().shape);
    }
    p.units = n;
    p.edges = &edges;
    p.may = &may;
    p.graph = &g;
    p.cost = &cost;
    p.bonus = cost.merge_bonus(g);
  }
};

// Restores the process-wide machine costs on scope exit.
struct MachineCostsScope {
  MachineCosts saved = machine_costs();
  explicit MachineCostsScope(double launch_s) {
    MachineCosts m = saved;
    m.bandwidth = 10e9;
    m.launch_s = launch_s;
    set_machine_costs(m);
  }
  ~MachineCostsScope() { set_machine_costs(saved); }
};

}  // namespace

TEST_CASE(
    "cheaper_partition: the optimum of random batches under machine, and the proof that none is cheaper") {
  const int batches = 300 * test_scale();
  int searched = 0, with_launch = 0, without_launch = 0, with_filters = 0;
  for (const double launch_s : {2e-6, 2e-9, 1e-10}) {
    MachineCostsScope scope(launch_s);
    const auto cost = make_cost_model("machine");
    uint64_t filter_seed = 400000;
    for (int k = 0; k < batches; ++k) {
      testing::RandomProgramOptions po;
      po.max_instructions = 9;
      // Every third batch is the next one from 400000 that holds a compress.
      uint64_t seed = 300000 + static_cast<uint64_t>(k);
      if (k % 3 == 0) {
        while (!Graph(testing::random_program(filter_seed, po).batch).has_filters()) ++filter_seed;
        seed = filter_seed++;
      }
      const testing::RandomProgram prog = testing::random_program(seed, po);
      const Graph g(prog.batch);
      with_filters += g.has_filters();
      InstructionProblem h(g, *cost);
      const Cost optimum = testing::exhaustive_optimum(g, *cost).cost - cost->constant(g);
      INFO("seed " << seed << ", " << g.size() << " instructions, launch " << launch_s << " s, bonus "
                   << h.p.bonus << ", optimum " << optimum);
      (h.p.bonus > 0 ? with_launch : without_launch) += 1;

      h.p.upper = optimum + 1;
      const ilp::CheaperResult found = ilp::cheaper_partition(h.p, kNoDeadline, 10'000'000);
      REQUIRE(found.proven);
      REQUIRE(!found.blocks.empty());
      Partition part;
      for (const auto& b : found.blocks) part.blocks.emplace_back(b.begin(), b.end());
      CHECK(check_partition(g, part) == "");
      CHECK(cost->cost(g, part) - cost->constant(g) == optimum);

      h.p.upper = optimum;
      const ilp::CheaperResult none = ilp::cheaper_partition(h.p, kNoDeadline, 10'000'000);
      CHECK(none.proven);
      CHECK(none.blocks.empty());
      ++searched;
    }
  }
  MESSAGE(searched << " searches, " << with_launch << " with a launch term, " << without_launch
                   << " without, " << with_filters << " of batches with a compress");
  CHECK(with_filters >= searched / 3);  // rule 9 is exercised
  CHECK(with_launch > batches);         // both regimes of machine's launch_in are covered
  CHECK(without_launch > batches / 10);
}

TEST_CASE("ilp under machine: random batches of 25 instructions proven, at optimal's cost") {
  const int batches = 20 * test_scale();
  const auto cost = make_cost_model("machine");
  Options options;
  options.time_limit = 20.0;
  int proven = 0, compared = 0, cheaper = 0;
  for (int seed = 0; seed < batches; ++seed) {
    testing::RandomProgramOptions po;
    po.filters = seed % 2 == 0;
    po.min_instructions = po.max_instructions = 25;
    const testing::RandomProgram prog = testing::random_program(static_cast<uint64_t>(1000 + seed), po);
    const Graph g(prog.batch);
    INFO("seed " << 1000 + seed);
    ilp::Report report;
    const Partition p = ilp::fuse_report(g, *cost, options, &report);
    REQUIRE(check_partition(g, p) == "");
    CHECK(report.inexact == 0);
    proven += report.optimal();
    const Cost c = cost->cost(g, p);
    const Cost greedy_cost = cost->cost(g, greedy::fuse(g, *cost, options));
    CHECK(c <= greedy_cost);
    cheaper += c < greedy_cost;
    Options quick;
    quick.time_limit = 2.0;
    const auto t0 = std::chrono::steady_clock::now();
    const Cost o = cost->cost(g, optimal::fuse(g, *cost, quick));
    if (std::chrono::steady_clock::now() - t0 < std::chrono::milliseconds(1500)) {  // optimal finished
      CHECK(c == o);
      ++compared;
    } else {
      CHECK(c <= o);
    }
  }
  MESSAGE(proven << "/" << batches << " proven, " << compared << " compared with optimal, " << cheaper
                 << " cheaper than greedy");
  CHECK(proven == batches);
  CHECK(cheaper > 0);
}
