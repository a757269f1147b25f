// ARRVM_COST=machine (fusion/cost_machine.hpp, engine/calibrate.hpp): the
// calibration measures plausible numbers, caches them per host, re-measures
// on a corrupt or foreign cache file; the model is bohrium's traffic plus
// one launch per block, so it fuses unrelated work that bohrium leaves
// apart. (Saving = cost difference, optimal = exhaustive and ilp = optimal
// under it run with every other model in test_fusion_random/test_fusion_ilp.)
#include <doctest/doctest.h>

#include <fstream>
#include <sstream>
#include <string>

#include "engine/calibrate.hpp"
#include "fusion/algorithms.hpp"
#include "fusion/cost.hpp"
#include "fusion/cost_machine.hpp"
#include "fusion/graph.hpp"
#include "tests/cpu_test_util.hpp"
#include "tests/fusion_test_util.hpp"

namespace {

using namespace fusion_test;

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace

TEST_CASE("machine cost model: calibration measures, caches per host, and re-measures a bad cache file") {
  cputest::TempDir dir;
  const Config config = cputest::config("cpu", dir.path());
  // (The process keeps the first calibration; this test reads the file.)
  const fusion::MachineCosts m = calibrated_machine_costs(config);
  CHECK(m.bandwidth > 1e8);   // more than 0.1 GB/s ...
  CHECK(m.bandwidth < 1e13);  // ... and less than 10 TB/s
  CHECK(m.launch_s > 1e-9);
  CHECK(m.launch_s < 1e-2);
  for (double e : m.element_s) CHECK(e >= 0);
  MESSAGE("measured: " << m.bandwidth / 1e9 << " GB/s, " << m.launch_s * 1e6 << " us per launch, per element "
                       << m.element_s[0] * 1e9 << " / " << m.element_s[1] * 1e9 << " / "
                       << m.element_s[2] * 1e9 << " ns (cheap / transcendental / random); " << m.source);
  const std::string path = dir.path() + "/machine-costs.json";
  const std::string text = slurp(path);
  CHECK(text.find("\"bandwidth\"") != std::string::npos);
  CHECK(text.find("\"host\"") != std::string::npos);
  // The file serves the next calibration ...
  const fusion::MachineCosts cached = load_or_measure_machine_costs(config);
  CHECK(cached.source == "cache");
  CHECK(cached.bandwidth == doctest::Approx(m.bandwidth));
  CHECK(cached.launch_s == doctest::Approx(m.launch_s));
  // ... a corrupt one is measured again and rewritten ...
  std::ofstream(path) << "{ not json";
  CHECK(load_or_measure_machine_costs(config).source == "measured");
  CHECK(load_or_measure_machine_costs(config).source == "cache");
  // ... and so is another host's.
  std::string foreign = slurp(path);
  const std::size_t at = foreign.find("\"host\": \"");
  REQUIRE(at != std::string::npos);
  foreign.insert(at + 9, "another-machine|");
  std::ofstream(path) << foreign;
  CHECK(load_or_measure_machine_costs(config).source == "measured");
  CHECK(slurp(path).find("another-machine") == std::string::npos);
}

TEST_CASE("machine cost model: bohrium's traffic plus one launch per block") {
  fusion::MachineCosts m;
  m.bandwidth = 1e10;
  m.launch_s = 1e-6;  // 10000 bytes-equivalent per launch
  fusion::set_machine_costs(m);
  // Two independent elementwise ops on different arrays: bohrium gains
  // nothing from fusing them, machine saves a launch.
  Batch b;
  const BaseId x = b.base(DType::Float64, 10), y = b.base(DType::Float64, 10), u = b.base(DType::Float64, 10),
               w = b.base(DType::Float64, 10);
  b.add(make(Opcode::Negative, view1(u, 0, 10), {v(view1(x, 0, 10))}));
  b.add(make(Opcode::Negative, view1(w, 0, 10), {v(view1(y, 0, 10))}));
  const fusion::Graph g(b.instrs);
  const auto machine = fusion::make_cost_model("machine");
  const auto bohrium = fusion::make_cost_model("bohrium");
  CHECK(machine->merge_bonus(g) == 10000);
  Partition apart, together;
  apart.blocks = {{0}, {1}};
  together.blocks = {{0, 1}};
  CHECK(bohrium->cost(g, apart) == bohrium->cost(g, together));
  CHECK(machine->cost(g, apart) - machine->cost(g, together) == 10000);
  // Each block: 80 bytes read + 80 written, plus the launch.
  CHECK(machine->cost(g, together) == 10000 + 320 + machine->constant(g));
  fusion::Options options;
  const Partition p = fusion::find_algorithm("greedy")->fuse(g, *machine, options);
  CHECK(p.blocks.size() == 1);
  const Partition q = fusion::find_algorithm("ilp")->fuse(g, *machine, options);
  CHECK(q.blocks.size() == 1);
  fusion::set_machine_costs(fusion::MachineCosts{});
}

TEST_CASE("machine cost model: no launch term in a batch of large instructions") {
  fusion::MachineCosts m;
  m.bandwidth = 1e10;
  m.launch_s = 1e-6;  // 10000 bytes-equivalent per launch
  fusion::set_machine_costs(m);
  const auto machine = fusion::make_cost_model("machine");
  const auto bohrium = fusion::make_cost_model("bohrium");
  fusion::Options options;
  // Two independent negatives over n float64 each: unfused traffic 2 * 16 n
  // bytes against two launches of 10000: counted up to 16 n = 10 * 10000.
  for (int64_t n : {int64_t{6250}, int64_t{6251}, int64_t{1000000}}) {
    CAPTURE(n);
    Batch b;
    const BaseId x = b.base(DType::Float64, n), y = b.base(DType::Float64, n), u = b.base(DType::Float64, n),
                 w = b.base(DType::Float64, n);
    b.add(make(Opcode::Negative, view1(u, 0, n), {v(view1(x, 0, n))}));
    b.add(make(Opcode::Negative, view1(w, 0, n), {v(view1(y, 0, n))}));
    const fusion::Graph g(b.instrs);
    const fusion::Cost launch = n <= 6250 ? 10000 : 0;
    CHECK(machine->merge_bonus(g) == launch);
    Partition apart, together;
    apart.blocks = {{0}, {1}};
    together.blocks = {{0, 1}};
    CHECK(machine->cost(g, apart) - machine->cost(g, together) == launch);
    CHECK(machine->cost(g, together) - machine->constant(g) == bohrium->cost(g, together) + launch);
    for (const char* fuser : {"greedy", "ilp"}) {
      CAPTURE(fuser);
      CHECK(fusion::find_algorithm(fuser)->fuse(g, *machine, options).blocks.size() ==
            (launch > 0 ? 1u : 2u));
    }
    // Another calibration, the same graph: its own launch term (not the last model's).
    fusion::MachineCosts slower = m;
    slower.launch_s = 2e-6;
    fusion::set_machine_costs(slower);
    CHECK(fusion::make_cost_model("machine")->merge_bonus(g) == (n <= 12500 ? 20000 : 0));
    CHECK(machine->merge_bonus(g) == launch);
    fusion::set_machine_costs(m);
  }
  // Related work still fuses: t = -x; z = t * t over 10^6 (t contracted).
  Batch c;
  const int64_t n = 1000000;
  const BaseId x = c.base(DType::Float64, n), t = c.base(DType::Float64, n), z = c.base(DType::Float64, n);
  c.add(make(Opcode::Negative, view1(t, 0, n), {v(view1(x, 0, n))}));
  c.add(make(Opcode::Multiply, view1(z, 0, n), {v(view1(t, 0, n)), v(view1(t, 0, n))}));
  c.add(control(Opcode::Free, t));
  const fusion::Graph gc(c.instrs);
  CHECK(machine->merge_bonus(gc) == 0);
  CHECK(fusion::find_algorithm("greedy")->fuse(gc, *machine, options).blocks.size() == 1);
  CHECK(fusion::find_algorithm("ilp")->fuse(gc, *machine, options).blocks.size() == 1);
  fusion::set_machine_costs(fusion::MachineCosts{});
}
