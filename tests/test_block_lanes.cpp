// Kernels that do not change with the trip count (rewrite/block_lanes.hpp):
// a block holding a run of independent lanes is cut into chunks of 8, 4, 2
// and 1 lanes, in program order, never between two uses of a temporary.
#include <doctest/doctest.h>

#include <arrvm/arrvm.hpp>
#include <vector>

#include "engine/runtime.hpp"
#include "rewrite/block_lanes.hpp"
#include "tests/cpu_test_util.hpp"

namespace {

using arrvm::Block;
using arrvm::DType;
using arrvm::Instruction;
using arrvm::Opcode;
using arrvm::Operand;

// Base 0: x (m x n, row-major), base 1: q (m); temporaries from base 100.
constexpr int64_t m = 16, n = 64;

arrvm::View column(int64_t c) {
  arrvm::View v = arrvm::make_view(0, c, {m}, {n});
  v.dtype = DType::Float64;
  return v;
}
arrvm::View vec(arrvm::BaseId b, int64_t len) {
  return arrvm::contiguous_view(b, DType::Float64, {len});
}

Instruction binary(Opcode op, const arrvm::View& out, const arrvm::View& a, const arrvm::View& b) {
  Instruction s;
  s.op = op;
  s.out = out;
  s.add_input(Operand::of(a));
  s.add_input(Operand::of(b));
  return s;
}
Instruction unary(Opcode op, const arrvm::View& out, const arrvm::View& a, int axis = -1) {
  Instruction s;
  s.op = op;
  s.out = out;
  s.axis = axis;
  s.add_input(Operand::of(a));
  return s;
}
Instruction free_of(arrvm::BaseId b) {
  Instruction s;
  s.op = Opcode::Free;
  s.out.base = b;
  return s;
}

// A prefix (q = q * 2) when asked, then `lanes` dot products
// d_c = sum(q * x[:, c]) (multiply into a temporary, reduce, free), all in
// one block.
std::vector<Instruction> dots(int lanes, bool prefix) {
  std::vector<Instruction> batch;
  if (prefix) batch.push_back(binary(Opcode::Multiply, vec(1, m), vec(1, m), vec(1, m)));
  for (int c = 0; c < lanes; ++c) {
    const arrvm::BaseId t = 100 + 2 * c, d = 101 + 2 * c;
    batch.push_back(binary(Opcode::Multiply, vec(t, m), vec(1, m), column(c)));
    batch.push_back(unary(Opcode::AddReduce, vec(d, 1), vec(t, m), 0));
    batch.push_back(free_of(t));
  }
  return batch;
}

arrvm::Partition one_block(std::size_t size) {
  arrvm::Partition p;
  p.blocks.emplace_back();
  for (std::size_t i = size; i-- > 0;) p.blocks[0].push_back(static_cast<uint32_t>(i));  // (any order)
  return p;
}

// The lanes in each part, in order (a prefix part counts 0).
std::vector<int> lanes_of(const arrvm::Partition& p, bool prefix) {
  std::vector<int> sizes;
  uint32_t next = 0;
  for (const Block& b : p.blocks) {
    for (uint32_t i : b) CHECK(i == next++);  // consecutive, in batch order
    sizes.push_back(prefix && b.front() == 0 ? 0 : static_cast<int>(b.size() / 3));
    if (!(prefix && b.front() == 0)) CHECK(b.size() % 3 == 0);  // whole lanes only
  }
  return sizes;
}

}  // namespace

TEST_CASE("block lanes: a run of lanes becomes chunks of 8, 4, 2, 1 lanes; powers of two alone stay whole") {
  struct Case {
    int lanes;
    bool prefix;
    std::vector<int> parts;
  };
  const std::vector<Case> cases = {
      {1, false, {1}},    {2, false, {2}},          {4, false, {4}},        {8, false, {8}},
      {3, false, {2, 1}}, {7, false, {4, 2, 1}},    {13, false, {8, 4, 1}}, {21, false, {8, 8, 4, 1}},
      {4, true, {0, 4}},  {11, true, {0, 8, 2, 1}}, {16, false, {8, 8}},
  };
  for (const Case& c : cases) {
    CAPTURE(c.lanes);
    CAPTURE(c.prefix);
    const std::vector<Instruction> batch = dots(c.lanes, c.prefix);
    arrvm::Partition p = one_block(batch.size());
    const std::size_t split = arrvm::split_lanes(batch, &p);
    CHECK(split == (c.parts.size() > 1 ? 1u : 0u));
    CHECK(lanes_of(p, c.prefix) == c.parts);
  }
}

TEST_CASE("block lanes: no cut between two uses of a temporary") {
  // acc = x[:, 0] * q; acc2 = acc + x[:, 1] * q ... a chain through
  // temporaries: each step reads the one before, so no lane stands alone.
  std::vector<Instruction> batch;
  arrvm::BaseId prev = 200;
  batch.push_back(binary(Opcode::Multiply, vec(prev, m), vec(1, m), column(0)));
  for (int c = 1; c < 11; ++c) {
    const arrvm::BaseId next = 200 + static_cast<arrvm::BaseId>(c);
    batch.push_back(binary(Opcode::Add, vec(next, m), vec(prev, m), column(c)));
    batch.push_back(free_of(prev));
    prev = next;
  }
  batch.push_back(binary(Opcode::Multiply, vec(2, m), vec(prev, m), vec(prev, m)));
  batch.push_back(free_of(prev));
  arrvm::Partition p = one_block(batch.size());
  CHECK(arrvm::split_lanes(batch, &p) == 0);
  CHECK(p.blocks.size() == 1);
}

TEST_CASE("block lanes: Gram-Schmidt's loop compiles kernels that do not grow with its trip count") {
  // for k: Q[:, k] /= |Q[:, k]|; for c > k: Q[:, c] -= Q[:, k] * (Q[:, k] . Q[:, c])
  // One batch whose fused blocks hold n - k - 1 lanes at step k: before the
  // split, one kernel per k for the dots and one for the updates.
  const cputest::TempDir dir;
  auto run = [&](const std::string& backend, int64_t cols, arrvm::Profile* profile) {
    arrvm::Vm vm({{"backend", backend},
                  {"eager", "off"},
                  {"tiered", "off"},
                  {"cache_dir", dir.path() + "/" + std::to_string(cols)},
                  {"log", "off"}});
    constexpr int64_t rows = 2000;
    // q[i, j] = cos(0.013 i (j + 1)): independent columns.
    const arrvm::Array i =
        arrvm::Array::arange(0.0, static_cast<double>(rows), 1.0, DType::Float64, vm).reshape({rows, 1});
    const arrvm::Array j =
        arrvm::Array::arange(1.0, static_cast<double>(cols + 1), 1.0, DType::Float64, vm).reshape({1, cols});
    arrvm::Array q = arrvm::cos(i * 0.013 * j);
    vm.flush();
    const uint64_t before = vm.runtime().profile().kernels_compiled;  // (the setup's)
    using arrvm::Slice;
    for (int64_t k = 0; k < cols; ++k) {
      arrvm::Array qk = q(Slice(), Slice(k, k + 1));
      q(Slice(), Slice(k, k + 1)).assign(qk / arrvm::sqrt((qk * qk).sum()));
      for (int64_t c = k + 1; c < cols; ++c) {
        arrvm::Array qc = q(Slice(), Slice(c, c + 1));
        const arrvm::Array qk2 = q(Slice(), Slice(k, k + 1));
        q(Slice(), Slice(c, c + 1)).assign(qc - qk2 * (qk2 * qc).sum());
      }
    }
    vm.flush();
    *profile = vm.runtime().profile();
    profile->kernels_compiled -= before;  // the loop's
    return q.to_vector<double>();
  };
  std::vector<uint64_t> compiled;
  for (int64_t cols : {12, 24, 48}) {
    CAPTURE(cols);
    arrvm::Profile ref_p, cpu_p;
    const std::vector<double> want = run("ref", cols, &ref_p);
    const std::vector<double> got = run("cpu", cols, &cpu_p);
    REQUIRE(got.size() == want.size());
    for (std::size_t i = 0; i < got.size(); ++i) CHECK(got[i] == doctest::Approx(want[i]).epsilon(1e-9));
    CHECK(cpu_p.pass("reroll") >= 1);  // (the lanes roll up before fusion: rewrite/lane_reroll.hpp)
    compiled.push_back(cpu_p.kernels_compiled);
  }
  MESSAGE("kernels compiled at 12, 24, 48 columns: " << compiled[0] << ", " << compiled[1] << ", "
                                                     << compiled[2]);
  // Without the lanes pass: about 2 per column (30, 56, 110); with its
  // chunks of 8, 4, 2, 1 lanes: 18, 18, 22 (the whole program). Rolled up:
  // the loop's own kernels, 10 at each: bounded whatever the trip count
  // (the sum of an (m, 1) column is two reductions here; the rolled dot
  // products run as a sweep over rows or as one loop per lane, by their
  // size; a kernel whose work falls below the threads' threshold as the
  // lanes shrink runs its parallel form on one thread, where it had a
  // serial form of its own: 12, 13, 13).
  CHECK(compiled[0] == compiled[1]);
  CHECK(compiled[1] == compiled[2]);
  CHECK(compiled[2] <= 10);
}
