// merge_cache_bench: what a merge-cache hit costs against the fusion it saves.
//   hits     random batches (testing/random_program) of 100, 300 and 1000
//            instructions: the hit path (hash + lookup + re-bind, in memory),
//            a disk hit (a new process: read, checksum, legality check), and
//            the time of each fuser (graph included) on the same batch;
//   anytime  a loop flushing one batch per iteration with the exact fusers,
//            anytime fusion off and on: how long the loop waits for fusion
//            and in which iteration the exact partition arrives. Each
//            iteration "executes" for --exec-ms milliseconds (a busy loop,
//            so the background solve competes for the cores as real work
//            would).
// Usage: merge_cache_bench [--cost MODEL] [--time-limit S] [--batches K]
//                          [--exec-ms MS] [--iterations N] [--skip-anytime]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "engine/fusion_stage.hpp"
#include "fusion/algorithms.hpp"
#include "fusion/cost.hpp"
#include "fusion/graph.hpp"
#include "testing/random_program.hpp"

using namespace arrvm;  // a benchmark program

namespace {

using Clock = std::chrono::steady_clock;

double since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

std::vector<Instruction> random_batch(uint64_t seed, int n) {
  testing::RandomProgramOptions o;
  o.filters = false;  // the batches measured before filters existed
  o.min_instructions = o.max_instructions = n;
  std::vector<Instruction> b = testing::random_program(seed, o).batch;
  if (static_cast<int>(b.size()) > n) b.resize(static_cast<std::size_t>(n));
  return b;
}

class TempDir {
 public:
  TempDir() {
    std::string t = (std::filesystem::temp_directory_path() / "arrvm-mcbench-XXXXXX").string();
    if (mkdtemp(t.data()) != nullptr) path_ = t;
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

struct Options {
  std::string cost = "bohrium";
  double time_limit = 1.0;
  int batches = 5;
  double exec_ms = 5;
  int iterations = 20;
  bool anytime = true;
};

Config config_for(const Options& o, const std::string& fuser, const std::string& mode,
                  const std::string& dir) {
  Config c;
  c.backend = "ref";
  c.fuser = fuser;
  c.cost = o.cost;
  c.fuse_time_limit = o.time_limit;
  c.set("cache", mode);
  c.cache_dir = dir;
  c.anytime = false;
  return c;
}

// Seconds per hit of `batch` in memory (best of 5 rounds of `reps` hits).
double memory_hit_s(const Options& o, const std::vector<Instruction>& batch, int reps) {
  FusionStage stage(config_for(o, "greedy", "memory", ""));
  Profile p;
  stage.partition(batch, p);
  double best = 1e30;
  for (int round = 0; round < 5; ++round) {
    const auto t0 = Clock::now();
    for (int r = 0; r < reps; ++r) {
      const Partition part = stage.partition(batch, p);
      if (part.blocks.empty()) std::abort();
    }
    best = std::min(best, since(t0) / reps);
  }
  if (p.merge_cache_hits != 5u * reps) std::abort();
  return best;
}

// Seconds for a disk hit of `batch` in a new stage (best of 5).
double disk_hit_s(const Options& o, const std::vector<Instruction>& batch) {
  TempDir dir;
  {
    FusionStage writer(config_for(o, "greedy", "on", dir.path()));
    Profile p;
    writer.partition(batch, p);
  }
  double best = 1e30;
  for (int round = 0; round < 5; ++round) {
    FusionStage reader(config_for(o, "greedy", "on", dir.path()));
    Profile p;
    const auto t0 = Clock::now();
    reader.partition(batch, p);
    best = std::min(best, since(t0));
    if (p.merge_cache_hits != 1) std::abort();
  }
  return best;
}

void hits(const Options& o) {
  std::printf("hit path: %d random batches per size, cost %s, exact fusers' limit %.3g s\n", o.batches,
              o.cost.c_str(), o.time_limit);
  std::printf("%6s %12s %12s %12s %12s |", "instrs", "hit us/inst", "hit us", "disk us/inst", "disk us");
  for (const fusion::Algorithm& a : fusion::algorithms()) std::printf(" %12s", a.name);
  std::printf("   (fusion ms, graph included; mean over batches)\n");
  for (int n : {100, 300, 1000}) {
    double hit = 0, disk = 0;
    std::vector<double> fuse(fusion::algorithms().size(), 0.0);
    for (int k = 0; k < o.batches; ++k) {
      const std::vector<Instruction> batch = random_batch(1000 + k, n);
      hit += memory_hit_s(o, batch, 200);
      disk += disk_hit_s(o, batch);
      std::size_t i = 0;
      for (const fusion::Algorithm& a : fusion::algorithms()) {
        const auto t0 = Clock::now();
        fuse_batch(batch, config_for(o, a.name, "off", ""));
        fuse[i++] += since(t0);
      }
    }
    hit /= o.batches;
    disk /= o.batches;
    std::printf("%6d %12.4f %12.2f %12.4f %12.2f |", n, hit * 1e6 / n, hit * 1e6, disk * 1e6 / n, disk * 1e6);
    for (double f : fuse) std::printf(" %12.3f", f / o.batches * 1e3);
    std::printf("\n");
    std::printf("%6s %12s %12s %12s %12s |", "", "", "", "", "saved x");
    for (double f : fuse) std::printf(" %12.0f", f / o.batches / hit);
    std::printf("\n");
    std::fflush(stdout);
  }
}

void busy_for(double seconds) {
  const auto t0 = Clock::now();
  while (since(t0) < seconds) {
  }
}

void anytime(const Options& o) {
  std::printf(
      "\nanytime fusion: %d iterations flushing one random batch each, %.3g ms of execution per"
      " iteration, limit %.3g s\n",
      o.iterations, o.exec_ms, o.time_limit);
  std::printf("%6s %-8s %-7s %10s %8s %14s %12s %12s %10s %8s %13s\n", "instrs", "fuser", "anytime",
              "total s", "end s", "fusion wait s", "first cost", "final cost", "upgraded@", "upgrades",
              "background s");
  for (int n : {100, 300}) {
    const std::vector<Instruction> batch = random_batch(7, n);
    const fusion::Graph g(batch);
    const auto cost = fusion::make_cost_model(o.cost);
    for (const char* fuser : {"optimal", "ilp"}) {
      for (const char* mode : {"off", "on"}) {
        Config c = config_for(o, fuser, "memory", "");
        c.set("anytime", mode);
        Profile p;
        int64_t first = -1, last = -1;
        int upgraded_at = -1;
        const auto t0 = Clock::now();
        Clock::time_point loop_end;
        {
          FusionStage stage(c);
          for (int it = 0; it < o.iterations; ++it) {
            const Partition part = stage.partition(batch, p);
            const int64_t cst = cost->cost(g, part);
            if (first < 0) first = cst;
            if (upgraded_at < 0 && it > 0 && cst != last) upgraded_at = it;
            last = cst;
            busy_for(o.exec_ms / 1e3);
          }
          loop_end = Clock::now();
        }  // the destructor waits for a solve still running: counted in "end s"
        const double total = since(t0), end_s = since(loop_end);
        std::printf("%6d %-8s %-7s %10.4f %8.4f %14.4f %12lld %12lld %10s %8llu %13.4f\n", n, fuser, mode,
                    total, end_s, p.fusion_s + p.merge_cache_s, static_cast<long long>(first),
                    static_cast<long long>(last), upgraded_at < 0 ? "-" : std::to_string(upgraded_at).c_str(),
                    static_cast<unsigned long long>(p.merge_cache_upgrades), p.fusion_background_s);
        std::fflush(stdout);
      }
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const char* v = i + 1 < argc ? argv[i + 1] : nullptr;
    if (a == "--skip-anytime") {
      o.anytime = false;
      continue;
    }
    if (v == nullptr) {
      std::fprintf(stderr, "merge_cache_bench: %s needs a value\n", a.c_str());
      return 2;
    }
    ++i;
    if (a == "--cost") {
      o.cost = v;
    } else if (a == "--time-limit") {
      o.time_limit = std::atof(v);
    } else if (a == "--batches") {
      o.batches = std::max(1, std::atoi(v));
    } else if (a == "--exec-ms") {
      o.exec_ms = std::atof(v);
    } else if (a == "--iterations") {
      o.iterations = std::max(1, std::atoi(v));
    } else {
      std::fprintf(stderr, "merge_cache_bench: unknown option %s\n", a.c_str());
      return 2;
    }
  }
  hits(o);
  if (o.anytime) anytime(o);
  return 0;
}
