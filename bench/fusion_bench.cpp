// fusion_bench: time per fusion algorithm (and for building the WSP graph)
// on batches of 10, 100, 1000 and 5000 instructions of two kinds:
//   loop    a Jacobi-style stencil loop with temporaries created and freed
//           each iteration and a convergence reduction (what a Bohrium
//           batch of a scientific loop looks like);
//   random  testing/random_program batches over 3 persistent arrays (dense
//           sharing: every instruction touches one of three bases).
// Usage: fusion_bench [--cost MODEL] [--time-limit SECONDS] [--repeat N]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "engine/runtime.hpp"
#include "fusion/algorithms.hpp"
#include "fusion/cost.hpp"
#include "fusion/graph.hpp"
#include "testing/random_program.hpp"
#include "vm/validate.hpp"

using namespace arrvm;  // a benchmark program

namespace {

using Clock = std::chrono::steady_clock;

View vec(BaseId b, int64_t off, int64_t n) {
  View v;
  v.base = b;
  v.offset = off;
  v.shape = Dims{n};
  v.stride = Dims{1};
  return v;
}

// for i in iterations:
//   t1 = a[0:n-2] + a[2:n]; t2 = t1 * 0.25; t3 = a[1:n-1] * 0.5
//   b[1:n-1] = t2 + t3; free t1, t2, t3
//   d = b - a; e = abs(d); r = add_reduce(e); free d, e
//   a[...] = b; (every 8th iteration: sync r)
std::vector<Instruction> loop_batch(int target) {
  const int64_t n = 1000;
  BaseRegistry reg;
  std::vector<Instruction> batch;
  auto add = [&](Instruction in) {
    if (static_cast<int>(batch.size()) >= target) return;
    validate_instruction(in, reg, batch.size());
    batch.push_back(in);
  };
  auto op = [&](Opcode o, View out, std::vector<Operand> ins) {
    Instruction in;
    in.op = o;
    in.out = out;
    for (const Operand& x : ins) in.add_input(x);
    add(in);
  };
  auto free_base = [&](BaseId b) {
    Instruction in;
    in.op = Opcode::Free;
    in.out.base = b;
    add(in);
  };
  const DType f = DType::Float64;
  const BaseId a = reg.add(f, n), b = reg.add(f, n), r = reg.add(f, 1);
  const Operand quarter = Operand::of(Scalar::of_double(f, 0.25)),
                half = Operand::of(Scalar::of_double(f, 0.5));
  for (int it = 0; static_cast<int>(batch.size()) < target; ++it) {
    const BaseId t1 = reg.add(f, n - 2), t2 = reg.add(f, n - 2), t3 = reg.add(f, n - 2);
    op(Opcode::Add, vec(t1, 0, n - 2), {Operand::of(vec(a, 0, n - 2)), Operand::of(vec(a, 2, n - 2))});
    op(Opcode::Multiply, vec(t2, 0, n - 2), {Operand::of(vec(t1, 0, n - 2)), quarter});
    op(Opcode::Multiply, vec(t3, 0, n - 2), {Operand::of(vec(a, 1, n - 2)), half});
    op(Opcode::Add, vec(b, 1, n - 2), {Operand::of(vec(t2, 0, n - 2)), Operand::of(vec(t3, 0, n - 2))});
    free_base(t1);
    free_base(t2);
    free_base(t3);
    const BaseId d = reg.add(f, n), e = reg.add(f, n);
    op(Opcode::Subtract, vec(d, 0, n), {Operand::of(vec(b, 0, n)), Operand::of(vec(a, 0, n))});
    op(Opcode::Absolute, vec(e, 0, n), {Operand::of(vec(d, 0, n))});
    Instruction red;
    red.op = Opcode::AddReduce;
    View r0;
    r0.base = r;
    red.out = r0;  // 0-d
    red.add_input(Operand::of(vec(e, 0, n)));
    add(red);
    free_base(d);
    free_base(e);
    op(Opcode::Identity, vec(a, 1, n - 2), {Operand::of(vec(b, 1, n - 2))});
    if (it % 8 == 7) {
      Instruction s;
      s.op = Opcode::Sync;
      s.out.base = r;
      add(s);
    }
  }
  return batch;
}

std::vector<Instruction> random_batch(int target) {
  testing::RandomProgramOptions o;
  o.filters = false;  // the batches measured before filters existed
  o.min_instructions = o.max_instructions = target;
  std::vector<Instruction> b = testing::random_program(42, o).batch;
  if (static_cast<int>(b.size()) > target) b.resize(static_cast<std::size_t>(target));
  return b;
}

double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

}  // namespace

int main(int argc, char** argv) {
  std::string cost_name = "bohrium";
  double time_limit = 1.0;
  int repeat = 3;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--cost")) cost_name = argv[i + 1];
    if (!std::strcmp(argv[i], "--time-limit")) time_limit = std::atof(argv[i + 1]);
    if (!std::strcmp(argv[i], "--repeat")) repeat = std::atoi(argv[i + 1]);
  }
  const auto cost = fusion::make_cost_model(cost_name);
  fusion::Options options;
  options.time_limit = time_limit;
  std::printf("cost model %s, optimal time limit %.3g s, best of %d runs; seconds (cost, blocks)\n",
              cost_name.c_str(), time_limit, repeat);
  std::printf("%-7s %6s %10s", "batch", "instrs", "graph");
  for (const fusion::Algorithm& a : fusion::algorithms()) std::printf(" %26s", a.name);
  std::printf("\n");
  for (const char* kind : {"loop", "random"}) {
    for (int n : {10, 100, 1000, 5000}) {
      const std::vector<Instruction> batch = std::string(kind) == "loop" ? loop_batch(n) : random_batch(n);
      double graph_s = 1e30;
      for (int r = 0; r < repeat; ++r) {
        const auto t0 = Clock::now();
        const fusion::Graph g(batch);
        graph_s = std::min(graph_s, seconds_since(t0));
      }
      const fusion::Graph g(batch);
      std::printf("%-7s %6zu %10.6f", kind, batch.size(), graph_s);
      for (const fusion::Algorithm& a : fusion::algorithms()) {
        double best = 1e30;
        Partition p;
        for (int r = 0; r < repeat; ++r) {
          const auto t0 = Clock::now();
          p = a.fuse(g, *cost, options);
          best = std::min(best, seconds_since(t0));
        }
        const std::string problem = fusion::check_partition(g, p);
        if (!problem.empty()) {
          std::fprintf(stderr, "%s returned an illegal partition: %s\n", a.name, problem.c_str());
          return 1;
        }
        char cell[64];
        std::snprintf(cell, sizeof cell, "%.6f (%lld, %zu)", best, static_cast<long long>(cost->cost(g, p)),
                      p.blocks.size());
        std::printf(" %26s", cell);
      }
      std::printf("\n");
      std::fflush(stdout);
    }
  }
  return 0;
}
