// The rewrite pipeline (rewrite/pipeline.hpp, rewrite/passes.def): the
// ARRVM_PASSES list, the registry, the profile's counts by pass, and each
// pass alone, all of them and none of them on random streams against ref
// with no passes (the bytes of every read and every base held at the end).
#include <doctest/doctest.h>

#include <cstdlib>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "engine/runtime.hpp"
#include "rewrite/pipeline.hpp"
#include "testing/random_program.hpp"
#include "tests/cpu_test_util.hpp"
#include "vm/error.hpp"

namespace {

// The stream of `p` issued one instruction at a time, each of its syncs a
// read; every read's bytes ("error" for a poisoned base), then every base
// held at the end. `fired` gets the profile's count of each pass.
std::vector<std::string> run_stream(const arrvm::testing::RandomProgram& p, arrvm::Config cfg,
                                    std::map<std::string, uint64_t>* fired) {
  arrvm::Runtime rt(cfg);
  for (const arrvm::testing::BaseSpec& b : p.bases) {
    REQUIRE(rt.new_base(b.dtype, b.nelem) == b.id);
    if (!b.data.empty()) rt.write(b.id, b.data.data(), b.data.size());
  }
  std::vector<std::string> seen;
  auto read = [&](arrvm::BaseId id) {
    const arrvm::BaseInfo* info = rt.bases().find(id);
    if (info == nullptr) return;
    std::string bytes(static_cast<std::size_t>(info->nelem) * arrvm::dtype_size(info->dtype), '\0');
    try {
      rt.read(id, bytes.data(), bytes.size());
      seen.push_back(bytes);
    } catch (const arrvm::Error&) {
      seen.push_back("error");
    }
  };
  for (const arrvm::Instruction& in : p.batch) {
    if (in.op == arrvm::Opcode::Sync) {
      read(in.out.base);
    } else {
      rt.issue(in);
    }
  }
  for (const arrvm::testing::BaseSpec& b : p.bases) read(b.id);
  if (fired != nullptr) {
    for (const arrvm::PassInfo& pass : arrvm::pass_registry())
      (*fired)[pass.name] += rt.profile().pass(pass.name);
  }
  return seen;
}

}  // namespace

TEST_CASE("passes: ARRVM_PASSES reads left to right, every pass on by default") {
  arrvm::Config c;
  CHECK(c.pass_on("cse"));
  c.set("passes", "default,-cse");
  CHECK_FALSE(c.pass_on("cse"));
  CHECK(c.pass_on("defer"));
  c.set("passes", "none,+cse");
  CHECK(c.pass_on("cse"));
  CHECK_FALSE(c.pass_on("defer"));
  c.set("passes", "-cse,cse");
  CHECK(c.pass_on("cse"));
  c.set("passes", "none,lanes,default,-lanes");
  CHECK(c.pass_on("defer"));
  CHECK_FALSE(c.pass_on("lanes"));
  CHECK(c.pass_names() == std::vector<std::string>{"lanes", "lanes"});
  for (const char* bad : {"default,", ",cse", "cse,,lanes", "CSE", "+", "cse;lanes"}) {
    CAPTURE(bad);
    CHECK_THROWS_WITH_AS(c.set("passes", bad), doctest::Contains("ARRVM_PASSES"), arrvm::Error);
  }
}

TEST_CASE("passes: a name not in the registry stops the VM with the list of passes") {
  const cputest::TempDir dir;
  arrvm::Config c = cputest::config("ref", dir.path());
  c.passes = "default,-cs";
  CHECK_THROWS_WITH_AS(arrvm::Runtime{c},
                       doctest::Contains("names no pass 'cs' (the passes: defer, dead-writes"), arrvm::Error);
}

TEST_CASE("passes: the registry's names are unique, each batch pass has a run function") {
  std::set<std::string> names;
  for (const arrvm::PassInfo& p : arrvm::pass_registry()) {
    CAPTURE(p.name);
    CHECK(names.insert(p.name).second);
    CHECK((p.run != nullptr) == (p.stage != arrvm::PassStage::Backend));
    CHECK(std::string(p.summary).size() > 20);
  }
  CHECK(names.size() <= static_cast<std::size_t>(arrvm::Profile::kMaxPasses));
}

TEST_CASE("passes: a variable of the passes before ARRVM_PASSES is reported, not read") {
  ::setenv("ARRVM_CSE", "off", 1);
  std::vector<std::string> problems;
  const arrvm::Config c = arrvm::Config::from_env(&problems);
  ::unsetenv("ARRVM_CSE");
  CHECK(c.pass_on("cse"));
  REQUIRE(problems.size() == 1);
  CHECK(problems[0].find("ARRVM_PASSES=default,-cse") != std::string::npos);
}

TEST_CASE("passes: the profile counts each pass by its name, in text and JSON") {
  const cputest::TempDir dir;
  arrvm::Runtime rt(cputest::config("ref", dir.path()));
  const std::string json = rt.profile().to_json(), text = rt.profile().to_text();
  for (const arrvm::PassInfo& p : arrvm::pass_registry()) {
    CAPTURE(p.name);
    CHECK(json.find(std::string("\"") + p.name + "\": 0") != std::string::npos);
    CHECK(text.find(std::string(p.name) + " 0") != std::string::npos);
  }
}

// Each pass alone, all and none, on random streams with syncs: the bytes of
// ref with no passes. The counts say which passes the streams exercised.
TEST_CASE("passes: each pass alone, all and none equal ref without passes on random streams") {
  const cputest::TempDir dir;
  const int programs = std::getenv("ARRVM_TEST_FULL") != nullptr ? 600 : 120;
  std::vector<std::string> lists = {"none", "default"};
  for (const arrvm::PassInfo& p : arrvm::pass_registry()) lists.push_back(std::string("none,+") + p.name);
  std::map<std::string, std::map<std::string, uint64_t>> fired;  // list -> pass -> count
  for (int k = 0; k < programs; ++k) {
    const uint64_t seed = 43000 + static_cast<uint64_t>(k);
    arrvm::testing::RandomProgramOptions po;
    po.max_instructions = 30;
    po.p_sync = 0.15;
    const arrvm::testing::RandomProgram p = arrvm::testing::random_program(seed, po);
    CAPTURE(seed);
    arrvm::Config want_cfg = cputest::config("ref", dir.path());
    want_cfg.passes = "none";
    const std::vector<std::string> want = run_stream(p, want_cfg, nullptr);
    for (const std::string& list : lists) {
      CAPTURE(list);
      // cpu for every fourth program (compiles), ref for the rest.
      arrvm::Config cfg = cputest::config(k % 4 == 0 ? "cpu" : "ref", dir.path());
      cfg.passes = list + (k % 4 == 0 ? ",-vector-math" : "");
      cfg.defer_every_site = k % 2 == 0;
      CHECK(run_stream(p, cfg, &fired[list]) == want);
    }
  }
  for (const auto& [name, count] : fired["none"]) CHECK(count == 0);
  std::string counts;
  for (const arrvm::PassInfo& p : arrvm::pass_registry()) {
    counts += std::string(" ") + p.name + " " +
              std::to_string(fired[std::string("none,+") + p.name][p.name]) + "/" +
              std::to_string(fired["default"][p.name]);
  }
  MESSAGE("fired alone/with all:" << counts);
  CHECK(fired["default"]["defer"] > 0);
  CHECK(fired["default"]["dead-writes"] > 0);
  CHECK(fired["default"]["pull-gathers"] > 0);
}
