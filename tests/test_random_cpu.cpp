// `random` on the cpu backend, whose kernels take Philox blocks 8 at a time
// (16 elements, a block serving two) from a memo per statement and thread
// (c_emitter.cpp, chunked random; AVX2 when the compiler targets it, else one
// block at a time): every element equals random_value (backends/philox.hpp,
// what ref computes) for every dtype, for lengths that end inside a group
// of 16 or a block, for views whose flat
// index runs against memory order, for several random statements fused in
// one parallel loop, and with the AVX2 path compiled out. A rank-1 kernel
// takes each group's 16 values at once (CPrinter: fill_random_*) and its
// element loop has no memo: its reductions and scans equal ref's too.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "backends/c_printer.hpp"
#include "backends/philox.hpp"
#include "tests/cpu_test_util.hpp"
#include "tests/ref_test_util.hpp"

using namespace reftest;  // tests only

namespace {

// Default flags (-march=native: AVX2 on most hosts) and flags without any
// -march (x86-64 baseline: the one-block-at-a-time fallback).
const std::vector<std::string> kFlags = {"", "-O2 -fopenmp -fno-math-errno -ffp-contract=off"};

arrvm::Config cpu_config(const std::string& dir, const std::string& cflags) {
  arrvm::Config c = cputest::config("cpu", dir);
  if (!cflags.empty()) c.cflags = cflags;
  return c;
}

template <typename T>
Vec<T> read(arrvm::Runtime& rt, BaseId id) {
  Vec<T> out(static_cast<std::size_t>(rt.bases().find(id)->nelem));
  rt.read(id, out.data(), out.size() * sizeof(Host<T>));
  return out;
}

}  // namespace

TEST_CASE_TEMPLATE("cpu random equals random_value on every dtype and length", T, REFTEST_ALL) {
  cputest::TempDir dir;
  for (const std::string& flags : kFlags) {
    CAPTURE(flags);
    arrvm::Runtime rt(cpu_config(dir.path(), flags));
    for (int64_t n : {1, 2, 3, 15, 16, 17, 31, 33, 1000, 100003}) {
      CAPTURE(n);
      const uint64_t seed = 0x0123456789abcdefull + static_cast<uint64_t>(n);
      const BaseId o = rt.new_base(dt<T>(), n);
      rt.issue(make(Opcode::Random, vec(o, n), {}, 0, seed));
      const Vec<T> got = read<T>(rt, o);
      int bad = 0;
      for (int64_t i = 0; i < n; ++i) {
        if (!same_element(got[i],
                          static_cast<Host<T>>(arrvm::random_value<T>(seed, static_cast<uint64_t>(i)))))
          ++bad;
      }
      CHECK(bad == 0);
      rt.free_base(o);
    }
  }
}

TEST_CASE("cpu random on a reversed 2-D view uses the row-major index in the view") {
  cputest::TempDir dir;
  for (const std::string& flags : kFlags) {
    CAPTURE(flags);
    arrvm::Runtime rt(cpu_config(dir.path(), flags));
    const int64_t rows = 37, cols = 11;  // groups of 16 (and blocks) straddle rows
    const BaseId o = rt.new_base(DType::UInt64, 2 * rows * cols);
    // Element (r, c) at offset 2 * (rows * cols - 1 - (r * cols + c)): reversed, every other slot.
    rt.issue(make(Opcode::Random, view(o, 2 * (rows * cols - 1), {rows, cols}, {-2 * cols, -2}), {}, 0, 99));
    const Vec<uint64_t> got = read<uint64_t>(rt, o);
    int bad = 0;
    for (int64_t f = 0; f < rows * cols; ++f) {
      if (got[2 * (rows * cols - 1 - f)] != arrvm::random_value<uint64_t>(99, static_cast<uint64_t>(f)))
        ++bad;
      if (got[2 * (rows * cols - 1 - f) + 1] != 0) ++bad;
    }
    CHECK(bad == 0);
  }
}

TEST_CASE("cpu random: several random statements fused in one parallel loop keep their streams") {
  cputest::TempDir dir;
  for (const std::string& flags : kFlags) {
    CAPTURE(flags);
    arrvm::Runtime rt(cpu_config(dir.path(), flags));
    const int64_t n = 50001;
    const BaseId x = rt.new_base(DType::Float64, n), y = rt.new_base(DType::Float64, n),
                 z = rt.new_base(DType::Float64, n), s = rt.new_base(DType::Float64, n);
    // x, y: two seeds read alternately; z: x's seed again (one memo).
    rt.issue(make(Opcode::Random, vec(x, n), {}, 0, 100));
    rt.issue(make(Opcode::Random, vec(y, n), {}, 0, 101));
    rt.issue(make(Opcode::Random, vec(z, n), {}, 0, 100));
    rt.issue(make(Opcode::Add, vec(s, n), {in(vec(x, n)), in(vec(y, n))}));
    rt.issue(make(Opcode::Subtract, vec(s, n), {in(vec(s, n)), in(vec(z, n))}));
    rt.free_base(x);
    rt.free_base(z);
    const Vec<double> got = read<double>(rt, s), gy = read<double>(rt, y);
    CHECK(rt.profile().kernels_launched == 1);
    int bad = 0;
    for (int64_t i = 0; i < n; ++i) {
      const double a = arrvm::random_value<double>(100, static_cast<uint64_t>(i)),
                   b = arrvm::random_value<double>(101, static_cast<uint64_t>(i));
      if (got[i] != (a + b) - a || gy[i] != b) ++bad;
    }
    CHECK(bad == 0);
  }
}

TEST_CASE("cpu random: a rank-1 kernel runs over groups of 16 with a stateless element loop, equal to ref") {
  // monte_carlo_pi's kernel (x*x + y*y <= 1 of two randoms, counted) and a
  // running sum of a random: printed over whole groups (fill_random_*), with
  // values equal to random_value (the count exactly, the running sum bit for
  // bit: its sweep stays sequential). A 2-D random keeps the memo.
  cputest::TempDir dir;
  for (const std::string& flags : kFlags) {
    CAPTURE(flags);
    for (int64_t n : {1, 15, 16, 17, 37, 100003}) {
      CAPTURE(n);
      arrvm::Runtime rt(cpu_config(dir.path(), flags));
      const BaseId x = rt.new_base(DType::Float64, n), y = rt.new_base(DType::Float64, n),
                   r = rt.new_base(DType::Float64, n), b = rt.new_base(DType::Bool, n),
                   c = rt.new_base(DType::Int64, n), count = rt.new_base(DType::Int64, 1),
                   run = rt.new_base(DType::Float64, n);
      const uint64_t sx = 7 + static_cast<uint64_t>(n), sy = 8 + static_cast<uint64_t>(n);
      rt.issue(make(Opcode::Random, vec(x, n), {}, 0, sx));
      rt.issue(make(Opcode::Random, vec(y, n), {}, 0, sy));
      rt.issue(make(Opcode::Multiply, vec(r, n), {in(vec(x, n)), in(vec(x, n))}));
      rt.issue(make(Opcode::Multiply, vec(y, n), {in(vec(y, n)), in(vec(y, n))}));
      rt.issue(make(Opcode::Add, vec(r, n), {in(vec(r, n)), in(vec(y, n))}));
      rt.issue(make(Opcode::LessEqual, vec(b, n), {in(vec(r, n)), konst(1.0)}));
      rt.issue(make(Opcode::Identity, vec(c, n), {in(vec(b, n))}));
      rt.issue(make(Opcode::AddReduce, view(count, 0, {}, {}), {in(vec(c, n))}, 0));
      for (BaseId t : {x, y, r, b, c}) rt.free_base(t);
      const Vec<int64_t> got = read<int64_t>(rt, count);
      rt.issue(make(Opcode::Random, vec(run, n), {}, 0, sx));
      rt.issue(make(Opcode::AddAccumulate, vec(run, n), {in(vec(run, n))}, 0));
      const Vec<double> sums = read<double>(rt, run);
      int64_t want = 0;
      double acc = -0.0;
      int bad = 0;
      for (int64_t i = 0; i < n; ++i) {
        const double a = arrvm::random_value<double>(sx, static_cast<uint64_t>(i)),
                     e = arrvm::random_value<double>(sy, static_cast<uint64_t>(i));
        want += a * a + e * e <= 1.0 ? 1 : 0;
        acc += a;
        if (sums[i] != acc) ++bad;
      }
      CHECK(got[0] == want);
      CHECK(bad == 0);
    }
  }
  arrvm::codegen::CDialect dialect;
  dialect.chunked_random = true;
  arrvm::codegen::LoopKernel k;
  k.rank = 1;
  k.views = {DType::Float64};
  k.written = {true};
  k.consts = {DType::UInt64};
  arrvm::codegen::Stmt st;
  st.op = Opcode::Random;
  st.out = arrvm::codegen::Arg{arrvm::codegen::ArgKind::View, 0, DType::Float64};
  st.seed_slot = 0;
  k.body = {st};
  k.loops = {{0, arrvm::codegen::LoopKind::Parallel}};
  const std::string one = arrvm::codegen::CPrinter(dialect).print(k, "k");
  CHECK(one.find("fill_random_float64(C0, arrvm_g, arrvm_rv0);") != std::string::npos);
  CHECK(one.find("arrvm_rm0") == std::string::npos);
  k.rank = 2;
  k.loops = {{0, arrvm::codegen::LoopKind::Parallel}, {1, arrvm::codegen::LoopKind::Serial}};
  const std::string two = arrvm::codegen::CPrinter(dialect).print(k, "k");
  CHECK(two.find("arrvm_g") == std::string::npos);
  CHECK(two.find("random_float64(C0, f, &arrvm_rm0)") != std::string::npos);
}
