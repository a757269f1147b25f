// The `ilp` fuser (fusion/ilp.hpp): on random batches it returns a legal
// partition of exactly the optimum cost under all four cost models (against
// `optimal`, and against exhaustive search on batches of <= 9 instructions);
// Fig. 3 gives the exhaustive optima; a tiny time limit still gives a legal
// partition no worse than greedy; a forced solver failure (the test hook
// Options::ilp_force_failure) falls back to greedy with a warning.
// ARRVM_TEST_SCALE=k runs k times as many random batches.
#include <doctest/doctest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <memory>
#include <sstream>
#include <string>

#include <spdlog/sinks/ostream_sink.h>

#include "backends/backend.hpp"
#include "fusion/algorithms.hpp"
#include "fusion/cost.hpp"
#include "fusion/graph.hpp"
#include "fusion/ilp.hpp"
#include "fusion/ilp_filters.hpp"
#include "fusion/ilp_model.hpp"
#include "testing/random_program.hpp"
#include "tests/exhaustive.hpp"
#include "tests/fusion_test_util.hpp"
#include "vm/log.hpp"

using namespace arrvm;          // tests only
using namespace arrvm::fusion;  // tests only

namespace {

int test_scale() {
  const char* s = std::getenv("ARRVM_TEST_SCALE");
  if (s == nullptr || *s == '\0') return 1;
  const int k = std::atoi(s);
  return k > 0 ? k : 1;
}

// Runs `p` on a fresh ref backend: the contents of the bases it keeps.
std::vector<std::vector<uint8_t>> run_on_ref(const testing::RandomProgram& p, const Partition& partition) {
  Config config;
  config.backend = "ref";
  const std::unique_ptr<Backend> backend = make_backend(config);
  return testing::run_program(*backend, p, partition);
}

// Collects what arrvm::logger() writes while alive.
class LogCapture {
 public:
  LogCapture() : sink_(std::make_shared<spdlog::sinks::ostream_sink_mt>(out_)) {
    logger().sinks().push_back(sink_);
  }
  ~LogCapture() {
    auto& sinks = logger().sinks();
    sinks.erase(std::remove(sinks.begin(), sinks.end(), sink_), sinks.end());
  }
  std::string text() const { return out_.str(); }

 private:
  std::ostringstream out_;
  std::shared_ptr<spdlog::sinks::ostream_sink_mt> sink_;
};

}  // namespace

TEST_CASE("ilp is registered") {
  REQUIRE(find_algorithm("ilp") != nullptr);
  const bool is_ilp = find_algorithm("ilp")->fuse == &ilp::fuse;
  CHECK(is_ilp);
}

TEST_CASE("ilp = optimal on random batches, every cost model; same results on ref") {
  const int batches = 1000 * test_scale();
  const std::vector<std::string> models = cost_model_names();
  Options options;
  options.time_limit = 20.0;  // never reached on these sizes: both must be exact
  int compared_exhaustive = 0, proven = 0, total = 0, beat_greedy = 0, with_filters = 0, unproven_filters = 0,
      filters_exhaustive = 0;
  for (int seed = 0; seed < batches; ++seed) {
    testing::RandomProgramOptions po;
    po.max_instructions = seed % 3 == 0 ? 14 : 9;
    const testing::RandomProgram prog = testing::random_program(static_cast<uint64_t>(100000 + seed), po);
    const Graph g(prog.batch);
    with_filters += g.has_filters();
    const bool execute = seed % 10 == 0;
    const std::vector<std::vector<uint8_t>> expected =
        execute ? run_on_ref(prog, singleton_partition(prog.batch.size()))
                : std::vector<std::vector<uint8_t>>{};
    for (const std::string& model : models) {
      const auto cost = make_cost_model(model);
      INFO("seed " << 100000 + seed << ", " << prog.batch.size() << " instructions, cost model " << model);
      ilp::Report report;
      const Partition p = ilp::fuse_report(g, *cost, options, &report);
      REQUIRE(check_partition(g, p) == "");
      CHECK(report.failed == 0);
      CHECK(report.inexact == 0);  // the linear objective is the exact cost model
      ++total;
      proven += report.optimal();
      const Cost c = cost->cost(g, p);
      const Cost greedy_cost = cost->cost(g, greedy::fuse(g, *cost, options));
      CHECK(c <= greedy_cost);
      beat_greedy += c < greedy_cost;
      // The partition computes what unfused execution computes.
      if (execute && p.blocks.size() < prog.batch.size()) CHECK(run_on_ref(prog, p) == expected);
      // Every run is proven, a batch with a compress too (rule 9 is in the
      // formulation: fusion/ilp_filters.hpp).
      CHECK(report.optimal());
      if (!report.optimal()) {
        unproven_filters += g.has_filters();
      } else {
        CHECK(c == cost->cost(g, optimal::fuse(g, *cost, options)));
      }
      if (prog.batch.size() <= 9) {
        ++compared_exhaustive;
        filters_exhaustive += g.has_filters();
        CHECK(c == testing::exhaustive_optimum(g, *cost).cost);
      }
    }
  }
  MESSAGE(total << " (batch, model) runs, " << compared_exhaustive << " also against exhaustive search, "
                << proven << " proven optimal, " << beat_greedy << " cheaper than greedy; " << with_filters
                << " batches with a compress, " << unproven_filters << " runs of them not proven, "
                << filters_exhaustive << " compared with exhaustive search");
  CHECK(filters_exhaustive > 0);
  CHECK(with_filters > batches / 20);
  CHECK(beat_greedy > 0);  // the solver does more than return its warm start
  CHECK(proven == total);
  CHECK(unproven_filters == 0);
  CHECK(compared_exhaustive >= 2 * batches);
  CHECK(total == static_cast<int>(models.size()) * batches);
}

// Issue 45: batches with a compress, 1000 of them (ARRVM_TEST_SCALE times),
// each small enough for exhaustive search, which enforces the transducer
// rule block by block: under every cost model the ilp proves its partition
// optimal and its cost is the exhaustive optimum.
TEST_CASE("ilp with filters: proven, and equal to exhaustive search, on 1000 random filter batches") {
  const int batches = 1000 * test_scale();
  const std::vector<std::string> models = cost_model_names();
  Options options;
  options.time_limit = 20.0;
  int found = 0, runs = 0, proven = 0, rule_binds = 0;
  for (uint64_t seed = 500000; found < batches; ++seed) {
    testing::RandomProgramOptions po;
    po.max_instructions = 9;
    const testing::RandomProgram prog = testing::random_program(seed, po);
    const Graph g(prog.batch);
    if (!g.has_filters()) continue;
    ++found;
    for (const std::string& model : models) {
      const auto cost = make_cost_model(model);
      INFO("seed " << seed << ", " << prog.batch.size() << " instructions, cost model " << model);
      ilp::Report report;
      const Partition p = ilp::fuse_report(g, *cost, options, &report);
      REQUIRE(check_partition(g, p) == "");
      ++runs;
      proven += report.optimal();
      CHECK(report.optimal());
      const Cost c = cost->cost(g, p);
      const testing::ExhaustiveResult ex = testing::exhaustive_optimum(g, *cost);
      CHECK(c == ex.cost);
      CHECK(check_partition(g, ordered_partition(g, ex.partition.blocks)) == "");
      // The rule decides something: a pair the graph calls fusible shares
      // no block in the optimum only for want of a compress.
      bool binds = false;
      for (uint32_t a = 0; a < g.size() && !binds; ++a)
        for (uint32_t b = a + 1; b < g.size() && !binds; ++b)
          binds = g.fusible(a, b) && g.access(a).domain != g.access(b).domain;
      rule_binds += binds;
    }
  }
  MESSAGE(found << " batches with a compress, " << runs << " runs, " << proven << " proven optimal, "
                << rule_binds << " with a fusible pair of two length classes");
  CHECK(proven == runs);
  CHECK(rule_binds > runs / 4);
}

// The closure the filter rows and cuts rely on (fusion/ilp_filters.hpp),
// against the transducer rule as block.cpp states it: on random sets of
// instructions of random filter batches, lacking_compresses is empty
// exactly when the set is closed, and the set with the compresses it lacks
// added is closed.
TEST_CASE("ilp filters: lacking_compresses agrees with the transducer rule and closes what it completes") {
  int sets = 0, open = 0, nested = 0;
  uint64_t z = 12345;
  auto next = [&](uint64_t bound) {
    z ^= z << 13;
    z ^= z >> 7;
    z ^= z << 17;
    return z % bound;
  };
  for (uint64_t seed = 700000, found = 0; found < 300; ++seed) {
    testing::RandomProgramOptions po;
    po.max_instructions = 20;
    const testing::RandomProgram prog = testing::random_program(seed, po);
    const Graph g(prog.batch);
    if (!g.has_filters()) continue;
    ++found;
    for (uint32_t i = 0; i < g.size(); ++i)
      nested += g.access(i).kind == OpKind::Compress && g.access(i).domain != kNone;
    for (int trial = 0; trial < 50; ++trial) {
      BlockSummary u = BlockSummary::of(g, static_cast<uint32_t>(next(g.size())));
      const int members = 1 + static_cast<int>(next(5));
      for (int k = 1; k < members; ++k) u.absorb(BlockSummary::of(g, static_cast<uint32_t>(next(g.size()))));
      if (u.domains.empty()) continue;
      ++sets;
      const std::vector<uint32_t> lacking = ilp::lacking_compresses(g, u.domains, u.filters);
      CHECK(lacking.empty() == transducers_closed(u, u));
      open += !lacking.empty();
      for (uint32_t c : lacking) {
        CHECK(g.access(c).kind == OpKind::Compress);
        u.absorb(BlockSummary::of(g, c));
      }
      CHECK(ilp::lacking_compresses(g, u.domains, u.filters).empty());
      CHECK(transducers_closed(u, u));
    }
  }
  MESSAGE(sets << " sets, " << open << " not closed, " << nested << " compresses inside another's class");
  CHECK(open > sets / 10);
  CHECK(nested > 0);
}

TEST_CASE("ilp on Fig. 3: the exhaustive optimum under every cost model") {
  const std::vector<Instruction> batch = fusion_test::load_trace_batch(ARRVM_TEST_DATA_DIR "/fig3.trace");
  const Graph g(batch);
  Options options;
  options.time_limit = 20.0;
  // Exhaustive optima over the 2,272,924 legal partitions (fusion/README.md).
  const std::pair<const char*, Cost> expected[] = {
      {"bohrium", 34}, {"max-contract", 3}, {"max-locality", 2}, {"robinson", 705}};
  for (const auto& [name, best] : expected) {
    INFO(name);
    const auto cost = make_cost_model(name);
    ilp::Report report;
    const Partition p = ilp::fuse_report(g, *cost, options, &report);
    CHECK(check_partition(g, p) == "");
    CHECK(cost->cost(g, p) == best);
    CHECK(report.optimal());
    CHECK(report.inexact == 0);
  }
}

// Seed 003 §5.1's normalize2 as bytecode: sum1 = sum(xs); gts = where(xs > 0,
// xs, 0) (a masked input in place of the filter); sum2 = sum(gts);
// ys1 = xs / sum1; ys2 = xs / sum2. The paper's ILP gives 2 loops: the
// mask and both sums in one, both maps in the other (a reduction's output is
// complete only after its loop, so no map joins the sums).
TEST_CASE("ilp on seed 003's normalize2: 2 kernels") {
  using fusion_test::make;
  using fusion_test::view1;
  fusion_test::Batch b;
  const DType f64 = DType::Float64;
  const int64_t n = 8;
  const BaseId xs = b.base(f64, n), m = b.base(DType::Bool, n), gts = b.base(f64, n), s1 = b.base(f64, 1),
               s2 = b.base(f64, 1), y1 = b.base(f64, n), y2 = b.base(f64, n);
  auto scalar = [](BaseId base) {  // the 0-d view of a one-element base
    View v;
    v.base = base;
    return v;
  };
  auto broadcast = [&](BaseId base) { return view1(base, 0, n, 0); };
  const Operand zero = Operand::of(Scalar::of_double(f64, 0.0));
  b.add(make(Opcode::Greater, view1(m, 0, n), {fusion_test::v(view1(xs, 0, n)), zero}));  // 0
  b.add(make(Opcode::Where, view1(gts, 0, n),
             {fusion_test::v(view1(m, 0, n)), fusion_test::v(view1(xs, 0, n)), zero}));  // 1
  b.add(fusion_test::control(Opcode::Free, m));                                          // 2
  b.add(make(Opcode::AddReduce, scalar(s1), {fusion_test::v(view1(xs, 0, n))}, 0));      // 3
  b.add(make(Opcode::AddReduce, scalar(s2), {fusion_test::v(view1(gts, 0, n))}, 0));     // 4
  b.add(fusion_test::control(Opcode::Free, gts));                                        // 5
  b.add(make(Opcode::Divide, view1(y1, 0, n),
             {fusion_test::v(view1(xs, 0, n)), fusion_test::v(broadcast(s1))}));
  b.add(make(Opcode::Divide, view1(y2, 0, n),
             {fusion_test::v(view1(xs, 0, n)), fusion_test::v(broadcast(s2))}));
  b.add(fusion_test::control(Opcode::Free, s1));  // 8
  b.add(fusion_test::control(Opcode::Free, s2));  // 9
  b.add(fusion_test::control(Opcode::Sync, y1));  // 10
  b.add(fusion_test::control(Opcode::Sync, y2));  // 11
  const Graph g(b.instrs);
  Options options;
  options.time_limit = 20.0;
  for (const char* name : {"bohrium", "robinson"}) {
    INFO(name);
    const auto cost = make_cost_model(name);
    ilp::Report report;
    const Partition p = ilp::fuse_report(g, *cost, options, &report);
    REQUIRE(check_partition(g, p) == "");
    CHECK(report.optimal());
    CHECK(cost->cost(g, p) == cost->cost(g, optimal::fuse(g, *cost, options)));
    // Kernels: blocks holding a computing instruction (not only free/sync).
    std::vector<int> block_of(b.instrs.size(), -1);
    int kernels = 0;
    for (std::size_t k = 0; k < p.blocks.size(); ++k) {
      bool computes = false;
      for (uint32_t i : p.blocks[k]) {
        block_of[i] = static_cast<int>(k);
        computes = computes || !g.access(i).is_control();
      }
      kernels += computes;
    }
    CHECK(kernels == 2);
    CHECK(block_of[0] == block_of[1]);  // the mask
    CHECK(block_of[1] == block_of[3]);  // with both sums
    CHECK(block_of[3] == block_of[4]);
    CHECK(block_of[6] == block_of[7]);  // both maps
    CHECK(block_of[3] != block_of[6]);
  }
}

TEST_CASE(
    "ilp under robinson, 15-30 instructions: a proven optimum is optimal's and has max-locality's cost") {
  // robinson is lexicographic (max-locality first), and its ilp bounds the
  // weighted terms with a separate max-locality-like stage: a partition it
  // proves optimal must have max-locality's optimal cost (ilp under
  // max-locality, proven), and on up to 20 instructions optimal's cost.
  const auto robinson = make_cost_model("robinson");
  const auto locality = make_cost_model("max-locality");
  Options options;
  options.time_limit = 1.0;
  int proven = 0, runs = 0, against_optimal = 0;
  for (uint64_t seed = 0; seed < 30; ++seed) {
    testing::RandomProgramOptions po;
    po.min_instructions = 15;
    po.max_instructions = 30;
    po.filters = false;  // a batch with a compress is never proven (rule 9: fusion/ilp.cpp)
    const testing::RandomProgram prog = testing::random_program(300000 + seed, po);
    const Graph g(prog.batch);
    INFO("seed " << 300000 + seed << ", " << prog.batch.size() << " instructions");
    ilp::Report report, locality_report;
    const Partition p = ilp::fuse_report(g, *robinson, options, &report);
    REQUIRE(check_partition(g, p) == "");
    CHECK(report.failed == 0);
    CHECK(report.inexact == 0);
    CHECK(robinson->cost(g, p) <= robinson->cost(g, greedy::fuse(g, *robinson, options)));
    ++runs;
    if (!report.optimal()) continue;
    ++proven;
    const Partition lp = ilp::fuse_report(g, *locality, options, &locality_report);
    if (!locality_report.optimal()) {  // a pair that needs a compress in its block (rule 9)
      CHECK(g.has_filters());
      continue;
    }
    CHECK(locality->cost(g, p) == locality->cost(g, lp));
    if (prog.batch.size() <= 20) {
      ++against_optimal;
      CHECK(robinson->cost(g, p) == robinson->cost(g, optimal::fuse(g, *robinson, options)));
    }
  }
  MESSAGE(proven << " of " << runs << " robinson batches proven optimal, " << against_optimal
                 << " compared with optimal");
  CHECK(proven >= runs / 2);
  CHECK(against_optimal > 0);
}

TEST_CASE("ilp with a tiny time limit: legal and no worse than greedy") {
  for (const char* name : {"bohrium", "robinson"}) {
    const auto cost = make_cost_model(name);
    for (uint64_t seed = 1; seed <= 3; ++seed) {
      testing::RandomProgramOptions po;
      po.min_instructions = 150;
      po.max_instructions = 200;
      const testing::RandomProgram prog = testing::random_program(seed, po);
      const Graph g(prog.batch);
      INFO(std::string(name) << ", seed " << seed << ", " << prog.batch.size() << " instructions");
      Options options;
      options.time_limit = 0.001;
      ilp::Report report;
      const Partition p = ilp::fuse_report(g, *cost, options, &report);
      CHECK(check_partition(g, p) == "");
      CHECK(cost->cost(g, p) <= cost->cost(g, greedy::fuse(g, *cost, options)));
      CHECK(report.failed == 0);
      CHECK(!report.optimal());  // 1 ms is not enough to prove anything on this size
    }
  }
}

TEST_CASE("ilp: a solver failure falls back to greedy with a warning") {
  const std::vector<Instruction> batch = fusion_test::load_trace_batch(ARRVM_TEST_DATA_DIR "/fig3.trace");
  const Graph g(batch);
  const auto cost = make_cost_model("bohrium");
  Options options;
  options.time_limit = 20.0;
  options.ilp_force_failure = true;
  LogCapture log;
  ilp::Report report;
  const Partition p = ilp::fuse_report(g, *cost, options, &report);
  CHECK(check_partition(g, p) == "");
  CHECK(report.failed == report.parts);
  CHECK(report.failed > 0);
  CHECK(report.solved == 0);
  // The better of greedy (38, fusion/README.md) and greedy from the
  // unintrusive blocks (the warm start), not the optimum 34.
  BlockSet seed(g, *cost);
  unintrusive::merge_all(seed);
  greedy::merge_all(seed);
  CHECK(cost->cost(g, p) == std::min<Cost>(38, seed.cost()));
  CHECK(cost->cost(g, p) > 34);
  CHECK(log.text().find("CBC failed") != std::string::npos);
}

TEST_CASE("ilp: a part too large for the solver keeps the warm start, within the time limit") {
  testing::RandomProgramOptions po;
  po.min_instructions = po.max_instructions = 1500;
  const testing::RandomProgram prog = testing::random_program(7, po);
  const Graph g(prog.batch);
  const auto cost = make_cost_model("robinson");  // every fusible pair a variable: > 8000 columns
  Options options;
  options.time_limit = 5.0;
  ilp::Report report;
  const auto t0 = std::chrono::steady_clock::now();
  const Partition p = ilp::fuse_report(g, *cost, options, &report);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  CHECK(check_partition(g, p) == "");
  CHECK(report.too_large > 0);
  CHECK(cost->cost(g, p) <= cost->cost(g, greedy::fuse(g, *cost, options)));
  CHECK(seconds < options.time_limit + 1.0);
}

TEST_CASE("solve_mip on hand-made problems") {
  // min -x - 2y  s.t.  x + y <= 1, x, y binary: y = 1, value -2.
  MipProblem p;
  const int x = p.add_column(0, 1, -1, true), y = p.add_column(0, 1, -2, true);
  p.add_row({{x, 1.0}, {y, 1.0}}, -MipProblem::kInf, 1);
  MipResult r = solve_mip(p, {1.0, 0.0}, 10.0, false);  // a feasible, worse warm start
  REQUIRE(r.status == MipResult::Status::Optimal);
  CHECK(r.objective == doctest::Approx(-2));
  CHECK(r.x[y] == doctest::Approx(1));
  // min -x  s.t.  2x <= 1, x integer in [0, 3]: x = 0 (the LP optimum 0.5 is fractional).
  MipProblem q;
  const int z = q.add_column(0, 3, -1, true);
  q.add_row({{z, 2.0}}, -MipProblem::kInf, 1);
  r = solve_mip(q, {}, 10.0, false);
  REQUIRE(r.status == MipResult::Status::Optimal);
  CHECK(r.x[z] == doctest::Approx(0));
  // x + y >= 3 with binaries: infeasible, reported as a failure.
  p.add_row({{x, 1.0}, {y, 1.0}}, 3, MipProblem::kInf);
  r = solve_mip(p, {1.0, 0.0}, 10.0, false);
  CHECK(r.status == MipResult::Status::Failed);
  CHECK(r.x.empty());
  CHECK(!r.message.empty());
}

TEST_CASE("solve_mip with a separator: its rows cut the tree's LP solutions") {
  // max sum x over a cycle of 7 binaries, no two neighbours both 1 (rows in
  // the problem): the optimum is 3, the LP's 3.5 (every x one half). The
  // odd-cycle row sum x <= 3, valid for every integral point, is left out:
  // the separator returns it for an x that violates it. With it the root's
  // bound is the optimum. (CBC takes a node whose LP solution is integral
  // without calling the separator: the result of solve_mip is checked by
  // its caller, as fusion/ilp_part.cpp does.)
  constexpr int kN = 7;
  MipProblem p;
  for (int i = 0; i < kN; ++i) p.add_column(0, 1, -1, true);
  for (int i = 0; i < kN; ++i) p.add_row({{i, 1.0}, {(i + 1) % kN, 1.0}}, -MipProblem::kInf, 1);
  int calls = 0, rows = 0;
  bool fractional = false;
  const Separator separate = [&](const std::vector<double>& x) {
    ++calls;
    double sum = 0;
    for (int i = 0; i < kN; ++i) {
      sum += x[i];
      if (std::abs(x[i] - std::round(x[i])) > 1e-6) fractional = true;
    }
    std::vector<MipCut> out;
    if (sum > (kN - 1) / 2 + 1e-6) {
      MipCut c;
      for (int i = 0; i < kN; ++i) c.terms.emplace_back(i, 1.0);
      c.upper = (kN - 1) / 2;
      out.push_back(std::move(c));
      ++rows;
    }
    return out;
  };
  const MipResult r = solve_mip(p, {}, 10.0, false, separate);
  REQUIRE(r.status == MipResult::Status::Optimal);
  CHECK(r.objective == doctest::Approx(-3));
  CHECK(calls > 0);
  CHECK(fractional);  // (called on the LP's solutions, not only on integral ones)
  CHECK(rows > 0);
  const MipResult plain = solve_mip(p, {}, 10.0, false);
  REQUIRE(plain.status == MipResult::Status::Optimal);
  CHECK(plain.objective == doctest::Approx(-3));
}
