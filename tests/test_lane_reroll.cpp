// Loops rolled back into arrays (rewrite/lane_reroll.hpp): a run of lanes
// that differ only by a fixed step in where they are becomes one lane with
// one more axis; lanes that depend on each other, differ in a constant,
// or leave a temporary to what follows do not (or not all of them).
#include <doctest/doctest.h>

#include <arrvm/arrvm.hpp>
#include <string>
#include <vector>

#include "engine/runtime.hpp"
#include "rewrite/lane_reroll.hpp"
#include "tests/cpu_test_util.hpp"

namespace {

using arrvm::DType;
using arrvm::Instruction;
using arrvm::Opcode;
using arrvm::Operand;

// Base 0: x (m x n, row-major), base 1: q (m), base 2: r (n); temporaries from 100.
constexpr int64_t m = 16, n = 64;

arrvm::View column(arrvm::BaseId b, int64_t c) {
  arrvm::View v = arrvm::make_view(b, c, {m}, {n});
  v.dtype = DType::Float64;
  return v;
}
arrvm::View vec(arrvm::BaseId b, int64_t len, int64_t offset = 0) {
  arrvm::View v = arrvm::contiguous_view(b, DType::Float64, {len});
  v.offset = offset;
  return v;
}
arrvm::View scalar(arrvm::BaseId b, int64_t offset) {
  arrvm::View v = arrvm::make_view(b, offset, {}, {});
  v.dtype = DType::Float64;
  return v;
}

Instruction op2(Opcode op, const arrvm::View& out, const Operand& a, const Operand& b) {
  Instruction s;
  s.op = op;
  s.out = out;
  s.add_input(a);
  s.add_input(b);
  return s;
}
Instruction reduce(const arrvm::View& out, const arrvm::View& a) {
  Instruction s;
  s.op = Opcode::AddReduce;
  s.out = out;
  s.axis = 0;
  s.add_input(Operand::of(a));
  return s;
}
Instruction free_of(arrvm::BaseId b, int64_t len) {
  Instruction s;
  s.op = Opcode::Free;
  s.out = vec(b, len);
  return s;
}

// r[c] = sum(q * x[:, c]) for c in [first, first + lanes): a multiply into
// a temporary, its reduction, its free.
std::vector<Instruction> dots(int lanes, double scale = 1.0, bool vary_scale = false) {
  std::vector<Instruction> batch;
  for (int c = 0; c < lanes; ++c) {
    const arrvm::BaseId t = 100 + c;
    const double s = vary_scale ? scale + c : scale;
    batch.push_back(op2(Opcode::Multiply, vec(t, m), Operand::of(column(0, c)),
                        Operand::of(arrvm::Scalar::of_double(DType::Float64, s))));
    batch.push_back(reduce(scalar(2, c), vec(t, m)));
    batch.push_back(free_of(t, m));
  }
  return batch;
}

struct Rolled {
  std::vector<Instruction> batch;
  std::vector<uint64_t> origin;
  std::size_t runs = 0;
  std::vector<arrvm::BaseId> fresh;
};

Rolled roll(std::vector<Instruction> batch) {
  Rolled r;
  r.batch = std::move(batch);
  for (std::size_t i = 0; i < r.batch.size(); ++i) r.origin.push_back(i);
  arrvm::BaseId next = 1000;
  r.runs = arrvm::reroll_lanes(&r.batch, &r.origin, [&](DType, int64_t) {
    r.fresh.push_back(next);
    return next++;
  });
  return r;
}

}  // namespace

TEST_CASE("lane reroll: independent dot products roll into one lane with one more axis, innermost") {
  const Rolled r = roll(dots(13));
  CHECK(r.runs == 1);
  REQUIRE(r.fresh.size() == 1);
  REQUIRE(r.batch.size() >= 3);
  // multiply t'[m, 13] <- x[:, 0:13]: the columns lie closer than a
  // column's rows, so the lane axis goes last: shape (m, 13), strides
  // (n, 1) on x, (13, 1) on the temporary; the reduction keeps its axis.
  const Instruction& mul = r.batch[0];
  CHECK(mul.op == Opcode::Multiply);
  CHECK(mul.out.base == r.fresh[0]);
  CHECK(mul.out.shape == arrvm::Dims{m, 13});
  CHECK(mul.out.stride == arrvm::Dims{13, 1});
  CHECK(mul.in[0].view.base == 0);
  CHECK(mul.in[0].view.shape == arrvm::Dims{m, 13});
  CHECK(mul.in[0].view.stride == arrvm::Dims{n, 1});
  const Instruction& red = r.batch[1];
  CHECK(red.op == Opcode::AddReduce);
  CHECK(red.axis == 0);
  CHECK(red.out.base == 2);
  CHECK(red.out.shape == arrvm::Dims{13});
  CHECK(red.out.stride == arrvm::Dims{1});
  CHECK(r.batch[2].op == Opcode::Free);
  CHECK(r.batch[2].out.base == r.fresh[0]);
  // The lanes' own temporaries are freed after the run (never written now).
  CHECK(r.batch.size() == 3 + 13);
  for (std::size_t i = 3; i < r.batch.size(); ++i) CHECK(r.batch[i].op == Opcode::Free);
  CHECK(r.origin.size() == r.batch.size());
}

TEST_CASE("lane reroll: lanes that differ in a constant, or depend on each other, stay as they are") {
  SUBCASE("constants") {
    const std::vector<Instruction> batch = dots(6, 1.0, /*vary_scale=*/true);
    const Rolled r = roll(batch);
    CHECK(r.runs == 0);
    CHECK(r.batch.size() == batch.size());
    CHECK(r.fresh.empty());
  }
  SUBCASE("a chain: x[:, c + 1] = x[:, c] * 2") {
    std::vector<Instruction> batch;
    for (int c = 0; c < 6; ++c) {
      batch.push_back(op2(Opcode::Multiply, column(0, c + 1), Operand::of(column(0, c)),
                          Operand::of(arrvm::Scalar::of_double(DType::Float64, 2.0))));
    }
    const Rolled r = roll(batch);
    CHECK(r.runs == 0);
    CHECK(r.batch.size() == batch.size());
  }
  SUBCASE("every lane writes the same element") {
    std::vector<Instruction> batch;
    for (int c = 0; c < 6; ++c) {
      batch.push_back(op2(Opcode::Add, scalar(2, 0), Operand::of(scalar(1, c)),
                          Operand::of(arrvm::Scalar::of_double(DType::Float64, 1.0))));
    }
    CHECK(roll(batch).runs == 0);
  }
}

TEST_CASE("lane reroll: a temporary the last lane leaves to what follows keeps that lane out") {
  std::vector<Instruction> batch = dots(6);
  // The last lane's temporary is read after the run, then freed there.
  Instruction last_free = batch.back();
  batch.pop_back();
  batch.push_back(op2(Opcode::Add, vec(1, m), Operand::of(vec(105, m)), Operand::of(vec(1, m))));
  batch.push_back(last_free);
  const Rolled r = roll(batch);
  CHECK(r.runs == 1);
  REQUIRE(!r.batch.empty());
  CHECK(r.batch[0].out.shape == arrvm::Dims{m, 5});  // five lanes rolled, the sixth as it was
  bool sixth = false;
  for (const Instruction& in : r.batch) sixth |= in.op == Opcode::Multiply && in.out.base == 105;
  CHECK(sixth);
}

TEST_CASE("lane reroll: loops over columns on cpu and opencl equal ref; a chain is left alone") {
  const cputest::TempDir dir;
  constexpr int64_t rows = 300, cols = 24;
  auto run = [&](const std::string& backend, int variant, arrvm::Profile* profile) {
    arrvm::Vm vm({{"backend", backend},
                  {"eager", "off"},
                  {"tiered", "off"},
                  {"cache_dir", dir.path() + "/" + backend},
                  {"log", "off"}});
    using arrvm::Slice;
    const arrvm::Array i =
        arrvm::Array::arange(0.0, static_cast<double>(rows), 1.0, DType::Float64, vm).reshape({rows, 1});
    const arrvm::Array j =
        arrvm::Array::arange(1.0, static_cast<double>(cols + 1), 1.0, DType::Float64, vm).reshape({1, cols});
    arrvm::Array x = arrvm::sin(i * 0.01 * j);
    arrvm::Array w = arrvm::Array::arange(0.5, 0.5 + static_cast<double>(cols), 1.0, DType::Float64, vm);
    arrvm::Array y = arrvm::Array::zeros({rows, cols}, DType::Float64, vm);
    arrvm::Array s = arrvm::Array::zeros({cols}, DType::Float64, vm);
    vm.flush();
    for (int64_t c = 0; c < cols; ++c) {
      if (variant == 0) {  // independent columns: y[:, c] = x[:, c] * w[c] + 1; s[c] = sum(x[:, c] ** 2)
        y(Slice(), c).assign(x(Slice(), c) * w(Slice(c, c + 1)) + 1.0);
        s(Slice(c, c + 1)).assign((x(Slice(), c) * x(Slice(), c)).sum().reshape({1}));
      } else if (c + 1 < cols) {  // a chain through the columns: x[:, c + 1] += x[:, c] * 0.5
        x(Slice(), c + 1).assign(x(Slice(), c + 1) + x(Slice(), c) * 0.5);
      }
    }
    vm.flush();
    *profile = vm.runtime().profile();
    std::vector<double> v = (variant == 0 ? y : x).to_vector<double>();
    const std::vector<double> sv = s.to_vector<double>();
    v.insert(v.end(), sv.begin(), sv.end());
    return v;
  };
  for (const char* backend : {"cpu", "opencl"}) {
    for (int variant : {0, 1}) {
      CAPTURE(backend);
      CAPTURE(variant);
      arrvm::Profile ref_p, cpu_p;
      const std::vector<double> want = run("ref", variant, &ref_p);
      const std::vector<double> got = run(backend, variant, &cpu_p);
      REQUIRE(got.size() == want.size());
      for (std::size_t k = 0; k < got.size(); ++k) {
        CAPTURE(k);
        CHECK(got[k] == doctest::Approx(want[k]).epsilon(1e-12));
      }
      if (variant == 0) {
        CHECK(cpu_p.pass("reroll") >= 1);
        if (std::string(backend) == "cpu")
          CHECK(cpu_p.kernels_launched < static_cast<uint64_t>(cols));  // one launch for many columns
      } else {
        CHECK(cpu_p.pass("reroll") == 0);
      }
      CHECK(ref_p.pass("reroll") == 0);  // (backends that compile kernels only)
    }
  }
}
