// ilp_bench: solve times of the `ilp` fuser on random batches
// (tests/random_program) of 25, 50, 100 and 200 instructions: median and
// maximum seconds, how many runs CBC proved optimal, and the cost against
// greedy's. Usage: ilp_bench [--cost NAME] [--time-limit S] [--count N]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "fusion/algorithms.hpp"
#include "fusion/cost.hpp"
#include "fusion/graph.hpp"
#include "fusion/ilp.hpp"
#include "tests/random_program.hpp"

using namespace arrvm;  // benchmark program

int main(int argc, char** argv) {
  std::string cost_name = "bohrium";
  double time_limit = 10.0;
  int count = 10;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--cost")) cost_name = argv[i + 1];
    if (!std::strcmp(argv[i], "--time-limit")) time_limit = std::atof(argv[i + 1]);
    if (!std::strcmp(argv[i], "--count")) count = std::atoi(argv[i + 1]);
  }
  const auto cost = fusion::make_cost_model(cost_name);
  fusion::Options options;
  options.time_limit = time_limit;
  std::printf("cost model %s, time limit %.3g s, %d random batches per size\n", cost_name.c_str(),
              time_limit, count);
  std::printf("%6s %7s %10s %10s %8s %8s %8s %12s %12s %8s\n", "instrs", "units", "median_s", "max_s",
              "optimal", "columns", "rows", "cost_ilp", "cost_greedy", "better");
  for (int n : {25, 50, 100, 200}) {
    std::vector<double> times;
    int proven = 0, better = 0;
    long long units = 0, columns = 0, rows = 0, cost_ilp = 0, cost_greedy = 0;
    for (int k = 0; k < count; ++k) {
      testing::RandomProgramOptions po;
      po.min_instructions = po.max_instructions = n;
      const std::vector<Instruction> batch = testing::random_program(1000 + k, po).batch;
      const fusion::Graph g(batch);
      fusion::ilp::Report report;
      const auto t0 = std::chrono::steady_clock::now();
      const Partition p = fusion::ilp::fuse_report(g, *cost, options, &report);
      times.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
      const std::string problem = fusion::check_partition(g, p);
      if (!problem.empty()) {
        std::fprintf(stderr, "illegal partition: %s\n", problem.c_str());
        return 1;
      }
      const long long ci = cost->cost(g, p), cg = cost->cost(g, fusion::greedy::fuse(g, *cost, options));
      proven += report.optimal();
      better += ci < cg;
      units += report.units;
      columns += report.columns;
      rows += report.rows;
      cost_ilp += ci;
      cost_greedy += cg;
    }
    std::sort(times.begin(), times.end());
    std::printf("%6d %7.1f %10.4f %10.4f %5d/%-2d %8lld %8lld %12lld %12lld %8d\n", n,
                static_cast<double>(units) / count, times[times.size() / 2], times.back(), proven, count,
                columns / count, rows / count, cost_ilp, cost_greedy, better);
    std::fflush(stdout);
  }
  return 0;
}
