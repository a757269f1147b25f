// ilp_bench: solve times of the `ilp` fuser, per cost model, on
//  - random batches (testing/random_program) of 25, 50, 100 and 200
//    instructions (seeds 1000 + k, 3 persistent bases), and
//  - the distinct batches of the benchmark programs (programs/, tiny
//    sizes, recorded on the ref backend with the singleton fuser),
// printing the median and maximum seconds of the whole ilp::fuse_report
// (seeds, models, CBC), how many runs CBC proved optimal, and the cost
// summed over the runs against greedy's.
// Usage: ilp_bench [--cost NAME|all] [--time-limit S] [--count N] [--sizes 25,50,...]
//                  [--no-programs] [--no-block-search] [--program NAME] [--each] [--verbose]
//                  [--filters]
// (--filters: random batches that hold a compress and its length classes,
// the first `count` seeds from 1000 whose batch has one)
// (--no-block-search: robinson's fewest blocks by CBC alone, as before
// fusion/ilp_blocks_search.cpp)
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "arrvm/arrvm.hpp"
#include "engine/runtime.hpp"
#include "fusion/algorithms.hpp"
#include "fusion/cost.hpp"
#include "fusion/graph.hpp"
#include "fusion/ilp.hpp"
#include "programs/programs.hpp"
#include "testing/random_program.hpp"
#include "vm/log.hpp"

using namespace arrvm;  // benchmark program

namespace {

bool print_each = false;  // --each: a line per batch

struct Row {
  std::vector<double> times;
  int runs = 0, proven = 0, better = 0;
  long long instrs = 0, units = 0, mip_solves = 0, cuts = 0, cost_ilp = 0, cost_greedy = 0;
};

// Runs ilp on one batch; false if the partition is illegal.
bool measure(const std::vector<Instruction>& batch, const fusion::CostModel& cost,
             const fusion::Options& options, Row* row) {
  const fusion::Graph g(batch);
  fusion::ilp::Report report;
  const auto t0 = std::chrono::steady_clock::now();
  const Partition p = fusion::ilp::fuse_report(g, cost, options, &report);
  row->times.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  const std::string problem = fusion::check_partition(g, p);
  if (!problem.empty()) {
    std::fprintf(stderr, "illegal partition: %s\n", problem.c_str());
    return false;
  }
  const long long ci = cost.cost(g, p), cg = cost.cost(g, fusion::greedy::fuse(g, cost, options));
  ++row->runs;
  row->proven += report.optimal();
  row->better += ci < cg;
  row->instrs += static_cast<long long>(batch.size());
  row->units += report.units;
  row->mip_solves += report.mip_solves;
  row->cuts += report.cuts;
  row->cost_ilp += ci;
  row->cost_greedy += cg;
  if (print_each)
    std::printf("  batch: %zu instrs, %.4f s, %s, cost %lld, greedy %lld\n", batch.size(), row->times.back(),
                report.optimal() ? "optimal" : "stopped", ci, cg);
  return true;
}

void add(Row& to, const Row& r) {
  to.times.insert(to.times.end(), r.times.begin(), r.times.end());
  to.runs += r.runs;
  to.proven += r.proven;
  to.better += r.better;
  to.instrs += r.instrs;
  to.units += r.units;
  to.mip_solves += r.mip_solves;
  to.cuts += r.cuts;
  to.cost_ilp += r.cost_ilp;
  to.cost_greedy += r.cost_greedy;
}

void print_header(const char* what) {
  std::printf("%-18s %7s %7s %10s %10s %8s %6s %6s %12s %12s %7s\n", what, "instrs", "units", "median_s",
              "max_s", "optimal", "mips", "cuts", "cost_ilp", "cost_greedy", "better");
}

void print_row(const std::string& name, Row r) {
  if (r.runs == 0) return;
  std::sort(r.times.begin(), r.times.end());
  const double n = r.runs;
  std::printf("%-18s %7.1f %7.1f %10.4f %10.4f %5d/%-2d %6.1f %6.1f %12lld %12lld %7d\n", name.c_str(),
              r.instrs / n, r.units / n, r.times[r.times.size() / 2], r.times.back(), r.proven, r.runs,
              r.mip_solves / n, r.cuts / n, r.cost_ilp, r.cost_greedy, r.better);
  std::fflush(stdout);
}

// Collects every batch a Runtime flushes.
struct Collector : FlushObserver {
  std::vector<std::vector<Instruction>> batches;
  void on_flush(std::span<const Instruction> batch, const Partition&) override {
    batches.emplace_back(batch.begin(), batch.end());
  }
};

// The distinct batches (by printed form) of a benchmark program at its tiny size.
std::vector<std::vector<Instruction>> program_batches(const bench::Program& prog) {
  // (eager and tiered off: every operation reaches a batch, as when recorded)
  Vm vm({{"backend", "ref"}, {"fuser", "singleton"}, {"cache", "off"}, {"eager", "off"}, {"tiered", "off"}});
  Collector c;
  vm.runtime().set_flush_observer(&c);
  prog.run(vm, prog.tiny);
  vm.flush();
  vm.runtime().set_flush_observer(nullptr);
  std::set<std::string> seen;
  std::vector<std::vector<Instruction>> r;
  for (auto& b : c.batches) {
    if (b.size() < 2) continue;
    std::ostringstream key;
    for (const Instruction& in : b) key << to_string(in) << "\n";
    if (seen.insert(key.str()).second) r.push_back(std::move(b));
  }
  return r;
}

}  // namespace

int main(int argc, char** argv) {
  std::string cost_name = "all";
  double time_limit = 10.0;
  int count = 10;
  bool programs = true;
  bool block_search = true;
  bool filters = false;
  std::string only_program;
  std::vector<int> sizes{25, 50, 100, 200};
  for (int i = 1; i < argc; ++i) {
    const bool has_value = i + 1 < argc;
    if (!std::strcmp(argv[i], "--filters")) {
      filters = true;
    } else if (!std::strcmp(argv[i], "--no-programs")) {
      programs = false;
    } else if (!std::strcmp(argv[i], "--no-block-search")) {
      block_search = false;  // robinson: CBC for the fewest blocks, as before the search
    } else if (!std::strcmp(argv[i], "--each")) {
      print_each = true;
    } else if (!std::strcmp(argv[i], "--verbose")) {
      logger().set_level(spdlog::level::debug);  // the per-part summaries and CBC's log
    } else if (!std::strcmp(argv[i], "--program") && has_value) {
      only_program = argv[++i];
    } else if (!std::strcmp(argv[i], "--cost") && has_value) {
      cost_name = argv[++i];
    } else if (!std::strcmp(argv[i], "--time-limit") && has_value) {
      time_limit = std::atof(argv[++i]);
    } else if (!std::strcmp(argv[i], "--count") && has_value) {
      count = std::atoi(argv[++i]);
    } else if (!std::strcmp(argv[i], "--sizes") && has_value) {
      sizes.clear();
      for (const char* s = argv[++i]; *s != '\0';) {
        sizes.push_back(std::atoi(s));
        while (*s != '\0' && *s != ',') ++s;
        if (*s == ',') ++s;
      }
    } else {
      std::fprintf(stderr,
                   "usage: ilp_bench [--cost NAME|all] [--time-limit S] [--count N] [--sizes 25,50,...] "
                   "[--no-programs] [--no-block-search] [--program NAME] [--each] [--verbose] [--filters]\n");
      return 2;
    }
  }
  const std::vector<std::string> models =
      cost_name == "all" ? fusion::cost_model_names() : std::vector<std::string>{cost_name};
  fusion::Options options;
  options.time_limit = time_limit;
  options.ilp_no_block_search = !block_search;
  std::vector<std::pair<std::string, std::vector<std::vector<Instruction>>>> program_sets;
  if (programs) {
    for (const bench::Program& prog : bench::programs())
      if (only_program.empty() || only_program == prog.name)
        program_sets.emplace_back(prog.name, program_batches(prog));
  }
  for (const std::string& model : models) {
    const auto cost = fusion::make_cost_model(model);
    std::printf("\ncost model %s, time limit %.3g s, %d random batches per size\n", model.c_str(), time_limit,
                count);
    print_header("random");
    for (int n : sizes) {
      Row row;
      for (int k = 0, seed = 1000; k < count; ++k, ++seed) {
        testing::RandomProgramOptions po;
        po.filters = filters;  // (off by default: the batches measured before filters existed)
        po.min_instructions = po.max_instructions = n;
        testing::RandomProgram prog = testing::random_program(static_cast<uint64_t>(seed), po);
        // --filters: the next seeds whose batch holds a compress.
        while (filters && !fusion::Graph(prog.batch).has_filters())
          prog = testing::random_program(static_cast<uint64_t>(++seed), po);
        if (!measure(prog.batch, *cost, options, &row)) return 1;
      }
      print_row(std::to_string(n), row);
    }
    if (program_sets.empty()) continue;
    print_header("program (batches)");
    Row all;
    for (const auto& [name, batches] : program_sets) {
      Row row;
      for (const auto& b : batches)
        if (!measure(b, *cost, options, &row)) return 1;
      print_row(name, row);
      add(all, row);
    }
    print_row("all programs", all);
  }
  return 0;
}
