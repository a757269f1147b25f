// Gathers pull their producers in (rewrite/gather_pull.hpp; seed
// 000's traversal orders): the rewrite's shape on a hand-built batch, the
// conditions under which it must not happen, a chain pulled in whole into
// one kernel, an index out of range raised as before; and on random
// programs (40 % of their gathers read a computed source) the rewritten
// batch computes what the original computes, on ref and fused on cpu.
#include <doctest/doctest.h>

#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "backends/backend.hpp"
#include "engine/runtime.hpp"
#include "fusion/fuse.hpp"
#include "rewrite/gather_pull.hpp"
#include "testing/random_program.hpp"
#include "tests/cpu_test_util.hpp"
#include "vm/error.hpp"

using namespace arrvm;  // tests only

namespace {

struct Capture : FlushObserver {
  std::vector<Instruction> batch;
  Partition partition;
  void on_flush(std::span<const Instruction> b, const Partition& p) override {
    if (batch.empty()) batch.assign(b.begin(), b.end()), partition = p;
  }
  int count(Opcode op) const {
    int n = 0;
    for (const Instruction& in : batch) n += in.op == op;
    return n;
  }
};

Operand v(const View& x) {
  return Operand::of(x);
}

// t = a * b (+ 1 if chain: u = a * b; t = u + 1); out = gather(t, idx);
// free t; read out. `reread` also reads t after the gather; `overwrite`
// writes a between the producer and the gather.
struct Case {
  int64_t n = 1000, m = 50;
  bool chain = false, reread = false, overwrite = false, bad_index = false;
};

std::vector<double> run(const std::string& backend, bool pull, const Case& c, Capture* cap,
                        uint64_t* pulled = nullptr) {
  Config config = cputest::config(backend, cputest::TempDir().path());
  config.passes = pull ? "default" : "-pull-gathers";
  config.cache = CacheMode::Off;
  Runtime rt(config);
  rt.set_flush_observer(cap);
  std::vector<double> a(c.n), b(c.n);
  std::vector<int64_t> idx(c.m);
  for (int64_t i = 0; i < c.n; ++i) a[i] = 0.5 * i, b[i] = 1.0 / (1 + i);
  for (int64_t i = 0; i < c.m; ++i) idx[i] = (i * 37) % c.n;
  if (c.bad_index) idx[c.m / 2] = c.n + 3;
  const BaseId A = rt.new_base(DType::Float64, c.n), B = rt.new_base(DType::Float64, c.n);
  const BaseId I = rt.new_base(DType::Int64, c.m), T = rt.new_base(DType::Float64, c.n);
  const BaseId O = rt.new_base(DType::Float64, c.m);
  rt.write(A, a.data(), a.size() * 8);
  rt.write(B, b.data(), b.size() * 8);
  rt.write(I, idx.data(), idx.size() * 8);
  auto all = [&](BaseId id, int64_t k) { return contiguous_view(id, rt.bases().find(id)->dtype, Dims{k}); };
  auto issue = [&](Opcode op, const View& out, std::vector<Operand> in) {
    Instruction s;
    s.op = op;
    s.out = out;
    for (const Operand& o : in) s.add_input(o);
    rt.issue(s);
  };
  if (c.chain) {
    const BaseId U = rt.new_base(DType::Float64, c.n);
    issue(Opcode::Multiply, all(U, c.n), {v(all(A, c.n)), v(all(B, c.n))});
    issue(Opcode::Add, all(T, c.n), {v(all(U, c.n)), Operand::of(Scalar::of_double(DType::Float64, 1.0))});
    rt.free_base(U);
  } else {
    issue(Opcode::Multiply, all(T, c.n), {v(all(A, c.n)), v(all(B, c.n))});
  }
  if (c.overwrite)
    issue(Opcode::Identity, all(A, c.n), {Operand::of(Scalar::of_double(DType::Float64, 2.0))});
  issue(Opcode::Gather, all(O, c.m), {v(all(T, c.n)), v(all(I, c.m))});
  std::vector<double> t(c.n);
  if (c.reread) rt.read(T, t.data(), t.size() * 8);
  rt.free_base(T);
  std::vector<double> out(c.m);
  rt.read(O, out.data(), out.size() * 8);
  if (pulled != nullptr) *pulled = rt.profile().pass("pull-gathers");
  return out;
}

}  // namespace

TEST_CASE("a gather evaluates its source's producer at the gathered positions") {
  for (const char* backend : {"ref", "cpu"}) {
    CAPTURE(std::string(backend));
    Case c;
    Capture off, on;
    uint64_t pulled = 0;
    const std::vector<double> want = run(backend, false, c, &off);
    const std::vector<double> got = run(backend, true, c, &on, &pulled);
    CHECK(got == want);
    for (int64_t i = 0; i < c.m; ++i) {
      const int64_t x = (i * 37) % c.n;
      CHECK(want[i] == 0.5 * x * (1.0 / (1 + x)));
    }
    CHECK(pulled == 1);
    // gather(a), gather(b), multiply over the index's shape; no producer of t.
    CHECK(off.count(Opcode::Gather) == 1);
    CHECK(on.count(Opcode::Gather) == 2);
    int over_t = 0;
    for (const Instruction& in : on.batch) over_t += !is_control(in.op) && in.out.nelem() == c.n;
    CHECK(over_t == 0);
    CHECK(on.count(Opcode::Multiply) == 1);
  }
}

TEST_CASE("a chain of producers is pulled in whole: one kernel, nothing of the source's size") {
  Case c;
  c.chain = true;
  Capture off, on;
  uint64_t pulled = 0;
  const std::vector<double> want = run("cpu", false, c, &off);
  CHECK(run("cpu", true, c, &on, &pulled) == want);
  CHECK(pulled == 2);
  int work = 0;
  for (const Block& b : on.partition.blocks) {
    bool w = false;
    for (uint32_t i : b) w = w || !is_control(on.batch[i].op);
    work += w;
  }
  CHECK(work == 1);  // gathers of a and b, multiply, add: one loop over the index
}

TEST_CASE("not pulled: the source read again, its inputs written in between, an index much longer") {
  Case reread;
  reread.reread = true;
  Case overwrite;
  overwrite.overwrite = true;
  Case longer;
  longer.n = 10, longer.m = 1000;  // 2 * 1000 > 3 * 10 + 1000: recomputing costs more
  for (const Case& c : {reread, overwrite, longer}) {
    Capture off, on;
    uint64_t pulled = 7;
    const std::vector<double> want = run("ref", false, c, &off);
    CHECK(run("ref", true, c, &on, &pulled) == want);
    CHECK(pulled == 0);
  }
}

TEST_CASE("an index out of range is still an error of the gather's instruction") {
  Case c;
  c.bad_index = true;
  for (bool pull : {false, true}) {
    Capture cap;
    std::string msg;
    try {
      run("cpu", pull, c, &cap);
    } catch (const Error& e) {
      msg = e.what();
    }
    CAPTURE(pull);
    CHECK(msg.find("instruction #1 (gather)") != std::string::npos);
    CHECK(msg.find("index 1003 out of range [0, 1000)") != std::string::npos);
  }
}

TEST_CASE("random programs: the pulled batch computes what the original computes (ref, cpu fused)") {
  const cputest::TempDir dir;
  int pulled_programs = 0;
  for (uint64_t seed = 0; seed < 400; ++seed) {
    testing::RandomProgramOptions po;
    po.max_instructions = 16;
    const testing::RandomProgram p = testing::random_program(70000 + seed, po);
    testing::RandomProgram q = p;
    std::vector<uint64_t> origin(q.batch.size(), 0);
    const std::size_t pulled = pull_gathers(q.batch, origin, [&](DType t, int64_t n) {
      const BaseId id = static_cast<BaseId>(q.bases.size());
      q.bases.push_back(testing::BaseSpec{id, t, n, {}, true});
      return id;
    });
    if (pulled == 0) continue;
    ++pulled_programs;
    INFO("seed " << 70000 + seed);
    REQUIRE(origin.size() == q.batch.size());
    std::vector<std::vector<uint8_t>> want, got_ref, got_cpu;
    std::string e1, e2, e3;
    try {
      auto ref = make_backend(cputest::config("ref", dir.path()));
      want = testing::run_program(*ref, p, singleton_partition(p.batch.size()));
    } catch (const Error& e) {
      e1 = e.what();
    }
    try {
      auto ref = make_backend(cputest::config("ref", dir.path()));
      got_ref = testing::run_program(*ref, q, singleton_partition(q.batch.size()));
    } catch (const Error& e) {
      e2 = e.what();
    }
    try {
      const Config cfg = cputest::config("cpu", dir.path());
      auto cpu = make_backend(cfg);
      got_cpu = testing::run_program(*cpu, q, fuse_batch(q.batch, cfg));
    } catch (const Error& e) {
      e3 = e.what();
    }
    CHECK(e1.empty() == e2.empty());
    CHECK(e1.empty() == e3.empty());
    if (e1.empty() && e2.empty()) CHECK(got_ref == want);
    if (e1.empty() && e3.empty()) CHECK(got_cpu == want);
  }
  MESSAGE(pulled_programs << " of 400 random programs pulled a producer into a gather");
  CHECK(pulled_programs >= 20);
}
