// The merge cache (cache/merge_cache, engine/fusion_stage FusionStage): what the
// key distinguishes and what it does not, the memory modes, a second process
// replaying a trace and anytime fusion (greedy first, the exact partition
// later). The disk entries themselves: test_merge_cache_disk.cpp.
#include <doctest/doctest.h>
#include <sys/wait.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <thread>

#include "engine/fusion_stage.hpp"
#include "fusion/cost.hpp"
#include "tests/cpu_test_util.hpp"
#include "tests/merge_cache_test_util.hpp"

using namespace mc_test;  // tests only

TEST_CASE("batches differing only in constant values and base ids share an entry") {
  const auto a = axpy(2.0, 0), b = axpy(-7.5, 3);
  CHECK(key_of(a) == key_of(b));
  CHECK(key_of(a).hash == key_of(b).hash);

  Config config;
  config.backend = "ref";
  FusionStage stage(config);
  Profile prof;
  const Partition pa = stage.partition(a, prof);
  const Partition pb = stage.partition(b, prof);
  CHECK(prof.merge_cache_misses == 1);
  CHECK(prof.merge_cache_hits == 1);
  CHECK(same(pa, pb));
  CHECK(legality(b, pb).empty());

  // A constant of another dtype is another key (the dtype is in the key).
  std::vector<Instruction> c32 = a;
  c32[0].in[1].constant = Scalar::of_double(DType::Float32, 2.0);
  CHECK_FALSE(key_of(a) == key_of(c32));
  // So are an opcode, an axis-free shape change and a stride.
  std::vector<Instruction> sub = a;
  sub[1].op = Opcode::Subtract;
  CHECK_FALSE(key_of(a) == key_of(sub));
  std::vector<Instruction> strided = a;
  strided[0].in[0].view.stride[0] = -1;
  strided[0].in[0].view.offset = 7;
  CHECK_FALSE(key_of(a) == key_of(strided));
}

// The key's renaming table puts neighbouring ids in neighbouring slots:
// bases whose ids are far apart, or a multiple of any table size apart,
// must still be told apart (and renamed as they first appear).
TEST_CASE("the key renames bases by first appearance whatever their ids") {
  const std::vector<Instruction> a = axpy(2.0, 0);
  auto remap = [&](BaseId (*f)(BaseId)) {
    std::vector<Instruction> r = a;
    for (Instruction& in : r) {
      in.out.base = f(in.out.base);
      for (int k = 0; k < in.nin; ++k) {
        if (!in.in[k].is_const) in.in[k].view.base = f(in.in[k].view.base);
      }
    }
    return r;
  };
  const std::vector<Instruction> far = remap([](BaseId id) { return (BaseId{1} << 40) + 12345 * id; });
  const std::vector<Instruction> colliding = remap([](BaseId id) { return id << 24; });
  CHECK(key_of(a) == key_of(far));
  CHECK(key_of(a) == key_of(colliding));
  // Two bases made one is another key.
  std::vector<Instruction> merged = a;
  merged[1].out.base = merged[1].in[0].view.base = merged[0].out.base;
  CHECK_FALSE(key_of(a) == key_of(merged));

  // A long batch: 3000 instructions over ids spread in runs and strides.
  std::vector<Instruction> big, shifted;
  for (int i = 0; i < 1000; ++i) {
    for (const Instruction& in : a) {
      Instruction x = in, y = in;
      auto id = [&](BaseId b) { return b * 1000 + i; };
      auto id2 = [&](BaseId b) { return (b * 1000 + i) * 4096 + 7; };
      x.out.base = id(in.out.base);
      y.out.base = id2(in.out.base);
      for (int k = 0; k < in.nin; ++k) {
        if (in.in[k].is_const) continue;
        x.in[k].view.base = id(in.in[k].view.base);
        y.in[k].view.base = id2(in.in[k].view.base);
      }
      big.push_back(x);
      shifted.push_back(y);
    }
  }
  CHECK(key_of(big) == key_of(shifted));
  shifted[2999].out.base = shifted[0].out.base;
  CHECK_FALSE(key_of(big) == key_of(shifted));
}

TEST_CASE("a view offset that changes which views overlap changes the key and the partition") {
  const auto same_view = shifted_read(0), overlapping = shifted_read(2), disjoint = shifted_read(4);
  CHECK_FALSE(key_of(same_view) == key_of(overlapping));
  CHECK_FALSE(key_of(overlapping) == key_of(disjoint));
  CHECK_FALSE(key_of(same_view) == key_of(disjoint));

  Config config;
  config.backend = "ref";
  FusionStage stage(config);
  Profile prof;
  const Partition p0 = stage.partition(same_view, prof);
  const Partition p2 = stage.partition(overlapping, prof);
  const Partition p4 = stage.partition(disjoint, prof);
  CHECK(prof.merge_cache_misses == 3);
  CHECK(prof.merge_cache_hits == 0);
  // Each partition is the fuser's own for that batch: shared x fuses the
  // two instructions unless the t views conflict.
  CHECK(p0.blocks.size() == 1);
  CHECK(p2.blocks.size() == 2);
  CHECK(p4.blocks.size() == 1);
  CHECK(legality(overlapping, p2).empty());
  // The cached one-block partition would be illegal for the overlapping batch.
  CHECK_FALSE(legality(overlapping, p0).empty());
}

TEST_CASE("shifting every view of a base alike keeps the key; the shared partition stays legal") {
  // A loop over the rows of a table (`counts[t] = row.sum()`) flushes
  // batches that differ in where they work, not in which views overlap.
  for (int64_t off : {0, 2, 4}) {
    CAPTURE(off);
    const auto first = shifted_read(off, 0);
    Config config;
    config.backend = "ref";
    FusionStage stage(config);
    Profile prof;
    const Partition p = stage.partition(first, prof);
    for (int64_t shift : {1, 3, 100}) {
      CAPTURE(shift);
      const auto moved = shifted_read(off, shift);
      CHECK(key_of(first) == key_of(moved));
      CHECK(stage.partition(moved, prof).blocks == p.blocks);
      CHECK(legality(moved, p).empty());
    }
    CHECK(prof.merge_cache_misses == 1);
    CHECK(prof.merge_cache_hits == 3);
  }
  // Shifting one view of the base and not the other changes the key.
  auto skewed = shifted_read(0, 0);
  skewed[1].in[0].view.offset += 2;
  CHECK_FALSE(key_of(skewed) == key_of(shifted_read(0, 0)));
  CHECK(key_of(skewed) == key_of(shifted_read(2, 0)));
}

TEST_CASE("the key holds the fuser, the cost model and an exact fuser's time limit") {
  const auto batch = fusion_test::fig3_batch();
  const MergeKey greedy = key_of(batch, "greedy", "bohrium");
  CHECK_FALSE(greedy == key_of(batch, "linear", "bohrium"));
  CHECK_FALSE(greedy == key_of(batch, "greedy", "max-contract"));
  CHECK_FALSE(key_of(batch, "optimal", "bohrium", 1.0) == key_of(batch, "optimal", "bohrium", 2.0));
  CHECK(greedy == key_of(batch, "greedy", "bohrium"));

  // On disk: a greedy entry is not a linear or a max-contract entry.
  cputest::TempDir dir;
  Profile prof;
  {
    FusionStage s(cache_config(dir.path(), "greedy"));
    s.partition(batch, prof);
  }
  for (const auto& [fuser, cost] : {std::pair{"linear", "bohrium"}, std::pair{"greedy", "max-contract"}}) {
    Config c = cache_config(dir.path(), fuser);
    c.cost = cost;
    FusionStage s(c);
    Profile p;
    const Partition got = s.partition(batch, p);
    CHECK(p.merge_cache_misses == 1);
    CHECK(s.cache().stats().disk_hits == 0);
    CHECK(same(got, fuse_batch(batch, c)));
  }
  FusionStage again(cache_config(dir.path(), "greedy"));
  Profile p;
  again.partition(batch, p);
  CHECK(p.merge_cache_hits == 1);
  CHECK(again.cache().stats().disk_hits == 1);
}

TEST_CASE("merge cache modes: memory writes nothing, off never hits, the LRU is bounded") {
  cputest::TempDir dir;
  const auto batch = fusion_test::fig3_batch();
  for (const CacheMode mode : {CacheMode::Memory, CacheMode::Off}) {
    CAPTURE(to_string(mode));
    Config c = cache_config(dir.path());
    c.cache = mode;
    FusionStage s(c);
    Profile p;
    s.partition(batch, p);
    s.partition(batch, p);
    CHECK(p.merge_cache_hits == (mode == CacheMode::Memory ? 1 : 0));
    CHECK(entries(dir.path()).empty());
  }
  // ARRVM_MERGE_CACHE overrides ARRVM_CACHE for the merge cache alone.
  Config c = cache_config(dir.path());
  c.merge_cache = CacheMode::Off;
  FusionStage s(c);
  Profile p;
  s.partition(batch, p);
  s.partition(batch, p);
  CHECK(p.merge_cache_misses == 2);

  MergeCache lru(CacheMode::Memory, "");
  MergeKeyBuilder builder("greedy", "bohrium", 0);
  MergeKey first, k;
  for (std::size_t i = 0; i < MergeCache::kMaxEntries + 10; ++i) {
    builder.build(axpy(1.0, 0), &k);
    k.words.push_back(i);  // a distinct key per entry
    k.hash ^= i * 0x9e3779b97f4a7c15ull;
    if (i == 0) first = k;
    lru.put(k, singleton_partition(k.instructions), false);
  }
  CHECK(lru.size() == MergeCache::kMaxEntries);
  CHECK(lru.stats().evictions == 10);
  CHECK(lru.find(first) == nullptr);  // the oldest went first
  CHECK(lru.find(k) != nullptr);
}

namespace {

struct CliRun {
  int code = -1;
  std::string out;
  nlohmann::json profile;
};

// `arrvm replay TRACE` in its own process with a profile written as JSON.
CliRun replay_process(const std::string& trace, const std::string& cache_dir, const std::string& fuser,
                      const std::string& profile_path) {
  const std::string cmd =
      "ARRVM_BACKEND=ref ARRVM_TRACE= ARRVM_MERGE_CACHE= ARRVM_CACHE=on ARRVM_CACHE_DIR='" + cache_dir +
      "' ARRVM_PROFILE='" + profile_path + "' '" + ARRVM_CLI_PATH + "' replay --fuser " + fuser + " '" +
      trace + "' 2>&1";
  CliRun r;
  FILE* p = ::popen(cmd.c_str(), "r");
  REQUIRE(p != nullptr);
  char buf[4096];
  std::size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) r.out.append(buf, n);
  const int status = ::pclose(p);
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  std::ifstream in(profile_path);
  if (in) r.profile = nlohmann::json::parse(in, nullptr, false);
  return r;
}

}  // namespace

TEST_CASE("a second process replaying the same trace gets a merge-cache hit for every batch") {
  std::vector<std::string> traces;
  for (const auto& e : fs::directory_iterator(ARRVM_TEST_DATA_DIR)) {
    if (e.path().extension() == ".trace") traces.push_back(e.path().string());
  }
  std::sort(traces.begin(), traces.end());
  REQUIRE(!traces.empty());
  for (const std::string& trace : traces) {
    for (const std::string fuser : {"linear", "greedy", "optimal"}) {
      CAPTURE(trace);
      CAPTURE(fuser);
      cputest::TempDir dir;
      const CliRun first = replay_process(trace, dir.path(), fuser, dir.path() + "/p1.json");
      INFO(first.out);
      REQUIRE(first.code == 0);
      REQUIRE(first.profile.is_object());
      CHECK(first.profile["merge_cache"]["misses"].get<uint64_t>() > 0);
      const CliRun second = replay_process(trace, dir.path(), fuser, dir.path() + "/p2.json");
      INFO(second.out);
      REQUIRE(second.code == 0);
      REQUIRE(second.profile.is_object());
      CHECK(second.profile["merge_cache"]["misses"].get<uint64_t>() == 0);
      CHECK(second.profile["merge_cache"]["hits"] == second.profile["batches"]);
      CHECK(second.profile["batches"] == first.profile["batches"]);
    }
  }
}

namespace {

// Seed 001 Fig. 3 as the body of a loop, without its SYNC D: the VM flushes
// explicitly, then D is read (its own batch) and freed (at the head of the
// next iteration's batch). The constants change with `it`, the key does
// not. Under max-contract greedy's partition costs 5 and the optimal one 3.
std::vector<int8_t> fig3_iteration(Runtime& rt, int it) {
  const DType i8 = DType::Int8;
  const BaseId A = rt.new_base(i8, 4), B = rt.new_base(i8, 4), D = rt.new_base(i8, 5), E = rt.new_base(i8, 5),
               T = rt.new_base(i8, 4);
  rt.issue(make(Opcode::Identity, view1(A, 0, 4), {c(i8, it + 1)}));
  rt.issue(make(Opcode::Identity, view1(B, 0, 4), {c(i8, 2 * it - 3)}));
  rt.issue(make(Opcode::Identity, view1(D, 0, 5), {c(i8, 5 - it)}));
  rt.issue(make(Opcode::Identity, view1(E, 0, 5), {c(i8, 3 * it)}));
  rt.issue(make(Opcode::Add, view1(A, 0, 4), {v(view1(A, 0, 4)), v(view1(D, 0, 4))}));
  rt.issue(make(Opcode::Identity, view1(A, 0, 4), {v(view1(D, 0, 4))}));
  rt.issue(make(Opcode::Add, view1(B, 0, 4), {v(view1(B, 0, 4)), v(view1(E, 0, 4))}));
  rt.issue(make(Opcode::Identity, view1(B, 0, 4), {v(view1(E, 0, 4))}));
  rt.issue(make(Opcode::Multiply, view1(T, 0, 4), {v(view1(A, 0, 4)), v(view1(B, 0, 4))}));
  rt.issue(make(Opcode::Maximum, view1(D, 1, 4), {v(view1(T, 0, 4)), v(view1(E, 1, 4))}));
  rt.issue(make(Opcode::Minimum, view1(E, 1, 4), {v(view1(T, 0, 4)), v(view1(D, 1, 4))}));
  rt.free_base(A);
  rt.free_base(B);
  rt.free_base(E);
  rt.free_base(T);
  rt.flush();
  std::vector<int8_t> d(5);
  rt.read(D, d.data(), d.size());
  rt.free_base(D);
  return d;
}

// Records the cost of every batch of more than two instructions.
struct CostRecorder : FlushObserver {
  std::string model;
  std::vector<int64_t> costs;
  void on_flush(std::span<const Instruction> batch, const Partition& partition) override {
    if (batch.size() > 2) costs.push_back(partition_cost(batch, partition, model));
  }
};

}  // namespace

TEST_CASE("anytime fusion: a repeated batch starts with greedy's partition and switches to the exact one") {
  cputest::TempDir dir;
  const int iterations = 6;
  std::vector<std::vector<int8_t>> expected;
  {
    Config ref;
    ref.backend = "ref";
    ref.fuser = "singleton";
    Runtime rt(ref);
    for (int it = 0; it < iterations; ++it) expected.push_back(fig3_iteration(rt, it));
  }
  std::vector<std::string> backends = {"ref"};
  if (std::system("cc --version > /dev/null 2>&1") == 0) backends.push_back("cpu");
  for (const std::string& backend : backends) {
    for (const std::string fuser : {"optimal", "ilp"}) {
      CAPTURE(backend);
      CAPTURE(fuser);
      Config config = cputest::config(backend, dir.path(), fuser);
      config.cost = "max-contract";
      config.merge_cache = CacheMode::Memory;
      CostRecorder rec;
      rec.model = config.cost;
      Runtime rt(config);
      REQUIRE(rt.fusion().anytime());
      rt.set_flush_observer(&rec);
      for (int it = 0; it < iterations; ++it) {
        CHECK(fig3_iteration(rt, it) == expected[it]);
        rt.fusion().wait_for_background();  // the test wants the upgrade now, not eventually
      }
      rt.set_flush_observer(nullptr);
      // Iteration 0's batch has no free of a previous D; iterations 1.. share one key.
      REQUIRE(rec.costs.size() == static_cast<std::size_t>(iterations));
      CHECK(rec.costs[0] == 5);  // greedy, while the exact solve runs
      CHECK(rec.costs[1] == 5);  // a new key: greedy again
      for (int it = 2; it < iterations; ++it) CHECK(rec.costs[it] == 3);
      const Profile& p = rt.profile();
      CHECK(p.merge_cache_upgrades >= 1);
      CHECK(p.merge_cache_misses == 2);  // the two keys above (a batch of syncs alone runs nothing)
      CHECK(p.fusion_background_s > 0);
    }
  }
  // Anytime off: the exact partition from the first flush.
  Config off = cputest::config("ref", dir.path(), "optimal");
  off.cost = "max-contract";
  off.anytime = false;
  CostRecorder rec;
  rec.model = off.cost;
  Runtime rt(off);
  CHECK_FALSE(rt.fusion().anytime());
  rt.set_flush_observer(&rec);
  for (int it = 0; it < 3; ++it) CHECK(fig3_iteration(rt, it) == expected[it]);
  rt.set_flush_observer(nullptr);
  CHECK(rec.costs == std::vector<int64_t>{3, 3, 3});
  CHECK(rt.profile().merge_cache_upgrades == 0);
}

TEST_CASE("anytime fusion, tiered: the provisional partition runs until the upgrade's kernels are compiled") {
  if (std::system("cc --version > /dev/null 2>&1") != 0) return;  // (no compiler: the cpu backend cannot run)
  cputest::TempDir dir;
  const int distinct = 20;  // iterations cycle through these values
  std::vector<std::vector<int8_t>> expected;
  {
    Config ref;
    ref.backend = "ref";
    ref.fuser = "singleton";
    Runtime rt(ref);
    for (int it = 0; it < distinct; ++it) expected.push_back(fig3_iteration(rt, it));
  }
  // Every compile takes a second more: the upgrade arrives long before its kernels.
  const std::string slow = dir.file("slow-cc");
  { std::ofstream(slow) << "#!/bin/sh\nsleep 1; exec cc \"$@\"\n"; }
  REQUIRE(std::system(("chmod +x " + slow).c_str()) == 0);
  Config config = cputest::config("cpu", dir.path(), "optimal");
  config.cost = "max-contract";
  config.tiered = true;
  config.cc = slow;
  CostRecorder rec;
  rec.model = config.cost;
  const auto start = std::chrono::steady_clock::now();
  auto seconds = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };
  {
    Runtime rt(config);
    REQUIRE(rt.fusion().anytime());
    rt.set_flush_observer(&rec);
    int it = 0;
    for (; it < 3; ++it) {
      CHECK(fig3_iteration(rt, it) == expected[it]);
      rt.fusion().wait_for_background();  // the upgrade is in the cache from iteration 2 on
    }
    // Its kernels compile for a second or more: meanwhile greedy's partition runs.
    CHECK(rec.costs == std::vector<int64_t>{5, 5, 5});
    CHECK(rt.profile().upgrades_held >= 1);
    CHECK(rt.profile().merge_cache_upgrades >= 1);
    for (; rec.costs.back() != 3 && seconds() < 60; ++it) {
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
      CHECK(fig3_iteration(rt, it % distinct) == expected[it % distinct]);
    }
    REQUIRE(rec.costs.back() == 3);  // the exact partition, once its kernels were there
    const uint64_t held = rt.profile().upgrades_held;
    for (int k = 0; k < 3; ++k, ++it) CHECK(fig3_iteration(rt, it % distinct) == expected[it % distinct]);
    CHECK(rec.costs.back() == 3);
    CHECK(rt.profile().upgrades_held == held);  // not asked again: the entry is confirmed
    rt.set_flush_observer(nullptr);
  }
  // A second Runtime on the same caches: the upgrade read from disk, its
  // kernels too, so it runs from the first flush of that batch (iteration
  // 0's batch, another key, ran only greedy's partition in the first).
  rec.costs.clear();
  Runtime rt(config);
  rt.set_flush_observer(&rec);
  for (int it = 0; it < 3; ++it) CHECK(fig3_iteration(rt, it) == expected[it]);
  rt.set_flush_observer(nullptr);
  REQUIRE(rec.costs.size() == 3);
  CHECK(rec.costs[1] == 3);
  CHECK(rec.costs[2] == 3);
}

TEST_CASE("anytime fusion survives the Runtime: a pending solve is joined, its result stored on disk") {
  cputest::TempDir dir;
  Config config = cache_config(dir.path(), "optimal");
  config.cost = "max-contract";
  const std::vector<int8_t> expected = [] {
    Config ref;
    ref.backend = "ref";
    Runtime rt(ref);
    return fig3_iteration(rt, 0);
  }();
  {
    // Destroyed at once: the background solve may still be running (ASan
    // builds check that it owns what it reads).
    Runtime rt(config);
    CHECK(fig3_iteration(rt, 0) == expected);
  }
  {
    Runtime rt(config);
    CHECK(fig3_iteration(rt, 0) == expected);
    // Finished but not yet applied by a flush: the destructor stores it.
    rt.fusion().wait_for_background();
  }
  // The next process finds the exact partition, final, for every batch.
  Config off = config;
  off.anytime = false;
  CostRecorder rec;
  rec.model = off.cost;
  Runtime rt(off);
  rt.set_flush_observer(&rec);
  CHECK(fig3_iteration(rt, 0) == expected);
  rt.set_flush_observer(nullptr);
  CHECK(rt.profile().merge_cache_misses == 0);
  CHECK(rt.profile().merge_cache_hits == 1);  // (its batch of syncs alone runs nothing)
  REQUIRE(rec.costs.size() == 1);
  CHECK(rec.costs[0] == 3);
}

TEST_CASE("arrvm replay --cache-study: no, cold, warm and hot merge cache for every fuser") {
  cputest::TempDir dir;
  const std::string trace = std::string(ARRVM_TEST_DATA_DIR) + "/fig3.trace";
  // (ARRVM_PASSES=-defer,-dead-writes,-forward-stores,-early-frees: Fig. 3 as the paper gives it, with its
  // dead writes.)
  const std::string cmd =
      "ARRVM_PASSES=-defer,-dead-writes,-forward-stores,-early-frees ARRVM_BACKEND=ref ARRVM_TRACE= "
      "ARRVM_PROFILE= "
      "ARRVM_CACHE_DIR='" +
      dir.path() + "' '" + ARRVM_CLI_PATH + "' replay '" + trace + "' --cache-study --json 2>&1";
  std::string out;
  FILE* p = ::popen(cmd.c_str(), "r");
  REQUIRE(p != nullptr);
  char buf[4096];
  std::size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
  const int status = ::pclose(p);
  INFO(out);
  REQUIRE(WIFEXITED(status));
  REQUIRE(WEXITSTATUS(status) == 0);
  const auto j = nlohmann::json::parse(out);
  CHECK(j["verified"] == true);
  CHECK(j["batches"] == 2);  // Fig. 3 flushes at SYNC D, then DEL D alone
  REQUIRE(j["rows"].size() == 6);
  for (const auto& row : j["rows"]) {
    CAPTURE(row.dump());
    CHECK(row["none"]["merge_hits"] == 0);
    CHECK(row["none"]["merge_misses"] == 2);
    CHECK(row["cold"]["merge_misses"] == 2);
    CHECK(row["warm"]["merge_hits"] == 2);
    CHECK(row["warm"]["merge_misses"] == 0);
    CHECK(row["hot"]["merge_hits"] == 2);
    CHECK(row["hot"]["merge_misses"] == 0);
    // Every cell times a real run: its fusion share is part of its total.
    for (const char* cell : {"none", "cold", "warm", "hot"}) {
      CHECK(row[cell]["total"].get<double>() > 0);
      CHECK(row[cell]["fusion"].get<double>() <= row[cell]["total"].get<double>());
    }
  }
  // The partition costs of seed 001 Fig. 3 as the VM runs it (test_replay).
  CHECK(j["rows"][0]["fuser"] == "linear");
  CHECK(j["rows"][0]["hot"]["cost"] == 62);
  CHECK(j["rows"][1]["hot"]["cost"] == 38);
  CHECK(j["rows"][2]["hot"]["cost"] == 38);
}
