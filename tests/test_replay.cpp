// `arrvm replay` end to end: record a small program through a Runtime, replay
// the trace with the CLI binary, then corrupt it and check the report.
#include <doctest/doctest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "engine/runtime.hpp"
#include "tests/cpu_test_util.hpp"
#include "vm/config.hpp"
#include "vm/trace.hpp"

namespace {

using arrvm::DType;
using arrvm::Instruction;
using arrvm::Opcode;
using arrvm::Operand;
using arrvm::Scalar;
using arrvm::View;

namespace fs = std::filesystem;

using cputest::TempDir;

struct RunResult {
  int code = -1;
  std::string out;  // stdout and stderr together
};

// Runs the CLI under the ref backend with caches kept out of the user's home.
RunResult run_cli(const TempDir& dir, const std::string& args, const std::string& env = "") {
  const std::string cmd =
      env + "ARRVM_BACKEND=ref ARRVM_TRACE= ARRVM_PROFILE= ARRVM_CACHE=memory ARRVM_CACHE_DIR='" +
      dir.file("cache") + "' '" + ARRVM_CLI_PATH + "' " + args + " 2>&1";
  RunResult r;
  FILE* p = ::popen(cmd.c_str(), "r");
  REQUIRE(p != nullptr);
  char buf[4096];
  std::size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) r.out.append(buf, n);
  const int status = ::pclose(p);
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

View full(arrvm::BaseId base, int64_t n) {
  View v;
  v.base = base;
  v.shape = {n};
  v.stride = {1};
  return v;
}

// Records:
//   a = [1, 2, 3, 4] (float64); b = a + 10; c = range(3) (int32)
//   sync b; sync c; d = sum(a) (0-d); sync d; free a
// Expected trace (line: content):
//   1 header, 2 base a, 3 data a, 4 base b, 5 base c, 6 add, 7 range,
//   8 sync b, 9 sync c, 10 base d, 11 add_reduce, 12 sync d, 13 free a
void record(const std::string& path) {
  arrvm::Config config;
  config.backend = "ref";
  config.cache = arrvm::CacheMode::Memory;
  config.trace = path;
  arrvm::Runtime rt(config);
  const arrvm::BaseId a = rt.new_base(DType::Float64, 4);
  const double av[4] = {1, 2, 3, 4};
  rt.write(a, av, sizeof av);
  const arrvm::BaseId b = rt.new_base(DType::Float64, 4);
  const arrvm::BaseId c = rt.new_base(DType::Int32, 3);

  Instruction add;
  add.op = Opcode::Add;
  add.out = full(b, 4);
  add.add_input(Operand::of(full(a, 4)));
  add.add_input(Operand::of(Scalar::of_double(DType::Float64, 10.0)));
  rt.issue(add);

  Instruction range;
  range.op = Opcode::Range;
  range.out = full(c, 3);
  rt.issue(range);

  double bv[4];
  rt.read(b, bv, sizeof bv);
  CHECK(bv[0] == 11.0);
  CHECK(bv[3] == 14.0);
  int32_t cv[3];
  rt.read(c, cv, sizeof cv);
  CHECK(cv[2] == 2);

  const arrvm::BaseId d = rt.new_base(DType::Float64, 1);
  Instruction sum;
  sum.op = Opcode::AddReduce;
  View scalar;
  scalar.base = d;  // 0-d view: shape [], stride []
  sum.out = scalar;
  sum.add_input(Operand::of(full(a, 4)));
  sum.axis = 0;
  rt.issue(sum);
  double dv = 0;
  rt.read(d, &dv, sizeof dv);
  CHECK(dv == 10.0);
  rt.free_base(a);
  rt.flush();
}

std::vector<std::string> read_lines(const std::string& path) {
  std::ifstream in(path);
  std::vector<std::string> lines;
  for (std::string s; std::getline(in, s);) lines.push_back(s);
  return lines;
}

void write_lines(const std::string& path, const std::vector<std::string>& lines) {
  std::ofstream out(path);
  for (const std::string& s : lines) out << s << "\n";
}

// Applies `edit` to the decoded "bytes" of 1-based line `line_no`.
template <typename F>
void edit_bytes(std::vector<std::string>& lines, std::size_t line_no, F edit) {
  nlohmann::ordered_json j = nlohmann::ordered_json::parse(lines.at(line_no - 1));
  std::vector<uint8_t> bytes = arrvm::base64_decode(j.at("bytes").get<std::string>());
  edit(bytes);
  j["bytes"] = arrvm::base64_encode(bytes.data(), bytes.size());
  lines[line_no - 1] = j.dump();
}

bool contains(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

}  // namespace

TEST_CASE("replay: a recorded trace verifies, a corrupted one names the sync and element") {
  TempDir dir;
  const std::string trace = dir.file("good.jsonl");
  record(trace);

  // The recorder wrote the stream in program order.
  std::vector<std::string> lines = read_lines(trace);
  REQUIRE(lines.size() == 13);
  CHECK(lines[0] == R"({"arrvm_trace":1})");
  CHECK(lines[1] == R"({"base":0,"dtype":"float64","nelem":4})");
  // 1, 2, 3, 4 as little-endian float64
  CHECK(lines[2] == R"({"data":0,"bytes":"AAAAAAAA8D8AAAAAAAAAQAAAAAAAAAhAAAAAAAAAEEA="})");
  CHECK(contains(lines[5], R"("op":"add")"));
  CHECK(contains(lines[7], R"({"op":"sync","base":1,"bytes":)"));
  CHECK(contains(lines[8], R"({"op":"sync","base":2,"bytes":)"));
  CHECK(contains(lines[10], R"("op":"add_reduce")"));
  CHECK(contains(lines[11], R"({"op":"sync","base":3,"bytes":)"));
  CHECK(lines[12] == R"({"op":"free","base":0})");

  SUBCASE("the recorded trace verifies") {
    const RunResult r = run_cli(dir, "replay '" + trace + "'");
    INFO(r.out);
    CHECK(r.code == 0);
    CHECK(contains(r.out, "verified"));
    CHECK_FALSE(contains(r.out, "MISMATCH"));
  }

  SUBCASE("--json has the documented fields") {
    const RunResult r = run_cli(dir, "replay --json --backend ref --repeat 2 '" + trace + "'");
    INFO(r.out);
    REQUIRE(r.code == 0);
    const nlohmann::json j = nlohmann::json::parse(r.out);
    CHECK(j.at("backend") == "ref");
    CHECK(j.at("fuser").is_string());
    CHECK(j.at("cost_model").is_string());
    CHECK(j.at("verified") == true);
    CHECK(j.at("mismatches").empty());
    CHECK(j.at("cost").is_number());
    CHECK(j.at("kernels_compiled").is_number_integer());
    // Flushes: [add, range, sync b] [add_reduce, sync d] [free a]; sync c
    // alone has nothing to run (Runtime::run_batch: no flush).
    const auto& batches = j.at("batches");
    REQUIRE(batches.size() == 3);
    const int expect_sizes[3] = {3, 2, 1};
    std::vector<int64_t> all;
    int64_t blocks = 0;
    for (int k = 0; k < 3; ++k) {
      CHECK(batches[k].at("instructions") == expect_sizes[k]);
      CHECK(batches[k].at("cost").is_number());
      for (const auto& block : batches[k].at("partition")) {
        ++blocks;
        for (const auto& i : block) all.push_back(i.get<int64_t>());
      }
    }
    // Every trace instruction (sync and free included) but sync c appears exactly once.
    std::sort(all.begin(), all.end());
    CHECK(all == std::vector<int64_t>{0, 1, 2, 4, 5, 6});
    CHECK(j.at("blocks") == blocks);
    for (const char* t : {"fusion", "codegen", "compile", "exec"}) CHECK(j.at("time").at(t).is_number());
    for (const char* c : {"merge_hits", "merge_misses", "kernel_hits", "kernel_misses"}) {
      CHECK(j.at("cache").at(c).is_number_integer());
    }
  }

  SUBCASE("a flipped data byte is reported at the first sync it reaches") {
    // Byte 7 of element 2 is the sign/exponent byte of 3.0 (0x40): 0xC0 makes it -3.0.
    edit_bytes(lines, 3, [](std::vector<uint8_t>& b) { b.at(2 * 8 + 7) ^= 0x80; });
    const std::string bad = dir.file("bad.jsonl");
    write_lines(bad, lines);

    RunResult r = run_cli(dir, "replay '" + bad + "'");
    INFO(r.out);
    CHECK(r.code == 1);
    // b = a + 10: element 2 is 13 in the trace, -3 + 10 = 7 now.
    CHECK(contains(r.out, "sync at line 8 (base 1): element 2: expected 13.0, got 7.0"));
    // d = sum(a): 10 in the trace, 1 + 2 - 3 + 4 = 4 now.
    CHECK(contains(r.out, "sync at line 12 (base 3): element 0: expected 10.0, got 4.0"));
    CHECK_FALSE(contains(r.out, "line 9"));  // c does not depend on a

    r = run_cli(dir, "replay --json '" + bad + "'");
    REQUIRE(r.code == 1);
    const nlohmann::json j = nlohmann::json::parse(r.out);
    CHECK(j.at("verified") == false);
    REQUIRE(j.at("mismatches").size() == 2);
    const auto& m = j.at("mismatches")[0];
    CHECK(m.at("line") == 8);
    CHECK(m.at("base") == 1);
    CHECK(m.at("index") == 2);
    CHECK(m.at("expected") == 13.0);
    CHECK(m.at("got") == 7.0);
    CHECK(j.at("mismatches")[1].at("line") == 12);
  }

  SUBCASE("a hash-only sync is checked exactly") {
    std::vector<std::string> hashed = lines;
    for (std::size_t ln : {8, 9, 12}) {
      nlohmann::ordered_json j = nlohmann::ordered_json::parse(hashed[ln - 1]);
      j.erase("bytes");
      hashed[ln - 1] = j.dump();
    }
    const std::string ok = dir.file("hashed.jsonl");
    write_lines(ok, hashed);
    RunResult r = run_cli(dir, "replay '" + ok + "'");
    INFO(r.out);
    CHECK(r.code == 0);

    edit_bytes(hashed, 3, [](std::vector<uint8_t>& b) { b.at(6) ^= 1; });  // a[0]: 1.0 -> 1.0625
    const std::string bad = dir.file("hashed_bad.jsonl");
    write_lines(bad, hashed);
    r = run_cli(dir, "replay --json '" + bad + "'");
    REQUIRE(r.code == 1);
    const nlohmann::json j = nlohmann::json::parse(r.out);
    REQUIRE(j.at("mismatches").size() == 2);  // b and d; c does not depend on a
    CHECK(j.at("mismatches")[0].at("line") == 8);
    CHECK(j.at("mismatches")[0].at("index") == -1);
  }

  SUBCASE("floats compare within rtol/atol") {
    // Expected b[1] = 12 + 1e-12: within the float64 default (1e-14 + 1e-12 * |b|).
    edit_bytes(lines, 8, [](std::vector<uint8_t>& b) {
      double x;
      std::memcpy(&x, &b.at(8), 8);
      x += 1e-12;
      std::memcpy(&b.at(8), &x, 8);
    });
    const std::string near = dir.file("near.jsonl");
    write_lines(near, lines);
    RunResult r = run_cli(dir, "replay '" + near + "'");
    INFO(r.out);
    CHECK(r.code == 0);
    r = run_cli(dir, "replay --rtol 0 --atol=0 '" + near + "'");
    CHECK(r.code == 1);
    CHECK(contains(r.out, "sync at line 8 (base 1): element 1: expected 12.000000000001, got 12.0"));
  }

  SUBCASE("--dot writes one file per batch") {
    const std::string dot = dir.file("dot");
    const RunResult r = run_cli(dir, "replay --dot '" + dot + "' '" + trace + "'");
    INFO(r.out);
    CHECK(r.code == 0);
    for (const char* f : {"batch_0000.dot", "batch_0001.dot", "batch_0002.dot"}) {
      CAPTURE(f);
      CHECK(fs::exists(fs::path(dot) / f));
    }
    CHECK_FALSE(fs::exists(fs::path(dot) / "batch_0003.dot"));  // (3 batches: --json above)
    const std::vector<std::string> first = read_lines((fs::path(dot) / "batch_0000.dot").string());
    const std::string text = [&] {
      std::string s;
      for (const auto& l : first) s += l + "\n";
      return s;
    }();
    CHECK(contains(text, "digraph"));
    CHECK(contains(text, "i0 -> i1"));
    CHECK(contains(text, "subgraph cluster_0"));
  }
}

TEST_CASE("replay: errors exit 2 with a message naming the problem") {
  TempDir dir;
  RunResult r = run_cli(dir, "");
  CHECK(r.code == 2);
  CHECK(contains(r.out, "usage: arrvm"));

  r = run_cli(dir, "frobnicate");
  CHECK(r.code == 2);
  CHECK(contains(r.out, "unknown command 'frobnicate'"));

  r = run_cli(dir, "replay");
  CHECK(r.code == 2);
  CHECK(contains(r.out, "replay needs a TRACE"));

  r = run_cli(dir, "replay x.jsonl --colour");
  CHECK(r.code == 2);
  CHECK(contains(r.out, "unknown option --colour"));

  r = run_cli(dir, "replay '" + dir.file("missing.jsonl") + "'");
  CHECK(r.code == 2);
  CHECK(contains(r.out, "missing.jsonl"));

  // A trace that is well formed but uses an undeclared base.
  const std::string bad = dir.file("undeclared.jsonl");
  write_lines(bad,
              {R"({"arrvm_trace": 1})", R"({"base": 0, "dtype": "int32", "nelem": 2})",
               R"({"op": "range", "out": {"base": 5, "offset": 0, "shape": [2], "stride": [1]}, "in": []})"});
  r = run_cli(dir, "replay '" + bad + "'");
  CHECK(r.code == 2);
  CHECK(contains(r.out, "undeclared.jsonl:3: base 5 has no base line before it"));

  // Malformed trace: the reader's line number comes through.
  const std::string garbled = dir.file("garbled.jsonl");
  write_lines(garbled, {R"({"arrvm_trace": 1})", R"({"base": 0, "dtype": "int32", "nelem": 2, "x": 0})"});
  r = run_cli(dir, "replay '" + garbled + "'");
  CHECK(r.code == 2);
  CHECK(contains(r.out, "garbled.jsonl:2: unknown field \"x\""));

  r = run_cli(dir, "bench --colour");
  CHECK(r.code == 2);
  CHECK(contains(r.out, "unknown option --colour"));

  r = run_cli(dir, "bench no_such_program");
  CHECK(r.code == 2);
  CHECK(contains(r.out, "unknown program 'no_such_program'"));
}

TEST_CASE("arrvm info lists version, backends and configuration") {
  TempDir dir;
  const RunResult r = run_cli(dir, "info");
  INFO(r.out);
  CHECK(r.code == 0);
  CHECK(contains(r.out, "arrvm 0."));
  CHECK(contains(r.out, "backends:"));
  CHECK(contains(r.out, "ref"));
  // CI installs PoCL: at least one OpenCL device is listed, with its indices.
  CHECK(contains(r.out, "OpenCL devices"));
  CHECK(contains(r.out, "  0:0 "));
  CHECK(contains(r.out, "ARRVM_BACKEND=ref"));
}

TEST_CASE("replay --json reports the partition cost of seed 001 Fig. 3 under every fuser") {
  TempDir dir;
  const std::string trace = std::string(ARRVM_TEST_DATA_DIR) + "/fig3.trace";
  // The VM flushes on sync, so the replay runs Fig. 3 as two batches: lines
  // 1-16 (ending in SYNC D) and line 17 (DEL D, cost 0). Without DEL D in the
  // first batch, D[1:] (4 bytes) must really be written for the sync, so the
  // partitions that contracted it in the single-batch analysis (linear 58,
  // optimal 34; fusion/README.md, test_fusion_fig3) cost 4 more here.
  // singleton 94, unintrusive 78 and greedy 38 never had DEL D with D's writer.
  // ARRVM_PASSES=-defer,-dead-writes,-forward-stores,-early-frees: the batch as the paper
  // gives it (line 16 writes an array freed unread, and lines 1, 2 and 5-8
  // are `A = 0; A += C[:4]; A = C[:4]` and the same for B: writes that
  // nothing reads before they are overwritten; the VM would drop both), and
  // its DEL lines where the paper puts them (early-frees would move them up).
  const std::pair<const char*, double> expected[] = {
      {"singleton", 94}, {"linear", 62}, {"unintrusive", 78}, {"greedy", 38}, {"optimal", 38}};
  for (const auto& [fuser, cost] : expected) {
    CAPTURE(fuser);
    const RunResult r = run_cli(dir, "replay '" + trace + "' --json --cost bohrium --fuser " + fuser,
                                "ARRVM_PASSES=-defer,-dead-writes,-forward-stores,-early-frees ");
    REQUIRE(r.code == 0);
    const auto j = nlohmann::json::parse(r.out);
    CHECK(j["fuser"] == fuser);
    CHECK(j["cost"].get<double>() == cost);
    REQUIRE(j["batches"].size() == 2);
    CHECK(j["batches"][0]["cost"].get<double>() == cost);
    CHECK(j["batches"][0]["instructions"] == 16);
    CHECK(j["batches"][1]["cost"].get<double>() == 0);
    CHECK(j["blocks"] == j["batches"][0]["partition"].size() + 1);
  }
  const RunResult bad = run_cli(dir, "replay '" + trace + "' --cost nonsense");
  CHECK(bad.code == 2);
  CHECK(bad.out.find("nonsense") != std::string::npos);
}

TEST_CASE("replay --json --fuser ilp reports proven optimality and solve time per batch") {
  TempDir dir;
  const std::string trace = std::string(ARRVM_TEST_DATA_DIR) + "/fig3.trace";
  const RunResult r = run_cli(dir, "replay '" + trace + "' --json --cost bohrium --fuser ilp",
                              "ARRVM_PASSES=-defer,-dead-writes ");
  REQUIRE(r.code == 0);
  const auto j = nlohmann::json::parse(r.out);
  CHECK(j["cost"].get<double>() == 38);  // = optimal's (the test above)
  REQUIRE(j["batches"].size() == 2);
  for (const auto& b : j["batches"]) {
    CHECK(b["ilp"]["optimal"] == true);
    CHECK(b["ilp"]["solve_s"].get<double>() >= 0);
  }
  CHECK(j["ilp"]["batches"] == 2);
  CHECK(j["ilp"]["optimal"] == 2);
  // Other fusers report no ilp section.
  const RunResult g = run_cli(dir, "replay '" + trace + "' --json --fuser greedy");
  REQUIRE(g.code == 0);
  CHECK(!nlohmann::json::parse(g.out).contains("ilp"));
}

TEST_CASE("replay --dot draws dependencies, fuse-preventing edges and blocks") {
  TempDir dir;
  const std::string trace = std::string(ARRVM_TEST_DATA_DIR) + "/fig3.trace";
  // (ARRVM_PASSES=-forward-stores: Fig. 3 as the paper gives it, lines 1 and 5 included.)
  const RunResult r = run_cli(dir, "replay '" + trace + "' --fuser greedy --dot '" + dir.file("dot") + "'",
                              "ARRVM_PASSES=-forward-stores ");
  REQUIRE(r.code == 0);
  std::ifstream in(dir.file("dot") + "/batch_0000.dot");
  const std::string dot((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  CHECK(dot.find("subgraph cluster_0") != std::string::npos);
  // Fig. 3 line 1 (A = ...) is read by line 5, so i0 -> i4 is a dependency edge.
  CHECK(dot.find("  i0 -> i4;") != std::string::npos);
  CHECK(dot.find("color=red") != std::string::npos);
}

// Every benchmark program's trace (recorded at its tiny size) replays and
// verifies every sync with no optional pass (ARRVM_PASSES=none: the batches
// as issued, the fuser's blocks as they are, scalar libm) and with all of
// them, on ref and cpu.
TEST_CASE("replay: the programs' traces verify with ARRVM_PASSES=none and with every pass") {
  TempDir dir;
  const RunResult rec =
      run_cli(dir, "bench --size tiny --fusers greedy --backends ref --record '" + dir.file("traces") + "'");
  REQUIRE(rec.code == 0);
  int traces = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir.file("traces"))) {
    ++traces;
    const std::string trace = entry.path().string();
    for (const char* passes : {"none", "default"}) {
      CAPTURE(trace);
      CAPTURE(passes);
      const RunResult r = run_cli(dir, "replay '" + trace + "' --fusers greedy --backends ref,cpu",
                                  std::string("ARRVM_PASSES=") + passes + " ");
      INFO(r.out);
      CHECK(r.code == 0);
    }
  }
  CHECK(traces == 15);
}

TEST_CASE("replay: a trace with complex arrays and constants verifies on every backend") {
  // z = [1+2j, -3+0.5j, 0.25j] (complex128); w = conj(z * (2-1j) + 0.5j);
  // sync w; s = sum(w); sync s. The constants are written as [re, im].
  TempDir dir;
  const std::string trace = dir.file("complex.trace");
  {
    arrvm::Config config;
    config.backend = "ref";
    config.cache = arrvm::CacheMode::Memory;
    config.trace = trace;
    arrvm::Runtime rt(config);
    const arrvm::BaseId z = rt.new_base(DType::Complex128, 3), t = rt.new_base(DType::Complex128, 3),
                        w = rt.new_base(DType::Complex128, 3), s = rt.new_base(DType::Complex128, 1);
    const double zv[6] = {1, 2, -3, 0.5, 0, 0.25};
    rt.write(z, zv, sizeof zv);
    auto instr = [](Opcode op, const View& out, std::vector<Operand> in) {
      Instruction i;
      i.op = op;
      i.out = out;
      for (const Operand& o : in) i.add_input(o);
      return i;
    };
    View vz = full(z, 3), vt = full(t, 3), vw = full(w, 3);
    vz.dtype = vt.dtype = vw.dtype = DType::Complex128;
    rt.issue(instr(Opcode::Multiply, vt,
                   {Operand::of(vz), Operand::of(Scalar::of_complex(DType::Complex128, 2, -1))}));
    rt.issue(instr(Opcode::Add, vt,
                   {Operand::of(vt), Operand::of(Scalar::of_complex(DType::Complex128, 0, 0.5))}));
    rt.issue(instr(Opcode::Conjugate, vw, {Operand::of(vt)}));
    double got[6];
    rt.read(w, got, sizeof got);
    // (1+2j)(2-1j) = 4+3j, +0.5j, conj: 4-3.5j; (-3+0.5j)(2-1j) = -5.5+4j -> -5.5-4.5j; 0.25j(2-1j) =
    // 0.25+0.5j -> 0.25-1j
    CHECK(std::vector<double>(got, got + 6) == std::vector<double>{4, -3.5, -5.5, -4.5, 0.25, -1});
    View vs;
    vs.base = s;
    vs.dtype = DType::Complex128;
    Instruction red = instr(Opcode::AddReduce, vs, {Operand::of(vw)});
    red.axis = 0;
    rt.issue(red);
    double sum[2];
    rt.read(s, sum, sizeof sum);
    CHECK(sum[0] == -1.25);
    CHECK(sum[1] == -9);
  }
  std::ifstream f(trace);
  const std::string text((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  CHECK(text.find("\"const\":[2.0,-1.0]") != std::string::npos);
  CHECK(text.find("complex128") != std::string::npos);
  for (const std::string backend : {"ref", "cpu", "opencl", "mpi"}) {
    CAPTURE(backend);
    // (mpi under ASan: Open MPI keeps what MPI_Init allocates past
    // MPI_Finalize, which LeakSanitizer would report; tests/mpi does the same)
    const std::string env =
        backend == "mpi" ? "ASAN_OPTIONS=detect_leaks=0${ASAN_OPTIONS:+:$ASAN_OPTIONS} " : "";
    const RunResult r = run_cli(dir, "replay --backend " + backend + " '" + trace + "'", env);
    CHECK(r.code == 0);
    CHECK(r.out.find("verified") != std::string::npos);
  }
}
