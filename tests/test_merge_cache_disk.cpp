// The merge cache's disk entries (cache/merge_cache, engine/fusion_stage):
// corrupt entries are rebuilt, an illegal partition is never run, entries
// carry the stamp of the fusion rules they were made under (another stamp is
// checked once, then restamped; an earlier format is replaced quietly) and
// concurrent writers leave the directory readable.
#include <doctest/doctest.h>
#include <sys/wait.h>
#include <unistd.h>

#include "engine/fusion_stage.hpp"
#include "testing/random_program.hpp"
#include "tests/cpu_test_util.hpp"
#include "tests/merge_cache_test_util.hpp"

using namespace mc_test;  // tests only

namespace {

// A first process: fig3's batch fused into an empty cache directory, which
// then holds exactly one entry (*file). Returns the partition.
Partition first_run(const Config& config, fs::path* file) {
  Partition p;
  {
    FusionStage s(config);
    Profile prof;
    p = s.partition(fusion_test::fig3_batch(), prof);
    CHECK(prof.merge_cache_misses == 1);
    CHECK(s.cache().stats().disk_writes == 1);
  }
  const std::vector<fs::path> files = entries(config.cache_dir);
  REQUIRE(files.size() == 1);
  *file = files[0];
  return p;
}

}  // namespace

TEST_CASE("a corrupt or truncated cache file is ignored with a warning and rebuilt") {
  cputest::TempDir dir;
  const Config config = cache_config(dir.path());
  const auto batch = fusion_test::fig3_batch();
  std::vector<fs::path> files(1);
  const Partition expected = first_run(config, &files[0]);
  const std::string good = read_all(files[0]);
  REQUIRE(good.size() > 200);
  std::string flipped = good;
  flipped[good.size() / 2] ^= 0x40;
  const std::vector<std::pair<const char*, std::string>> damage = {
      {"truncated", good.substr(0, good.size() / 2)},
      {"one byte flipped", flipped},
      {"empty", ""},
      {"not an entry", "hello, world\n"},
      {"checksum cut", good.substr(0, good.size() - 10)},
  };
  for (const auto& [what, data] : damage) {
    CAPTURE(what);
    write_all(files[0], data);
    LogCapture log;
    {
      FusionStage s(config);
      Profile p;
      const Partition got = s.partition(batch, p);
      CHECK(p.merge_cache_misses == 1);
      CHECK(s.cache().stats().corrupt == 1);
      CHECK(same(got, expected));
    }
    CHECK(log.text().find("merge cache: ignoring") != std::string::npos);
    // Rebuilt: a new process hits it again.
    CHECK(read_all(files[0]) == good);
    FusionStage s(config);
    Profile p;
    CHECK(same(s.partition(batch, p), expected));
    CHECK(p.merge_cache_hits == 1);
  }
}

TEST_CASE("a legal-looking but illegal partition on disk is never run") {
  // A cache directory written by a build with other fusibility rules: the
  // entry's checksum is fine, but its partition is not legal for the batch.
  cputest::TempDir dir;
  const Config config = cache_config(dir.path());
  const auto batch = shifted_read(2);
  const MergeKey k = key_of(batch, config.fuser, config.cost);
  {
    MergeCache cache(CacheMode::On, dir.path());
    Partition one_block;
    one_block.blocks = {{0, 1}};
    cache.put(k, one_block, false);
  }
  LogCapture log;
  FusionStage s(config);
  Profile p;
  const Partition got = s.partition(batch, p);
  CHECK(p.merge_cache_misses == 1);
  CHECK(got.blocks.size() == 2);
  CHECK(legality(batch, got).empty());
  CHECK(log.text().find("illegal partition") != std::string::npos);
}

TEST_CASE("an entry of these fusion rules is trusted; one of other rules is checked once and restamped") {
  cputest::TempDir dir;
  const Config config = cache_config(dir.path());
  const auto batch = fusion_test::fig3_batch();
  std::vector<fs::path> files(1);
  const Partition expected = first_run(config, &files[0]);
  const std::string ours = read_all(files[0]);
  {  // Written by this build: a disk hit that is not foreign (not checked).
    FusionStage s(config);
    Profile p;
    CHECK(same(s.partition(batch, p), expected));
    CHECK(p.merge_cache_hits == 1);
    CHECK(s.cache().stats().disk_hits == 1);
    CHECK(s.cache().stats().foreign == 0);
  }
  // The same legal partition under another stamp (another build).
  const MergeKey k = key_of(batch, config.fuser, config.cost);
  {
    MergeCache other(CacheMode::On, dir.path(), 0x1234);
    other.put(k, expected, false);
  }
  const std::string theirs = read_all(files[0]);
  REQUIRE(theirs != ours);
  {
    FusionStage s(config);
    Profile p;
    CHECK(same(s.partition(batch, p), expected));
    CHECK(p.merge_cache_hits == 1);
    CHECK(s.cache().stats().foreign == 1);
  }
  CHECK(read_all(files[0]) == ours);  // restamped: checked once
  FusionStage s(config);
  Profile p;
  CHECK(same(s.partition(batch, p), expected));
  CHECK(s.cache().stats().foreign == 0);
}

TEST_CASE("an entry of an earlier format is replaced without a warning") {
  cputest::TempDir dir;
  const Config config = cache_config(dir.path());
  const auto batch = fusion_test::fig3_batch();
  std::vector<fs::path> files(1);
  const Partition expected = first_run(config, &files[0]);
  const std::string good = read_all(files[0]);
  REQUIRE(good.compare(0, 8, "ARRVMMC2") == 0);
  std::string old = good;
  old[7] = '1';
  write_all(files[0], old);
  LogCapture log;
  {
    FusionStage s(config);
    Profile p;
    CHECK(same(s.partition(batch, p), expected));
    CHECK(p.merge_cache_misses == 1);
    CHECK(s.cache().stats().corrupt == 0);
  }
  CHECK(log.text().find("merge cache") == std::string::npos);
  CHECK(read_all(files[0]) == good);
}

TEST_CASE("values are right when the cache file under a Runtime is corrupt") {
  cputest::TempDir dir;
  // y = range(8) * alpha + 1, through a temporary.
  auto run = [&](double alpha, Profile* prof) {
    Runtime rt(cache_config(dir.path()));
    const BaseId x = rt.new_base(f64, 8), t = rt.new_base(f64, 8), y = rt.new_base(f64, 8);
    rt.issue(make(Opcode::Range, view1(x, 0, 8)));
    rt.issue(make(Opcode::Multiply, view1(t, 0, 8), {v(view1(x, 0, 8)), cf(alpha)}));
    rt.issue(make(Opcode::Add, view1(y, 0, 8), {v(view1(t, 0, 8)), cf(1)}));
    rt.free_base(t);
    std::vector<double> out(8);
    rt.read(y, out.data(), out.size() * sizeof(double));
    *prof = rt.profile();
    return out;
  };
  Profile p;
  run(2.0, &p);
  CHECK(p.merge_cache_misses == p.batches);
  for (const fs::path& f : entries(dir.path())) write_all(f, read_all(f).substr(0, 40));
  const std::vector<double> y = run(3.0, &p);
  CHECK(p.merge_cache_misses == p.batches);
  for (int i = 0; i < 8; ++i) CHECK(y[i] == 3.0 * i + 1);
  const std::vector<double> z = run(-1.0, &p);
  CHECK(p.merge_cache_hits == p.batches);
  for (int i = 0; i < 8; ++i) CHECK(z[i] == -1.0 * i + 1);
}

namespace {

testing::RandomProgram concurrent_program(uint64_t seed) {
  testing::RandomProgramOptions o;
  o.min_instructions = 10;
  o.max_instructions = 40;
  return testing::random_program(seed, o);
}

// What a child process does: fresh stages (cold memory, shared directory)
// over the same programs. Exit status: 0 all well, else what went wrong.
int hammer(const std::string& dir, int programs) {
  try {
    for (int round = 0; round < 3; ++round) {
      FusionStage s(cache_config(dir));
      Profile p;
      for (int seed = 0; seed < programs; ++seed) {
        const testing::RandomProgram prog = concurrent_program(seed);
        const Partition part = s.partition(prog.batch, p);
        if (!legality(prog.batch, part).empty()) return 3;
      }
      if (s.cache().stats().corrupt != 0) return 4;
    }
  } catch (...) {
    return 5;
  }
  return 0;
}

}  // namespace

TEST_CASE("two processes writing one cache directory at once leave it readable") {
  cputest::TempDir dir;
  const int programs = 60;
  pid_t pids[2];
  for (pid_t& pid : pids) {
    pid = ::fork();
    REQUIRE(pid >= 0);
    if (pid == 0) ::_exit(hammer(dir.path(), programs));
  }
  for (pid_t pid : pids) {
    int status = 0;
    REQUIRE(::waitpid(pid, &status, 0) == pid);
    CHECK(WIFEXITED(status));
    CHECK(WEXITSTATUS(status) == 0);
  }
  for (const fs::path& f : entries(dir.path())) CHECK(f.string().find(".tmp.") == std::string::npos);
  FusionStage s(cache_config(dir.path()));
  Profile p;
  for (int seed = 0; seed < programs; ++seed) {
    const testing::RandomProgram prog = concurrent_program(seed);
    CHECK(same(s.partition(prog.batch, p), fuse_batch(prog.batch, cache_config(dir.path()))));
  }
  CHECK(s.cache().stats().corrupt == 0);
  CHECK(p.merge_cache_misses == 0);
  CHECK(p.merge_cache_hits == static_cast<uint64_t>(programs));
}
