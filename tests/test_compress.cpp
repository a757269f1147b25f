// `compress` and length classes (vm/length_class.hpp;
// fusion/README.md "Length classes"), with seed 003's programs as bytecode:
// normalize2 (two sums, one of the positive elements, then two maps) runs as
// 2 kernels with `gts` never materialized; filterLeft fuses a map and a
// filter into one loop with two outputs of different lengths; bad1 and bad2
// are rejected naming the instruction. Results equal NumPy's (x[x > 0], sums
// of filtered arrays), computed here by hand, on ref, cpu and opencl, under
// every fuser, whether the class's length is known (a flush in between) or
// not.
#include <doctest/doctest.h>

#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "engine/runtime.hpp"
#include "fusion/algorithms.hpp"
#include "tests/opencl_test_util.hpp"
#include "vm/error.hpp"

using namespace arrvm;  // tests only

namespace {

// The blocks of each flush, by instruction opcodes.
struct Partitions : FlushObserver {
  std::vector<std::vector<Instruction>> batches;
  std::vector<Partition> partitions;
  void on_flush(std::span<const Instruction> batch, const Partition& p) override {
    batches.emplace_back(batch.begin(), batch.end());
    partitions.push_back(p);
  }
  // Blocks with work in flush `f`.
  int work_blocks(std::size_t f) const {
    int n = 0;
    for (const Block& b : partitions[f].blocks) {
      bool work = false;
      for (uint32_t i : b) work = work || !is_control(batches[f][i].op);
      n += work;
    }
    return n;
  }
  // The block of flush `f` holding the first instruction with opcode `op`.
  const Block& block_of(std::size_t f, Opcode op) const {
    for (const Block& b : partitions[f].blocks) {
      for (uint32_t i : b) {
        if (batches[f][i].op == op) return b;
      }
    }
    FAIL("no instruction " << opcode_name(op));
    return partitions[f].blocks[0];
  }
};

class Program {
 public:
  Program(const std::string& backend, const std::string& fuser)
      : rt_(std::make_unique<Runtime>(opencltest::config(backend, opencltest::shared_cache_dir(), fuser))) {
    rt_->set_flush_observer(&parts);
  }
  Runtime& rt() { return *rt_; }
  BaseId base(DType t, int64_t n) { return rt_->new_base(t, n); }
  View all(BaseId id) {
    const BaseInfo* b = rt_->bases().find(id);
    return contiguous_view(id, b->dtype, Dims{b->nelem});
  }
  View scalar(BaseId id) { return make_view(id, 0, Dims{}, Dims{}); }
  BaseId input(const std::vector<double>& x) {
    const BaseId id = base(DType::Float64, static_cast<int64_t>(x.size()));
    rt_->write(id, x.data(), x.size() * sizeof(double));
    return id;
  }
  void op(Opcode op, const View& out, std::vector<Operand> in, int axis = 0) {
    Instruction s;
    s.op = op;
    s.out = out;
    for (const Operand& o : in) s.add_input(o);
    s.axis = axis;
    rt_->issue(s);
  }
  void free(BaseId id) { rt_->free_base(id); }
  // The first length(id) elements, as NumPy's x[mask] would hold them.
  template <typename T>
  std::vector<T> read(BaseId id) {
    const int64_t n = rt_->length(id);
    const BaseInfo* b = rt_->bases().find(id);
    std::vector<T> all(b->nelem);
    rt_->read(id, all.data(), all.size() * sizeof(T));
    all.resize(n);
    return all;
  }
  Partitions parts;

 private:
  std::unique_ptr<Runtime> rt_;
};

Operand v(const View& x) {
  return Operand::of(x);
}
Operand f64(double x) {
  return Operand::of(Scalar::of_double(DType::Float64, x));
}

std::vector<double> data(int n) {
  std::vector<double> x(n);
  for (int i = 0; i < n; ++i) x[i] = std::sin(0.37 * i + 0.1) * (1 + i % 5);
  return x;
}

const char* const kBackends[] = {"ref", "cpu", "opencl"};

}  // namespace

TEST_CASE("normalize2 with a real filter: 2 kernels, gts never materialized, NumPy's values") {
  const int n = 1000;
  const std::vector<double> x = data(n);
  double sum1 = 0, sum2 = 0;
  for (double e : x) sum1 += e, sum2 += e > 0 ? e : 0;
  for (const char* backend : kBackends) {
    for (const char* fuser : {"greedy", "ilp", "linear", "unintrusive", "singleton"}) {
      const std::string where = std::string(backend) + " " + fuser;
      CAPTURE(where);
      Program p(backend, fuser);
      const BaseId xs = p.input(x);
      const BaseId s1 = p.base(DType::Float64, 1), s2 = p.base(DType::Float64, 1);
      const BaseId m = p.base(DType::Bool, n), gts = p.base(DType::Float64, n);
      const BaseId ys1 = p.base(DType::Float64, n), ys2 = p.base(DType::Float64, n);
      p.op(Opcode::AddReduce, p.scalar(s1), {v(p.all(xs))});            // sum1 = fold (+) 0 xs
      p.op(Opcode::Greater, p.all(m), {v(p.all(xs)), f64(0)});          //
      p.op(Opcode::Compress, p.all(gts), {v(p.all(xs)), v(p.all(m))});  // gts = filter (> 0) xs
      p.free(m);
      p.op(Opcode::AddReduce, p.scalar(s2), {v(p.all(gts))});  // sum2 = fold (+) 0 gts
      p.free(gts);
      p.op(Opcode::Divide, p.all(ys1), {v(p.all(xs)), v(p.scalar(s1))});  // ys1 = map (/ sum1) xs
      p.op(Opcode::Divide, p.all(ys2), {v(p.all(xs)), v(p.scalar(s2))});  // ys2 = map (/ sum2) xs
      p.free(s1);
      p.free(s2);
      const std::vector<double> r1 = p.read<double>(ys1), r2 = p.read<double>(ys2);
      REQUIRE(!p.parts.partitions.empty());
      for (int i = 0; i < n; ++i) {
        CHECK(r1[i] == doctest::Approx(x[i] / sum1).epsilon(1e-12));
        CHECK(r2[i] == doctest::Approx(x[i] / sum2).epsilon(1e-12));
      }
      // (unintrusive merges only what can never hurt another merge: not this.)
      if (std::string(fuser) == "singleton" || std::string(fuser) == "unintrusive") continue;
      // The seed's clustering: {sum1, gts, sum2} and {ys1, ys2}; gts is
      // created and freed in the first block, so it is never allocated.
      CHECK(p.parts.work_blocks(0) == 2);
      const Block& first = p.parts.block_of(0, Opcode::Compress);
      int reductions = 0, frees_gts = 0;
      for (uint32_t i : first) {
        const Instruction& in = p.parts.batches[0][i];
        reductions += in.op == Opcode::AddReduce;
        frees_gts += in.op == Opcode::Free && in.out.base == gts;
      }
      CHECK(reductions == 2);
      CHECK(frees_gts == 1);
      if (std::string(backend) == "cpu") {
        CHECK(p.rt().profile().kernels_launched == 2);
        CHECK(p.rt().profile().arrays_contracted >= 2);  // m and gts
      }
    }
  }
}

TEST_CASE("filterLeft: a map and a filter in one loop, two outputs of different lengths") {
  const int n = 777;
  std::vector<int64_t> x(n);
  for (int i = 0; i < n; ++i) x[i] = (i * 7919) % 1013 - 500;
  std::vector<int64_t> left, even;
  for (int64_t e : x) {
    left.push_back(e + 1);
    if (e % 2 == 0) even.push_back(e);
  }
  for (const char* backend : kBackends) {
    for (const char* fuser : {"greedy", "ilp", "optimal", "singleton"}) {
      const std::string where = std::string(backend) + " " + fuser;
      CAPTURE(where);
      Program p(backend, fuser);
      const BaseId xs = p.base(DType::Int64, n);
      p.rt().write(xs, x.data(), n * sizeof(int64_t));
      const BaseId ys1 = p.base(DType::Int64, n), r = p.base(DType::Int64, n), m = p.base(DType::Bool, n);
      const BaseId ys2 = p.base(DType::Int64, n);
      const Operand one = Operand::of(Scalar::of_int(DType::Int64, 1));
      const Operand two = Operand::of(Scalar::of_int(DType::Int64, 2));
      const Operand zero = Operand::of(Scalar::of_int(DType::Int64, 0));
      p.op(Opcode::Add, p.all(ys1), {v(p.all(xs)), one});  // ys1 = map (+ 1) xs
      p.op(Opcode::Mod, p.all(r), {v(p.all(xs)), two});
      p.op(Opcode::Equal, p.all(m), {v(p.all(r)), zero});
      p.free(r);
      p.op(Opcode::Compress, p.all(ys2), {v(p.all(xs)), v(p.all(m))});  // ys2 = filter even xs
      p.free(m);
      CHECK(p.rt().length(ys2) == static_cast<int64_t>(even.size()));
      CHECK(p.rt().length(ys1) == n);
      CHECK(p.read<int64_t>(ys2) == even);
      CHECK(p.read<int64_t>(ys1) == left);
      if (std::string(fuser) != "singleton") CHECK(p.parts.work_blocks(0) == 1);
    }
  }
}

TEST_CASE("size inference rejects bad1 and bad2, naming the instruction, and changes nothing") {
  Program p("ref", "greedy");
  const int n = 10;
  const BaseId xs = p.input(data(n));
  const BaseId m1 = p.base(DType::Bool, n), m2 = p.base(DType::Bool, n);
  const BaseId as = p.base(DType::Float64, n), bs = p.base(DType::Float64, n), ys = p.base(DType::Float64, n);
  p.op(Opcode::Greater, p.all(m1), {v(p.all(xs)), f64(0)});
  p.op(Opcode::Less, p.all(m2), {v(p.all(xs)), f64(0.5)});
  p.op(Opcode::Compress, p.all(as), {v(p.all(xs)), v(p.all(m1))});  // flt = filter p xs
  p.op(Opcode::Compress, p.all(bs), {v(p.all(xs)), v(p.all(m2))});
  const uint64_t issued = p.rt().instructions_issued();
  // bad1: map2 f flt xs
  try {
    p.op(Opcode::Add, p.all(ys), {v(p.all(as)), v(p.all(xs))});
    FAIL("bad1 accepted");
  } catch (const Error& e) {
    const std::string msg = e.what();
    CHECK(msg.find("instruction #" + std::to_string(issued) + " (add)") != std::string::npos);
    CHECK(msg.find("fixed length") != std::string::npos);
    CHECK(msg.find("compress into b" + std::to_string(as)) != std::string::npos);
  }
  // bad2: map2 f (filter p1 xs) (filter p2 xs)
  try {
    p.op(Opcode::Multiply, p.all(ys), {v(p.all(as)), v(p.all(bs))});
    FAIL("bad2 accepted");
  } catch (const Error& e) {
    const std::string msg = e.what();
    CHECK(msg.find("instruction #" + std::to_string(issued) + " (multiply)") != std::string::npos);
    CHECK(msg.find("b" + std::to_string(as)) != std::string::npos);
    CHECK(msg.find("b" + std::to_string(bs)) != std::string::npos);
    CHECK(msg.find("their lengths may differ") != std::string::npos);
  }
  // Part of a pending class, a gather of one, an output that is not whole.
  CHECK_THROWS_WITH_AS(
      p.op(Opcode::Negative, make_view(ys, 0, Dims{5}, Dims{1}), {v(make_view(as, 0, Dims{5}, Dims{1}))}),
      doctest::Contains("only the whole array"), Error);
  const BaseId idx = p.base(DType::Int64, n);
  p.op(Opcode::Identity, p.all(idx), {Operand::of(Scalar::of_int(DType::Int64, 0))});
  CHECK_THROWS_WITH_AS(p.op(Opcode::Gather, p.all(ys), {v(p.all(as)), v(p.all(idx))}),
                       doctest::Contains("sync"), Error);
  CHECK(p.rt().instructions_issued() == issued + 1);  // only the identity went in
  // A broadcast scalar fits any length; the class's sum is NumPy's.
  const BaseId s = p.base(DType::Float64, 1);
  p.op(Opcode::Multiply, p.all(ys), {v(p.all(as)), f64(2.0)});
  p.op(Opcode::AddReduce, p.scalar(s), {v(p.all(ys))});
  double want = 0;
  for (double e : data(n)) want += e > 0 ? 2 * e : 0;
  CHECK(p.read<double>(s)[0] == doctest::Approx(want).epsilon(1e-12));
}

TEST_CASE("a length class before and after its length is known; filters of filters") {
  const int n = 500;
  const std::vector<double> x = data(n);
  std::vector<double> pos, big;
  for (double e : x) {
    if (e > 0) pos.push_back(e);
  }
  for (double e : pos) {
    if (e > 1) big.push_back(e * e);
  }
  double sum_big = 0;
  for (double e : big) sum_big += e;
  for (const char* backend : kBackends) {
    for (bool flush_between : {false, true}) {
      for (const char* fuser : {"greedy", "ilp", "singleton"}) {
        const std::string where = std::string(backend) + " " + fuser + (flush_between ? " flush" : "");
        CAPTURE(where);
        Program p(backend, fuser);
        const BaseId xs = p.input(x);
        const BaseId m = p.base(DType::Bool, n), ps = p.base(DType::Float64, n);
        const BaseId m2 = p.base(DType::Bool, n), bg = p.base(DType::Float64, n),
                     sq = p.base(DType::Float64, n);
        const BaseId s = p.base(DType::Float64, 1), cs = p.base(DType::Float64, n);
        p.op(Opcode::Greater, p.all(m), {v(p.all(xs)), f64(0)});
        p.op(Opcode::Compress, p.all(ps), {v(p.all(xs)), v(p.all(m))});  // ps = x[x > 0]
        p.free(m);
        if (flush_between) p.rt().flush();
        p.op(Opcode::Greater, p.all(m2), {v(p.all(ps)), f64(1)});
        p.op(Opcode::Compress, p.all(bg), {v(p.all(ps)), v(p.all(m2))});  // bg = ps[ps > 1]
        p.free(m2);
        p.op(Opcode::Multiply, p.all(sq), {v(p.all(bg)), v(p.all(bg))});
        p.op(Opcode::AddReduce, p.scalar(s), {v(p.all(sq))});
        p.op(Opcode::AddAccumulate, p.all(cs), {v(p.all(sq))});
        CHECK(p.read<double>(ps) == pos);
        CHECK(p.read<double>(sq) == big);
        CHECK(p.read<double>(s)[0] == doctest::Approx(sum_big).epsilon(1e-12));
        const std::vector<double> c = p.read<double>(cs);
        REQUIRE(c.size() == big.size());
        double run = 0;
        for (std::size_t i = 0; i < big.size(); ++i) {
          run += big[i];
          CHECK(c[i] == doctest::Approx(run).epsilon(1e-12));
        }
      }
    }
  }
}

TEST_CASE("the minimum of an empty filtered array is ref's error on every backend; its sum is 0") {
  for (const char* backend : kBackends) {
    for (const char* fuser : {"greedy", "singleton"}) {
      const std::string where = std::string(backend) + " " + fuser;
      CAPTURE(where);
      Program p(backend, fuser);
      const int n = 8;
      const BaseId xs = p.input(data(n));
      const BaseId m = p.base(DType::Bool, n), e = p.base(DType::Float64, n);
      const BaseId lo = p.base(DType::Float64, 1), s = p.base(DType::Float64, 1);
      p.op(Opcode::Greater, p.all(m), {v(p.all(xs)), f64(100)});  // nothing is kept
      p.op(Opcode::Compress, p.all(e), {v(p.all(xs)), v(p.all(m))});
      p.op(Opcode::AddReduce, p.scalar(s), {v(p.all(e))});
      p.op(Opcode::MinimumReduce, p.scalar(lo), {v(p.all(e))});
      CHECK_THROWS_WITH_AS(p.read<double>(lo), doctest::Contains("minimum_reduce over an empty axis"), Error);
      // Alone, the sum and the filtered array are fine; fused, the failing
      // block poisons what it writes (docs/semantics.md), as for a gather.
      if (std::string(fuser) == "singleton") {
        CHECK(p.rt().length(e) == 0);
        CHECK(p.read<double>(s)[0] == 0.0);
      }
    }
  }
}

TEST_CASE("a class member written from the host is an ordinary array again") {
  Program p("ref", "greedy");
  const int n = 6;
  const std::vector<double> x = data(n);
  const BaseId xs = p.input(x);
  const BaseId m = p.base(DType::Bool, n), e = p.base(DType::Float64, n), ys = p.base(DType::Float64, n);
  p.op(Opcode::Greater, p.all(m), {v(p.all(xs)), f64(0)});
  p.op(Opcode::Compress, p.all(e), {v(p.all(xs)), v(p.all(m))});
  CHECK_THROWS_AS(p.op(Opcode::Add, p.all(ys), {v(p.all(e)), v(p.all(xs))}), Error);  // bad1
  const std::vector<double> w(n, 1.5);
  p.rt().write(e, w.data(), w.size() * sizeof(double));
  CHECK(p.rt().length(e) == n);
  p.op(Opcode::Add, p.all(ys), {v(p.all(e)), v(p.all(xs))});
  const std::vector<double> got = p.read<double>(ys);
  for (int i = 0; i < n; ++i) CHECK(got[i] == 1.5 + x[i]);
}
