// Observability end to end, through the arrvm program: the log at info, the
// replay's compile counts against the profile, ARRVM_PROFILE's values, the
// --timeline Chrome trace (valid JSON, spans nested), --dot (compact, free
// and sync hidden, large batches collapsed, SVG when Graphviz is present),
// the --fusers x --backends table, `arrvm info`'s validation, and
// `arrvm bench --json/--csv` with bench/plot.py.
#include <doctest/doctest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "arrvm/arrvm.hpp"
#include "engine/runtime.hpp"
#include "tests/cpu_test_util.hpp"
#include "vm/config.hpp"
#include "vm/error.hpp"
#include "vm/timeline.hpp"

namespace {

namespace fs = std::filesystem;
using arrvm::Array;
using arrvm::DType;
using arrvm::Vm;

using cputest::TempDir;

struct Run {
  int code = -1;
  std::string out;  // stdout
  std::string err;  // stderr
};

// Runs `env ... arrvm args` with the user's ARRVM_* settings cleared.
Run run_cli(const TempDir& dir, const std::string& env, const std::string& args) {
  const std::string err_file = dir.file("stderr.txt");
  const std::string cmd =
      "env -u ARRVM_LOG -u ARRVM_PROFILE -u ARRVM_TRACE -u ARRVM_FUSER -u ARRVM_BACKEND "
      "-u ARRVM_CACHE -u ARRVM_MERGE_CACHE ARRVM_CACHE_DIR='" +
      dir.file("cache") + "' " + env + " '" + ARRVM_CLI_PATH + "' " + args + " 2>'" + err_file + "'";
  Run r;
  FILE* p = ::popen(cmd.c_str(), "r");
  REQUIRE(p != nullptr);
  char buf[4096];
  std::size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) r.out.append(buf, n);
  const int status = ::pclose(p);
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  std::ifstream e(err_file);
  std::stringstream ss;
  ss << e.rdbuf();
  r.err = ss.str();
  return r;
}

// A small program, recorded on ref: three batches (one sync each), with a
// reduction, a scan and temporaries that greedy fuses.
std::string record_small(const TempDir& dir) {
  const std::string path = dir.file("small.trace");
  Vm vm({{"backend", "ref"}, {"trace", path}});
  const Array x = Array::arange(1000, DType::Float64, vm);
  const Array y = (x * 2.0 + 1.0) * (x - 3.0);
  CHECK(y.sum().item<double>() != 0.0);
  CHECK(x.cumsum().to_vector<double>().back() == 499500.0);
  const Array z = arrvm::sqrt(x + 0.1) / 2.0;
  CHECK(z.max().item<double>() > 0.0);
  return path;
}

// One batch of more than 60 instructions (a long chain on small arrays).
std::string record_large(const TempDir& dir) {
  const std::string path = dir.file("large.trace");
  Vm vm({{"backend", "ref"}, {"trace", path}});
  Array a = Array::arange(16, DType::Float64, vm);
  Array b = Array::ones({16}, DType::Float64, vm);
  for (int i = 0; i < 40; ++i) {
    a = a * 1.5 + b;
    if (i % 10 == 9) b = a.sum() + b;  // a reduction: several blocks
  }
  CHECK(a.to_vector<double>().size() == 16);
  return path;
}

nlohmann::json parse(const std::string& s) {
  const nlohmann::json j = nlohmann::json::parse(s, nullptr, false);
  REQUIRE_MESSAGE(!j.is_discarded(), "not JSON: " << s);
  return j;
}

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace

TEST_CASE(
    "observe: ARRVM_PROFILE takes 1/true/on for stderr and a value as a path only if it looks like one") {
  arrvm::Config c;
  for (const char* on : {"1", "true", "on", "yes", "TRUE", "stderr"}) {
    c.set("profile", on);
    CHECK(c.profile == "1");
  }
  for (const char* off : {"", "0", "false", "off", "no"}) {
    c.set("profile", off);
    CHECK(c.profile.empty());
  }
  c.set("profile", "out.json");
  CHECK(c.profile == "out.json");
  c.set("profile", "/tmp/p");
  CHECK(c.profile == "/tmp/p");
  CHECK_THROWS_WITH_AS(c.set("profile", "maybe"), doctest::Contains("neither"), arrvm::Error);
}

TEST_CASE(
    "observe: ARRVM_LOG=info logs the backend, each flush and each compile; replay counts compiles as the "
    "profile") {
  TempDir dir;
  const std::string trace = record_small(dir);
  // Cold kernel cache (a fresh ARRVM_CACHE_DIR).
  const Run cold = run_cli(
      dir,
      "ARRVM_BACKEND=cpu ARRVM_FUSER=greedy ARRVM_LOG=info ARRVM_PROFILE='" + dir.file("cold.json") + "'",
      "replay '" + trace + "' --json");
  INFO(cold.err);
  REQUIRE(cold.code == 0);
  CHECK(cold.err.find("[arrvm info] VM: backend cpu, fuser greedy") != std::string::npos);
  CHECK(cold.err.find("[arrvm info] flush #0: ") != std::string::npos);
  CHECK(cold.err.find("[arrvm info] flush #2: ") != std::string::npos);
  CHECK(cold.err.find("blocks, cost ") != std::string::npos);
  CHECK(cold.err.find("[arrvm info] cpu: compiled 1 kernel in ") != std::string::npos);
  const nlohmann::json report = parse(cold.out);
  const nlohmann::json profile = parse(read_file(dir.file("cold.json")));
  const uint64_t compiled = profile["kernels"]["compiled"].get<uint64_t>();
  CHECK(compiled > 0);
  CHECK(report["kernels_compiled"].get<uint64_t>() == compiled);
  CHECK(report["time"]["compile"].get<double>() > 0.0);
  CHECK(report["time"]["compile"].get<double>() <= profile["time"]["compile"].get<double>() + 1e-9);
  // One "compiled" line per compile.
  std::size_t lines = 0;
  for (std::size_t at = 0; (at = cold.err.find("cpu: compiled ", at)) != std::string::npos; ++at) ++lines;
  CHECK(lines == compiled);

  // Warm: the same trace compiles nothing, and says so.
  const Run warm = run_cli(dir, "ARRVM_BACKEND=cpu ARRVM_PROFILE='" + dir.file("warm.json") + "'",
                           "replay '" + trace + "' --json");
  REQUIRE(warm.code == 0);
  CHECK(parse(warm.out)["kernels_compiled"].get<uint64_t>() == 0);
  CHECK(parse(read_file(dir.file("warm.json")))["kernels"]["compiled"].get<uint64_t>() == 0);
  CHECK(warm.err.empty());  // default level warn: nothing to say

  // The text report agrees.
  const Run text = run_cli(dir, "ARRVM_BACKEND=cpu ARRVM_CACHE=off", "replay '" + trace + "'");
  REQUIRE(text.code == 0);
  CHECK(text.out.find(std::to_string(compiled) + " kernels compiled") != std::string::npos);
}

TEST_CASE("observe: --timeline writes a Chrome trace whose spans nest") {
  TempDir dir;
  const std::string trace = record_small(dir);
  const Run r = run_cli(dir, "ARRVM_BACKEND=cpu ARRVM_CACHE=off",
                        "replay '" + trace + "' --json --timeline '" + dir.file("t.json") + "'");
  INFO(r.err);
  REQUIRE(r.code == 0);
  const nlohmann::json report = parse(r.out);
  const nlohmann::json doc = parse(read_file(dir.file("t.json")));
  REQUIRE(doc.contains("traceEvents"));
  struct Span {
    std::string name;
    double ts, end;
    int tid;
  };
  std::vector<Span> spans;
  for (const nlohmann::json& e : doc["traceEvents"]) {
    REQUIRE(e.contains("ph"));
    if (e["ph"] == "M") continue;
    REQUIRE(e["ph"] == "X");
    REQUIRE(e["ts"].is_number());
    REQUIRE(e["dur"].is_number());
    CHECK(e["dur"].get<double>() >= 0.0);
    spans.push_back({e["name"].get<std::string>(), e["ts"].get<double>(),
                     e["ts"].get<double>() + e["dur"].get<double>(), e["tid"].get<int>()});
  }
  // A kernel span names its block (within its batch's), the block's
  // instruction count and the iterations.
  int64_t max_blocks = 0;
  for (const nlohmann::json& e : doc["traceEvents"]) {
    if (e["name"] == "batch" && e.contains("args") && e["args"].contains("blocks")) {
      max_blocks = std::max(max_blocks, e["args"]["blocks"].get<int64_t>());
    }
  }
  for (const nlohmann::json& e : doc["traceEvents"]) {
    if (e["name"] != "kernel") continue;
    REQUIRE(e.contains("args"));
    const nlohmann::json& a = e["args"];
    REQUIRE(a.contains("block"));
    REQUIRE(a.contains("instructions"));
    REQUIRE(a.contains("elements"));
    CHECK(a["block"].get<int64_t>() >= 0);
    CHECK(a["block"].get<int64_t>() < max_blocks);
    CHECK(a["instructions"].get<int64_t>() >= 1);
    CHECK(a["elements"].get<int64_t>() >= 1);
  }
  std::map<std::string, int> count;
  for (const Span& s : spans) ++count[s.name];
  // Batches: the report's, plus the one that frees what the trace left live.
  CHECK(count["batch"] >= static_cast<int>(report["batches"].size()));
  CHECK(count["fusion"] == count["batch"]);
  CHECK(count["execute"] == count["batch"]);
  CHECK(count["compile"] == static_cast<int>(report["kernels_compiled"].get<uint64_t>()));
  CHECK(count["kernel"] > 0);
  CHECK(count["codegen"] > 0);
  // ARRVM_CACHE=off: every batch misses the merge cache, so every batch
  // builds its graph and runs the fuser, inside its fusion span.
  CHECK(count["graph"] == count["batch"]);
  CHECK(count["fuse"] == count["batch"]);
  // Every span but a batch lies inside a batch on its thread; compile,
  // codegen and kernel spans inside an execute span.
  auto inside = [&](const Span& s, const char* parent) {
    for (const Span& p : spans) {
      if (p.name == parent && p.tid == s.tid && p.ts <= s.ts + 1e-3 && s.end <= p.end + 1e-3) return true;
    }
    return false;
  };
  for (const Span& s : spans) {
    CAPTURE(s.name);
    if (s.name != "batch") CHECK(inside(s, "batch"));
    if (s.name == "compile" || s.name == "codegen" || s.name == "kernel") CHECK(inside(s, "execute"));
    if (s.name == "graph" || s.name == "fuse") CHECK(inside(s, "fusion"));
  }
}

TEST_CASE("observe: a batch's fusion span is named for what happened: fused, or a merge cache hit") {
  cputest::TempDir dir;
  arrvm::Config c = cputest::config("ref", dir.path());
  c.cache = arrvm::CacheMode::Memory;
  arrvm::Timeline timeline;
  arrvm::Runtime rt(c);
  rt.profile().timeline = &timeline;
  const arrvm::BaseId a = rt.new_base(DType::Float64, 8);
  for (int i = 0; i < 3; ++i) {  // the same batch three times: a miss, then hits
    arrvm::Instruction fill;
    fill.op = arrvm::Opcode::Identity;
    fill.out = arrvm::make_view(a, 0, {8}, {1});
    fill.add_input(arrvm::Operand::of(arrvm::Scalar::of_double(DType::Float64, 1.0)));
    rt.issue(fill);
    rt.flush();
  }
  std::map<std::string, int> count;
  for (const arrvm::Timeline::Event& e : timeline.events()) ++count[e.name];
  CHECK(count["fusion"] == 1);
  CHECK(count["merge cache hit"] == 2);
  CHECK(rt.profile().merge_cache_hits == 2);
}

TEST_CASE("observe: --dot writes compact graphs, collapses large batches and renders SVG with Graphviz") {
  TempDir dir;
  const std::string small = record_small(dir);
  const std::string large = record_large(dir);
  const Run r1 = run_cli(dir, "ARRVM_BACKEND=ref ARRVM_FUSER=greedy",
                         "replay '" + small + "' --dot '" + dir.file("small") + "'");
  REQUIRE(r1.code == 0);
  const std::string g = read_file(dir.file("small/batch_0000.dot"));
  CHECK(g.find("= multiply(b") != std::string::npos);  // compact label: op and base names
  CHECK(g.find("tooltip=") != std::string::npos);      // the full views
  CHECK(g.find("= sync(") == std::string::npos);       // free and sync nodes hidden
  CHECK(g.find("= free(") == std::string::npos);
  std::string all;
  for (const auto& f : fs::directory_iterator(dir.file("small"))) {
    if (f.path().extension() == ".dot") all += read_file(f.path().string());
  }
  CHECK(all.find(", 0.1)") != std::string::npos);  // constants as short as they read back
  // No dangling node (an edge's ends are declared nodes) and no repeated edge.
  std::size_t declared = 0;
  for (const auto& f : fs::directory_iterator(dir.file("small"))) {
    if (f.path().extension() != ".dot") continue;
    std::set<std::string> nodes;
    std::set<std::pair<std::string, std::string>> edges;
    std::istringstream lines(read_file(f.path().string()));
    for (std::string line; std::getline(lines, line);) {
      std::istringstream w(line);
      std::string a, arrow, b;
      w >> a >> arrow;
      if (arrow == "->") {
        w >> b;
        if (!b.empty() && b.back() == ';') b.pop_back();
        CHECK(edges.insert({a, b}).second);
        CAPTURE(line);
        CHECK(nodes.count(a) == 1);
        CHECK(nodes.count(b) == 1);
      } else if (arrow.rfind("[label=", 0) == 0) {
        nodes.insert(a);
      }
    }
    declared += nodes.size();
  }
  CHECK(declared > 0);
  const Run r2 = run_cli(dir, "ARRVM_BACKEND=ref ARRVM_FUSER=greedy",
                         "replay '" + large + "' --dot '" + dir.file("large") + "'");
  REQUIRE(r2.code == 0);
  const std::string l = read_file(dir.file("large/batch_0000.dot"));
  CHECK(l.find("one node per block") != std::string::npos);
  CHECK(l.find(" instructions\\n") != std::string::npos);
  CHECK(l.find("  i") == std::string::npos);  // no instruction nodes
  if (std::system("command -v dot >/dev/null 2>&1") == 0) {
    const std::string svg = read_file(dir.file("large/batch_0000.svg"));
    CHECK(svg.find("<svg") != std::string::npos);
    CHECK(fs::exists(dir.file("small/batch_0000.svg")));
  } else {
    MESSAGE("Graphviz is not installed: SVG rendering not checked");
  }
}

TEST_CASE("observe: replay --fusers x --backends prints one verified row per combination") {
  TempDir dir;
  const std::string trace = record_small(dir);
  const Run r = run_cli(dir, "ARRVM_CACHE=memory",
                        "replay '" + trace + "' --fusers singleton,greedy --backends ref,cpu");
  INFO(r.out, r.err);
  REQUIRE(r.code == 0);
  CHECK(r.out.find("all 4 combinations verified") != std::string::npos);
  std::map<std::string, double> cost;
  std::istringstream lines(r.out);
  std::string line;
  int rows = 0;
  while (std::getline(lines, line)) {
    std::istringstream w(line);
    std::string backend, fuser, batches, c;
    w >> backend >> fuser >> batches >> c;
    if ((backend != "ref" && backend != "cpu") || (fuser != "singleton" && fuser != "greedy")) continue;
    ++rows;
    CHECK(line.find("verified") != std::string::npos);
    cost[backend + "/" + fuser] = std::stod(c);
  }
  CHECK(rows == 4);
  CHECK(cost["ref/greedy"] < cost["ref/singleton"]);
  CHECK(cost["cpu/greedy"] == cost["ref/greedy"]);  // the partition does not depend on the backend
  const Run j = run_cli(dir, "ARRVM_CACHE=memory",
                        "replay '" + trace + "' --fusers singleton,greedy --backends ref --json");
  REQUIRE(j.code == 0);
  const nlohmann::json rowsj = parse(j.out);
  REQUIRE(rowsj.size() == 2);
  for (const nlohmann::json& x : rowsj) CHECK(x["verified"].get<bool>());
  // A fuser that does not exist is an error row, and the exit code says so.
  const Run bad =
      run_cli(dir, "ARRVM_CACHE=memory", "replay '" + trace + "' --fusers greedy,nosuch --backends ref");
  CHECK(bad.code == 1);
  CHECK(bad.out.find("ERROR") != std::string::npos);
}

TEST_CASE("observe: arrvm info validates the configuration it prints") {
  TempDir dir;
  const Run ok = run_cli(dir, "ARRVM_BACKEND=ref", "info");
  CHECK(ok.code == 0);
  CHECK(ok.out.find("ARRVM_BACKEND=ref") != std::string::npos);
  const Run fuser = run_cli(dir, "ARRVM_FUSER=nosuch", "info");
  CHECK(fuser.code == 2);
  CHECK(fuser.out.find("ARRVM_FUSER") != std::string::npos);
  CHECK(fuser.out.find("nosuch") != std::string::npos);
  const Run cc = run_cli(dir, "ARRVM_BACKEND=cpu ARRVM_CC=/nonexistent/cc", "info");
  CHECK(cc.code == 2);
  CHECK(cc.out.find("ARRVM_CC") != std::string::npos);
  const Run profile = run_cli(dir, "ARRVM_PROFILE=maybe", "info");
  CHECK(profile.code == 2);
  CHECK((profile.out + profile.err).find("ARRVM_PROFILE") != std::string::npos);
}

TEST_CASE("observe: arrvm bench --json/--csv, and bench/plot.py draws them") {
  TempDir dir;
  const Run r = run_cli(dir, "",
                        "bench leibnitz_pi --size tiny --fusers singleton,greedy --backends ref --json '" +
                            dir.file("b.json") + "' --csv '" + dir.file("b.csv") + "'");
  INFO(r.out, r.err);
  REQUIRE(r.code == 0);
  const nlohmann::json doc = parse(read_file(dir.file("b.json")));
  REQUIRE(doc["rows"].size() == 2);
  for (const nlohmann::json& row : doc["rows"]) {
    CHECK(row["program"] == "leibnitz_pi");
    CHECK(row["status"] == "ok");
    CHECK(row["speedup"].get<double>() > 0.0);
    CHECK(row["time_min_s"].get<double>() <= row["time_s"].get<double>() * (1 + 1e-12));
    CHECK(row["time_max_s"].get<double>() >= row["time_s"].get<double>() * (1 - 1e-12));
  }
  // The table: times with four significant digits (no 0.000), the spread and the noise note.
  CHECK(r.out.find("spread") != std::string::npos);
  CHECK(r.out.find("tens of percent") != std::string::npos);
  CHECK(r.out.find(" 0.000 ") == std::string::npos);
  const std::string csv = read_file(dir.file("b.csv"));
  CHECK(csv.rfind("program,n,iterations,backend,fuser,status,", 0) == 0);
  CHECK(std::count(csv.begin(), csv.end(), '\n') == 3);
  if (std::system("/usr/bin/python3 -c 'import matplotlib' >/dev/null 2>&1") != 0) {
    MESSAGE("matplotlib is not installed: bench/plot.py not checked");
    return;
  }
  const std::string cmd = std::string("/usr/bin/python3 '") + ARRVM_SOURCE_DIR + "/bench/plot.py' '" +
                          dir.file("b.json") + "' -o '" + dir.file("b.png") + "' >/dev/null";
  REQUIRE(std::system(cmd.c_str()) == 0);
  const std::string png = read_file(dir.file("b.png"));
  CHECK(png.size() > 1000);
  CHECK(png.compare(1, 3, "PNG") == 0);
}
