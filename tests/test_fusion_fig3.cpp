// Seed 001 Fig. 3: the 17-instruction example, under every algorithm.
// Expected values are computed by hand in fusion/README.md ("Fig. 3").
#include <doctest/doctest.h>

#include <algorithm>

#include "fusion/algorithms.hpp"
#include "fusion/cost.hpp"
#include "fusion/graph.hpp"
#include "tests/exhaustive.hpp"
#include "tests/fusion_test_util.hpp"

using namespace arrvm;          // tests only
using namespace arrvm::fusion;  // tests only
using fusion_test::to_string;

namespace {

std::vector<Instruction> fig3() {
  return fusion_test::load_trace_batch(ARRVM_TEST_DATA_DIR "/fig3.trace");
}

}  // namespace

TEST_CASE("fig3.trace holds the program of Fig. 3") {
  const std::vector<Instruction> from_file = fig3();
  const std::vector<Instruction> by_hand = fusion_test::fig3_batch();
  REQUIRE(from_file.size() == 17);
  REQUIRE(by_hand.size() == 17);
  for (std::size_t i = 0; i < 17; ++i) {
    INFO("instruction " << i << ": " << arrvm::to_string(from_file[i]));
    CHECK(fusion_test::same_instruction(from_file[i], by_hand[i]));
  }
}

TEST_CASE("Fig. 3 WSP graph: dependencies, fuse-preventing edges, new arrays") {
  const std::vector<Instruction> batch = fig3();
  const Graph g(batch);
  // 0-based; derived by hand in fusion/README.md.
  const std::vector<std::vector<uint32_t>> preds = {{},
                                                    {},
                                                    {},
                                                    {},
                                                    {0, 2},
                                                    {2, 4},
                                                    {1, 3},
                                                    {3, 6},
                                                    {5, 7},
                                                    {2, 3, 4, 5, 8},
                                                    {2, 3, 6, 7, 8, 9},
                                                    {5, 8},
                                                    {7, 8},
                                                    {3, 6, 7, 10},
                                                    {8, 9, 10},
                                                    {2, 9},
                                                    {2, 4, 5, 9, 10, 15}};
  for (uint32_t i = 0; i < 17; ++i) {
    INFO("instruction " << i);
    CHECK(g.predecessors(i) == preds[i]);
  }
  std::vector<std::pair<uint32_t, uint32_t>> ef;
  for (uint32_t s : {2u, 3u}) {
    for (uint32_t t : {0u, 1u, 4u, 5u, 6u, 7u, 8u, 9u, 10u}) ef.emplace_back(std::min(s, t), std::max(s, t));
  }
  ef.insert(ef.end(), {{4, 9}, {5, 9}, {6, 10}, {7, 10}});
  std::sort(ef.begin(), ef.end());
  CHECK(g.fuse_preventing_edges() == ef);
  std::vector<uint32_t> news;
  for (uint32_t i = 0; i < 17; ++i) {
    if (g.access(i).new_base != kNone) news.push_back(i);
  }
  CHECK(news == std::vector<uint32_t>{0, 1, 2, 3, 8});  // A, B, D, E by COPY x, 0; T by MUL
  CHECK(g.new_base_count() == 5);
}

TEST_CASE("Fig. 3 under bohrium: singleton 94, linear 58, optimal = exhaustive") {
  const std::vector<Instruction> batch = fig3();
  const Graph g(batch);
  const auto cost = make_cost_model("bohrium");
  Options options;
  options.time_limit = 10.0;
  std::vector<std::pair<std::string, Partition>> results;
  for (const Algorithm& a : algorithms()) {
    const Partition p = a.fuse(g, *cost, options);
    INFO(a.name << ": " << to_string(p));
    CHECK(check_partition(g, p) == "");
    MESSAGE(std::string(a.name) << ": cost " << cost->cost(g, p) << ", " << p.blocks.size() << " blocks "
                                << to_string(p));
    results.emplace_back(a.name, p);
  }
  auto cost_of = [&](const char* name) {
    for (const auto& [n, p] : results) {
      if (n == name) return cost->cost(g, p);
    }
    FAIL("no algorithm " << name);
    return Cost{0};
  };
  CHECK(cost_of("singleton") == 94);
  CHECK(cost_of("linear") == 58);
  // Hand-computed in fusion/README.md.
  CHECK(cost_of("unintrusive") == 78);
  CHECK(cost_of("greedy") == 38);
  CHECK(cost_of("optimal") == 34);
  auto partition_of = [&](const char* name) {
    for (const auto& [n, p] : results) {
      if (n == name) return to_string(p);
    }
    return std::string();
  };
  // 1-based (the paper's line numbers); blocks in execution order.
  CHECK(partition_of("linear") == "{1,2}{3,4}{5,6,7,8,9}{10,11,12,13,14,15,16,17}");
  CHECK(partition_of("greedy") == "{3}{4}{1,2,5,6,7,8,9,12,13}{10,11,14}{15}{16}{17}");
  CHECK(partition_of("unintrusive") == "{3}{1,5}{4}{2,7}{6}{8}{9}{10}{11}{12}{13}{14}{15}{16}{17}");

  const testing::ExhaustiveResult best = testing::exhaustive_optimum(g, *cost);
  MESSAGE("exhaustive: cost " << best.cost << " over " << best.legal_partitions << " legal partitions, e.g. "
                              << to_string(best.partition));
  CHECK(cost_of("optimal") == best.cost);
}

TEST_CASE("Fig. 3 under the other cost models: optimal = exhaustive") {
  const std::vector<Instruction> batch = fig3();
  const Graph g(batch);
  Options options;
  options.time_limit = 10.0;
  for (const std::string& name : cost_model_names()) {
    if (name == "bohrium") continue;  // the test above
    const auto cost = make_cost_model(name);
    std::string line = name + ":";
    for (const Algorithm& a : algorithms()) {
      const Partition p = a.fuse(g, *cost, options);
      CHECK(check_partition(g, p) == "");
      line += std::string(" ") + a.name + "=" + std::to_string(cost->cost(g, p));
    }
    const testing::ExhaustiveResult best = testing::exhaustive_optimum(g, *cost);
    MESSAGE(line << " exhaustive=" << best.cost);
    CHECK(cost->cost(g, optimal::fuse(g, *cost, options)) == best.cost);
  }
}
