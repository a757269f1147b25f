// Property tests of the fusion engine on random batches (testing/random_program):
// every algorithm returns a legal, dependency-ordered partition; the costs
// are ordered as the algorithms promise; optimal equals exhaustive search on
// small batches; and running any partition on `ref` gives the results of
// unfused execution. ARRVM_TEST_SCALE=k runs k times as many batches.
#include <doctest/doctest.h>

#include <chrono>
#include <cstdlib>
#include <random>
#include <string>
#include <string_view>

#include "backends/backend.hpp"
#include "fusion/algorithms.hpp"
#include "fusion/assignment_search.hpp"
#include "fusion/cost.hpp"
#include "fusion/graph.hpp"
#include "testing/random_program.hpp"
#include "tests/exhaustive.hpp"

using namespace arrvm;          // tests only
using namespace arrvm::fusion;  // tests only

namespace {

int test_scale() {
  const char* s = std::getenv("ARRVM_TEST_SCALE");
  if (s == nullptr || *s == '\0') return 1;
  const int k = std::atoi(s);
  return k > 0 ? k : 1;
}

Cost cost_of(const Graph& g, const CostModel& m, const Partition& p) {
  return m.cost(g, p);
}

std::vector<std::vector<uint8_t>> run(const testing::RandomProgram& p, const Partition& partition) {
  Config config;
  config.backend = "ref";
  const std::unique_ptr<Backend> backend = make_backend(config);
  return testing::run_program(*backend, p, partition);
}

}  // namespace

TEST_CASE("random batches: legal partitions, cost order, optimal = exhaustive, same results on ref") {
  const int batches = 1000 * test_scale();
  const std::vector<std::string> models = cost_model_names();
  int compared_exhaustive = 0;
  Options options;
  options.time_limit = 10.0;  // never reached on these sizes; the comparison needs the exact optimum
  for (int seed = 0; seed < batches; ++seed) {
    testing::RandomProgramOptions po;
    po.max_instructions = seed % 3 == 0 ? 16 : 9;
    po.complex = true;  // (ref runs them)
    const testing::RandomProgram prog = testing::random_program(static_cast<uint64_t>(seed), po);
    const Graph g(prog.batch);
    const auto cost = make_cost_model(models[seed % models.size()]);
    INFO("seed " << seed << ", " << prog.batch.size() << " instructions, cost model " << cost->name());
    Cost c[5];
    const std::vector<std::vector<uint8_t>> expected = run(prog, singleton_partition(prog.batch.size()));
    int k = 0;
    for (const Algorithm& a : algorithms()) {
      // ilp has its own random test (tests/test_fusion_ilp.cpp).
      if (std::string_view(a.name) == "ilp") continue;
      INFO("algorithm " << a.name);
      const Partition p = a.fuse(g, *cost, options);
      REQUIRE(check_partition(g, p) == "");
      c[k++] = cost_of(g, *cost, p);
      if (p.blocks.size() < prog.batch.size()) CHECK(run(prog, p) == expected);
    }
    const Cost singleton = c[0], linear = c[1], greedy = c[2], unintrusive = c[3], optimal = c[4];
    CHECK(linear <= singleton);
    CHECK(greedy <= singleton);
    CHECK(unintrusive <= singleton);
    CHECK(optimal <= greedy);
    CHECK(optimal <= unintrusive);
    CHECK(optimal <= linear);
    if (prog.batch.size() <= 9) {
      ++compared_exhaustive;
      const Cost exact = testing::exhaustive_optimum(g, *cost).cost;
      CHECK(optimal == exact);
      // optimal runs one of two searches depending on the model; check the
      // other one too, from the unintrusive blocks with no incumbent.
      BlockSet units(g, *cost);
      unintrusive::merge_all(units);
      std::vector<Block> best;
      REQUIRE(assignment_search(units, units.cost() + 1,
                                std::chrono::steady_clock::now() + std::chrono::seconds(10), &best));
      const Partition found = ordered_partition(g, best);
      CHECK(check_partition(g, found) == "");
      CHECK(cost->cost(g, found) == exact);
    }
  }
  MESSAGE(batches << " batches, " << compared_exhaustive << " compared with exhaustive search");
  CHECK(compared_exhaustive >= batches / 2);
}

TEST_CASE("random batches: saving equals the cost difference; block fusibility equals pairwise and rule 9") {
  const int batches = 300 * test_scale();
  const std::vector<std::string> models = cost_model_names();
  for (int seed = 0; seed < batches; ++seed) {
    testing::RandomProgramOptions po;
    po.max_instructions = 14;
    const testing::RandomProgram prog = testing::random_program(static_cast<uint64_t>(seed) + 100000, po);
    const Graph g(prog.batch);
    const uint32_t n = static_cast<uint32_t>(g.size());
    std::mt19937 rng(seed);
    // A random split into blocks (legality does not matter for the cost).
    Partition p;
    const uint32_t nblocks = 1 + rng() % n;
    p.blocks.resize(nblocks);
    for (uint32_t i = 0; i < n; ++i) p.blocks[rng() % nblocks].push_back(i);
    std::erase_if(p.blocks, [](const Block& b) { return b.empty(); });
    if (p.blocks.size() < 2) continue;
    const std::size_t x = rng() % p.blocks.size();
    std::size_t y = rng() % (p.blocks.size() - 1);
    if (y >= x) ++y;
    BlockSummary sx, sy;
    for (uint32_t i : p.blocks[x]) sx.add(g, i);
    for (uint32_t i : p.blocks[y]) sy.add(g, i);
    Partition merged = p;
    merged.blocks[x].insert(merged.blocks[x].end(), p.blocks[y].begin(), p.blocks[y].end());
    merged.blocks.erase(merged.blocks.begin() + static_cast<std::ptrdiff_t>(y));
    for (const std::string& m : models) {
      const auto cost = make_cost_model(m);
      INFO("seed " << seed << ", model " << m);
      CHECK(cost->saving(g, sx, sy) == cost->cost(g, p) - cost->cost(g, merged));
      CHECK(cost->saving(g, sx, sy) >= cost->merge_bonus(g));
    }
    bool pairwise = true;
    for (uint32_t i : p.blocks[x]) {
      for (uint32_t j : p.blocks[y]) pairwise = pairwise && g.fusible(i, j);
    }
    // Cross-pair fusibility is only the block rule when each block is fusible inside.
    auto inside = [&](const Block& b) {
      for (std::size_t i = 0; i < b.size(); ++i) {
        for (std::size_t j = i + 1; j < b.size(); ++j) {
          if (!g.fusible(b[i], b[j])) return false;
        }
      }
      return true;
    };
    // Rule 9 (the transducer rule) is a block condition, not a pairwise one.
    if (inside(p.blocks[x]) && inside(p.blocks[y]) && transducers_closed(sx, sx) &&
        transducers_closed(sy, sy)) {
      INFO("seed " << seed);
      CHECK(blocks_fusible(g, sx, sy) == (pairwise && transducers_closed(sx, sy)));
    }
  }
}

// Rule 8 (FusionRules::sweeps_alone, the mpi backend's): every fuser keeps
// each generator, reduction, scan, gather and scatter in a block with no
// other non-control instruction, checked on the blocks themselves; the
// optimum under the rule equals exhaustive search under it.
TEST_CASE("random batches: FusionRules::sweeps_alone holds for every fuser") {
  const int batches = 300 * test_scale();
  const std::vector<std::string> models = cost_model_names();
  Options options;
  options.time_limit = 10.0;
  int special_batches = 0;
  for (int seed = 0; seed < batches; ++seed) {
    testing::RandomProgramOptions po;
    po.max_instructions = 9;
    const testing::RandomProgram prog = testing::random_program(static_cast<uint64_t>(5000 + seed), po);
    const Graph g(prog.batch, FusionRules{.sweeps_alone = true});
    const auto cost = make_cost_model(models[seed % models.size()]);
    INFO("seed " << 5000 + seed << ", cost model " << cost->name());
    bool any_special = false;
    for (const Instruction& in : prog.batch) {
      const OpKind k = opcode_kind(in.op);
      any_special = any_special || (k != OpKind::Elementwise && k != OpKind::Free && k != OpKind::Sync);
    }
    special_batches += any_special;
    Cost optimal = -1;
    for (const Algorithm& a : algorithms()) {
      INFO("algorithm " << a.name);
      const Partition p = a.fuse(g, *cost, options);
      REQUIRE(check_partition(g, p) == "");
      for (const Block& b : p.blocks) {
        int work = 0, special = 0;
        for (uint32_t i : b) {
          const OpKind k = opcode_kind(prog.batch[i].op);
          if (k == OpKind::Free || k == OpKind::Sync) continue;
          ++work;
          special += k != OpKind::Elementwise;
        }
        CHECK((special == 0 || work == 1));
      }
      if (std::string_view(a.name) == "optimal") optimal = cost->cost(g, p);
    }
    CHECK(optimal == testing::exhaustive_optimum(g, *cost).cost);
  }
  MESSAGE(batches << " batches, " << special_batches << " with a sweep, gather, scatter or generator");
  CHECK(special_batches >= batches / 2);
}

// check_partition (which checks blocks by summaries, not all pairs) refuses
// every block that holds a fuse-preventing pair and names the pair.
TEST_CASE("random batches: check_partition names a fuse-preventing pair inside a block") {
  int refused = 0;
  for (int seed = 0; seed < 200; ++seed) {
    const testing::RandomProgram prog = testing::random_program(static_cast<uint64_t>(9000 + seed));
    const Graph g(prog.batch);
    for (const auto& [i, j] : g.fuse_preventing_edges()) {
      Partition p;
      for (uint32_t k = 0; k < g.size(); ++k) {
        if (k == j) continue;
        p.blocks.push_back(k == i ? Block{i, j} : Block{k});
      }
      const std::string problem = check_partition(g, p);
      INFO("seed " << 9000 + seed << ", pair " << i << ", " << j);
      CHECK(problem.find("holds the fuse-preventing pair") != std::string::npos);
      CHECK(problem.find(std::to_string(j)) != std::string::npos);
      ++refused;
    }
  }
  MESSAGE(refused << " illegal blocks refused");
  CHECK(refused > 1000);
}
