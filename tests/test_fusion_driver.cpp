// The fusion stage as the VM uses it: fuse_batch under a Config, the fuser
// and cost-model names, partition_cost, and optimal's time limit.
#include <doctest/doctest.h>

#include <chrono>
#include <string>

#include "engine/fusion_stage.hpp"
#include "engine/runtime.hpp"
#include "fusion/algorithms.hpp"
#include "fusion/graph.hpp"
#include "testing/random_program.hpp"
#include "tests/fusion_test_util.hpp"

using namespace arrvm;  // tests only

namespace {

std::string error_of(auto&& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("fuser and cost model names") {
  for (const char* name : {"singleton", "linear", "greedy", "unintrusive", "optimal", "ilp"}) {
    CHECK_NOTHROW(check_fuser_name(name));
  }
  CHECK(error_of([] { check_fuser_name("greedyy"); }).find("unknown fuser 'greedyy'") != std::string::npos);
  for (const char* name : {"bohrium", "max-contract", "max-locality", "robinson"})
    CHECK_NOTHROW(check_cost_name(name));
  CHECK(error_of([] { check_cost_name("bytes"); }).find("unknown cost model 'bytes'") != std::string::npos);
  Config config;
  config.cost = "bytes";
  const std::vector<Instruction> batch = fusion_test::fig3_batch();
  CHECK(error_of([&] { fuse_batch(batch, config); }).find("unknown cost model") != std::string::npos);
  config.cost = "bohrium";
  config.fuser = "ilp";
  CHECK(partition_cost(batch, fuse_batch(batch, config), "bohrium") == 34);
}

TEST_CASE("fuse_batch runs the configured fuser; partition_cost prices it") {
  const std::vector<Instruction> batch = fusion_test::fig3_batch();
  Config config;
  config.fuser = "linear";
  const Partition linear = fuse_batch(batch, config);
  CHECK(fusion_test::to_string(linear) == "{1,2}{3,4}{5,6,7,8,9}{10,11,12,13,14,15,16,17}");
  CHECK(partition_cost(batch, linear, "bohrium") == 58);
  CHECK(partition_cost(batch, singleton_partition(batch.size()), "bohrium") == 94);
  config.fuser = "optimal";
  CHECK(partition_cost(batch, fuse_batch(batch, config), "bohrium") == 34);
  CHECK_THROWS_AS(partition_cost(batch, linear, "nope"), Error);
}

TEST_CASE("every fuser computes the same results through a Runtime") {
  // y = 2 * range(6) + 1 (float64); t = y * y; s = sum(t); free y, t.
  // sum over i < 6 of (2i + 1)^2 = 1 + 9 + 25 + 49 + 81 + 121 = 286.
  for (const char* fuser : {"singleton", "linear", "greedy", "unintrusive", "optimal", "ilp"}) {
    Config config;
    config.backend = "ref";
    config.fuser = fuser;
    Runtime rt(config);
    const DType f = DType::Float64;
    const BaseId x = rt.new_base(f, 6), y = rt.new_base(f, 6), t = rt.new_base(f, 6), s = rt.new_base(f, 1);
    const View vx = fusion_test::view1(x, 0, 6), vy = fusion_test::view1(y, 0, 6),
               vt = fusion_test::view1(t, 0, 6);
    rt.issue(fusion_test::make(Opcode::Range, vx));
    rt.issue(
        fusion_test::make(Opcode::Multiply, vy, {fusion_test::v(vx), Operand::of(Scalar::of_double(f, 2))}));
    rt.issue(fusion_test::make(Opcode::Add, vy, {fusion_test::v(vy), Operand::of(Scalar::of_double(f, 1))}));
    rt.issue(fusion_test::make(Opcode::Multiply, vt, {fusion_test::v(vy), fusion_test::v(vy)}));
    View vs;
    vs.base = s;
    rt.issue(fusion_test::make(Opcode::AddReduce, vs, {fusion_test::v(vt)}));
    rt.free_base(y);
    rt.free_base(t);
    double out = 0;
    rt.read(s, &out, sizeof out);
    INFO("fuser " << fuser);
    CHECK(out == 286.0);
  }
}

TEST_CASE("optimal with a 0.01 s limit on 300 instructions: legal, no worse than greedy, within 0.1 s") {
  testing::RandomProgramOptions po;
  po.min_instructions = po.max_instructions = 300;
  const testing::RandomProgram prog = testing::random_program(7, po);
  REQUIRE(prog.batch.size() >= 300);
  const fusion::Graph g(prog.batch);
  for (const std::string& model : fusion::cost_model_names()) {
    const auto cost = fusion::make_cost_model(model);
    fusion::Options options;
    options.time_limit = 0.01;
    const auto t0 = std::chrono::steady_clock::now();
    const Partition p = fusion::optimal::fuse(g, *cost, options);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const Partition greedy = fusion::greedy::fuse(g, *cost, options);
    INFO("cost model " << model << ": " << seconds << " s");
    CHECK(seconds < 0.1);
    CHECK(fusion::check_partition(g, p) == "");
    CHECK(cost->cost(g, p) <= cost->cost(g, greedy));
    MESSAGE(model << ": optimal(0.01 s) took " << seconds << " s, cost " << cost->cost(g, p) << " vs greedy "
                  << cost->cost(g, greedy) << ", singleton " << cost->cost(g, singleton_partition(g.size())));
  }
}

TEST_CASE("degenerate batches: empty, only control instructions") {
  const std::vector<Instruction> empty;
  const fusion::Graph g0(empty);
  fusion_test::Batch b;
  const BaseId x = b.base(DType::Int32, 4);
  b.add(fusion_test::control(Opcode::Sync, x));
  b.add(fusion_test::control(Opcode::Free, x));
  const fusion::Graph g2(b.instrs);
  const auto cost = fusion::make_cost_model("bohrium");
  for (const fusion::Algorithm& a : fusion::algorithms()) {
    INFO(a.name);
    CHECK(a.fuse(g0, *cost, {}).blocks.empty());
    const Partition p = a.fuse(g2, *cost, {});
    CHECK(fusion::check_partition(g2, p) == "");
    CHECK(cost->cost(g2, p) == 0);
  }
}
