// Gathers pull their producers in (rewrite/gather_pull.hpp; seed
// 000's traversal orders): the rewrite's shape on a hand-built batch, the
// conditions under which it must not happen, a chain pulled in whole into
// one kernel, an index out of range raised as before; and on random
// programs (40 % of their gathers read a computed source) the rewritten
// batch computes what the original computes, on ref and fused on cpu.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <random>
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

// Seed 000's simple2 (a gather of a gather) and simple4 (a gather of a
// fold): `as = gather_clip(xs, is1); bs = gather(as, is2)` and `as =
// reduce(xs (m, n), axis 1); bs = gather_clip(as, is)`, `as` freed.
struct Seed {
  bool fold = false;  // simple4, else simple2
  Opcode reduce = Opcode::AddReduce;
  Opcode second = Opcode::Gather;  // simple2's outer gather
  int64_t bad = -1;                // an index of is2 set out of range (simple2)
};

// bs, and the partition's blocks with work (Capture), on `backend`.
std::vector<double> run_seed(const std::string& backend, bool pull, const Seed& c, Capture* cap,
                             uint64_t* pulled) {
  Config config = cputest::config(backend, cputest::TempDir().path());
  config.passes = pull ? "default" : "-pull-gathers";
  config.cache = CacheMode::Off;
  Runtime rt(config);
  rt.set_flush_observer(cap);
  const int64_t n = 64, m = 400, k = 150, n1 = 600;
  const int64_t nx = c.fold ? m * n : 1000;
  std::vector<double> xs(nx);
  for (int64_t i = 0; i < nx; ++i) xs[i] = static_cast<double>((i * 7919) % 1009) - 500;  // exact sums
  std::vector<int64_t> is1(n1), is2(k), is(k);
  for (int64_t i = 0; i < n1; ++i) is1[i] = (i * 37) % 1040 - 20;  // some below 0, some past 999: clipped
  for (int64_t i = 0; i < k; ++i) is2[i] = (i * 11) % n1, is[i] = (i * 13) % (m + 10) - 5;
  if (c.bad >= 0) is2[c.bad] = n1 + 3;
  const BaseId X = rt.new_base(DType::Float64, nx), I1 = rt.new_base(DType::Int64, n1);
  const BaseId I2 = rt.new_base(DType::Int64, k), I = rt.new_base(DType::Int64, k);
  const BaseId T = rt.new_base(DType::Float64, c.fold ? m : n1), B = rt.new_base(DType::Float64, k);
  rt.write(X, xs.data(), xs.size() * 8);
  rt.write(I1, is1.data(), is1.size() * 8);
  rt.write(I2, is2.data(), is2.size() * 8);
  rt.write(I, is.data(), is.size() * 8);
  auto flat = [](BaseId id, DType t, int64_t e) { return contiguous_view(id, t, Dims{e}); };
  auto issue = [&](Opcode op, const View& out, std::vector<Operand> in, int axis = 0) {
    Instruction s;
    s.op = op;
    s.out = out;
    s.axis = axis;
    for (const Operand& o : in) s.add_input(o);
    rt.issue(s);
  };
  if (c.fold) {
    issue(c.reduce, flat(T, DType::Float64, m), {v(contiguous_view(X, DType::Float64, Dims{m, n}))}, 1);
    issue(Opcode::GatherClip, flat(B, DType::Float64, k),
          {v(flat(T, DType::Float64, m)), v(flat(I, DType::Int64, k))});
  } else {
    issue(Opcode::GatherClip, flat(T, DType::Float64, n1),
          {v(flat(X, DType::Float64, nx)), v(flat(I1, DType::Int64, n1))});
    issue(c.second, flat(B, DType::Float64, k),
          {v(flat(T, DType::Float64, n1)), v(flat(I2, DType::Int64, k))});
  }
  rt.free_base(T);
  std::vector<double> out(k);
  rt.read(B, out.data(), out.size() * 8);
  if (pulled != nullptr) *pulled = rt.profile().pass("pull-gathers");
  // What NumPy gives: take(mode='clip') is the clamp.
  auto clip = [](int64_t x, int64_t size) { return std::clamp<int64_t>(x, 0, size - 1); };
  for (int64_t i = 0; i < k; ++i) {
    double want = 0;
    if (c.fold) {
      const int64_t r = clip(is[i], m);
      for (int64_t j = 0; j < n; ++j) {
        const double x = xs[r * n + j];
        want = j == 0                              ? x
               : c.reduce == Opcode::AddReduce     ? want + x
               : c.reduce == Opcode::MaximumReduce ? std::max(want, x)
                                                   : std::min(want, x);
      }
    } else {
      want = xs[clip(is1[clip(is2[i], n1)], nx)];
    }
    REQUIRE(out[i] == want);
  }
  return out;
}

int work_blocks(const Capture& cap) {
  int work = 0;
  for (const Block& b : cap.partition.blocks) {
    bool w = false;
    for (uint32_t i : b) w = w || !is_control(cap.batch[i].op);
    work += w;
  }
  return work;
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

TEST_CASE("seed 000's simple2 and simple4: one kernel each, NumPy's values, on ref, cpu and opencl") {
  Seed simple2, simple2_clip, sum4, max4, min4;
  simple2_clip.second = Opcode::GatherClip;
  sum4.fold = max4.fold = min4.fold = true;
  max4.reduce = Opcode::MaximumReduce;
  min4.reduce = Opcode::MinimumReduce;
  for (const char* backend : {"ref", "cpu", "opencl"}) {
    for (const Seed& c : {simple2, simple2_clip, sum4, max4, min4}) {
      CAPTURE(std::string(backend));
      CAPTURE(c.fold);
      CAPTURE(std::string(opcode_name(c.fold ? c.reduce : c.second)));
      Capture off, on;
      uint64_t pulled = 0;
      const std::vector<double> want = run_seed(backend, false, c, &off, nullptr);  // (checks its values)
      CHECK(run_seed(backend, true, c, &on, &pulled) == want);
      CHECK(pulled == 1);
      if (std::string(backend) != "ref") {
        CHECK(work_blocks(off) == 2);
        CHECK(work_blocks(on) == 1);
      }
    }
  }
}

TEST_CASE(
    "simple2: an index out of range is still the outer gather's error; a raise-mode inner gather stays "
    "apart") {
  Seed bad;
  bad.bad = 77;
  for (bool pull : {false, true}) {
    Capture cap;
    std::string msg;
    try {
      run_seed("cpu", pull, bad, &cap, nullptr);
    } catch (const Error& e) {
      msg = e.what();
    }
    CAPTURE(pull);
    CHECK(msg.find("instruction #1 (gather)") != std::string::npos);
    CHECK(msg.find("index 603 out of range [0, 600)") != std::string::npos);
  }
  // gather(gather(xs, is1), is2) with a raising inner gather: NumPy raises for
  // a bad index in is1 that is2 does not select, so the two stay apart.
  std::vector<Instruction> batch;
  auto view = [](BaseId b, DType t, int64_t n) { return contiguous_view(b, t, Dims{n}); };
  Instruction g1, g2, fr;
  g1.op = Opcode::Gather;
  g1.out = view(3, DType::Float64, 8);
  g1.add_input(Operand::of(view(0, DType::Float64, 10)));
  g1.add_input(Operand::of(view(1, DType::Int64, 8)));
  g2.op = Opcode::Gather;
  g2.out = view(4, DType::Float64, 4);
  g2.add_input(Operand::of(g1.out));
  g2.add_input(Operand::of(view(2, DType::Int64, 4)));
  fr.op = Opcode::Free;
  fr.out = view(3, DType::Float64, 8);
  batch = {g1, g2, fr};
  std::vector<uint64_t> origin = {0, 1, 2};
  CHECK(pull_gathers(batch, origin, [](DType, int64_t) -> BaseId { return 9; }) == 0);
  // ... and the same with a gather_clip inside is composed.
  batch[0].op = Opcode::GatherClip;
  CHECK(pull_gathers(batch, origin, [](DType, int64_t) -> BaseId { return 9; }) == 1);
  REQUIRE(batch.size() == 4);
  CHECK(batch[0].op == Opcode::Gather);  // is1 gathered at is2 (the outer gather's check)
  CHECK(batch[0].in[0].view.base == 1);
  CHECK(batch[1].op == Opcode::GatherClip);  // xs at those
  CHECK(batch[1].in[0].view.base == 0);
  CHECK(batch[1].out.base == 4);
}

TEST_CASE(
    "simple2 and simple4 at random: sizes, modes, out-of-range indices, pulled or not (ref, cpu fused)") {
  std::mt19937_64 rng(45);
  auto pick = [&](int64_t lo, int64_t hi) { return std::uniform_int_distribution<int64_t>(lo, hi)(rng); };
  int composed = 0;
  for (int round = 0; round < 200; ++round) {
    testing::RandomProgram p;
    const bool fold = round % 2 == 1;
    const DType t = round % 3 == 0 ? DType::Int32 : DType::Float64;
    const int64_t m = pick(1, 9), n = pick(1, 7), k = pick(1, 12), n1 = pick(1, 12),
                  nx = fold ? m * n : pick(1, 15);
    auto base = [&](DType d, int64_t e) {
      const BaseId id = static_cast<BaseId>(p.bases.size());
      std::vector<uint8_t> bytes(static_cast<std::size_t>(e) * dtype_size(d));
      for (std::size_t b = 0; b < bytes.size(); b += dtype_size(d)) {
        if (d == DType::Int64) {
          const int64_t x = pick(-3, (fold ? m : n1) + 3);
          std::memcpy(&bytes[b], &x, 8);
        } else if (d == DType::Int32) {
          const int32_t x = static_cast<int32_t>(pick(-50, 50));
          std::memcpy(&bytes[b], &x, 4);
        } else {
          const double x = static_cast<double>(pick(-50, 50));
          std::memcpy(&bytes[b], &x, 8);
        }
      }
      p.bases.push_back(testing::BaseSpec{id, d, e, bytes, false});
      return id;
    };
    const BaseId X = base(t, nx), I1 = base(DType::Int64, fold ? k : n1), I2 = base(DType::Int64, k);
    const BaseId T = base(t, fold ? m : n1), B = base(t, k);
    p.bases[T].data.clear();
    p.bases[T].freed = true;
    p.bases[B].data.clear();
    auto flat = [&](BaseId id, int64_t e) { return contiguous_view(id, p.bases[id].dtype, Dims{e}); };
    Instruction f, g, fr;
    if (fold) {
      const Opcode ops[] = {Opcode::AddReduce, Opcode::MaximumReduce, Opcode::MinimumReduce};
      f.op = ops[pick(0, 2)];
      f.out = flat(T, m);
      f.add_input(Operand::of(contiguous_view(X, t, Dims{m, n})));
      f.axis = 1;
      g.op = Opcode::GatherClip;
      g.add_input(Operand::of(flat(T, m)));
      g.add_input(Operand::of(flat(I1, k)));
    } else {
      f.op = pick(0, 3) == 0 ? Opcode::Gather : Opcode::GatherClip;
      f.out = flat(T, n1);
      f.add_input(Operand::of(flat(X, nx)));
      f.add_input(Operand::of(flat(I1, n1)));
      g.op = pick(0, 1) == 0 ? Opcode::Gather : Opcode::GatherClip;
      g.add_input(Operand::of(flat(T, n1)));
      g.add_input(Operand::of(flat(I2, k)));
    }
    g.out = flat(B, k);
    fr.op = Opcode::Free;
    fr.out = flat(T, fold ? m : n1);
    p.batch = {f, g, fr};
    testing::RandomProgram q = p;
    std::vector<uint64_t> origin = {0, 1, 2};
    composed += pull_gathers(q.batch, origin, [&](DType d, int64_t e) {
                  const BaseId id = static_cast<BaseId>(q.bases.size());
                  q.bases.push_back(testing::BaseSpec{id, d, e, {}, true});
                  return id;
                }) != 0;
    const cputest::TempDir dir;
    std::vector<std::vector<uint8_t>> want, got_ref, got_cpu;
    std::string e1, e2, e3;
    CAPTURE(round);
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
    CHECK_MESSAGE(e1.empty() == e2.empty(), e1 << " / " << e2);
    CHECK_MESSAGE(e1.empty() == e3.empty(), e1 << " / " << e3);
    if (e1.empty() && e2.empty()) CHECK(got_ref == want);
    if (e1.empty() && e3.empty()) CHECK(got_cpu == want);
  }
  MESSAGE(composed << " of 200 composed");
  CHECK(composed >= 60);
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
    CHECK_MESSAGE(e1.empty() == e2.empty(), e1 << " / " << e2);
    CHECK(e1.empty() == e3.empty());
    if (e1.empty() && e2.empty()) CHECK(got_ref == want);
    if (e1.empty() && e3.empty()) CHECK(got_cpu == want);
  }
  MESSAGE(pulled_programs << " of 400 random programs pulled a producer into a gather");
  CHECK(pulled_programs >= 20);
}
