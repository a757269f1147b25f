// A reduction along an axis other than the last on cpu (schedule's
// OuterSweep, backends/loop_ir.hpp): which blocks get it, and that they
// compute exactly what ref computes, bit for bit (every output element
// still combines its inputs in ref's order), over odd sizes, several
// opcodes and dtypes, an empty axis, a fused copy, in parallel.
#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "backends/cpu/cpu_backend.hpp"
#include "backends/loop_ir.hpp"
#include "engine/runtime.hpp"
#include "tests/cpu_test_util.hpp"
#include "tests/reduce_program.hpp"

using namespace arrvm;  // tests only

namespace {

using codegen::LoopKind;
using Loops = std::vector<std::pair<int, LoopKind>>;

Dims contiguous(const Dims& shape) {
  return row_major_strides(shape);
}

View whole(BaseId b, DType t, const Dims& shape) {
  return reduceprog::typed_view(b, t, 0, shape, contiguous(shape));
}

Loops loops_of(const std::vector<Instruction>& block, codegen::Target target = codegen::Target::Cpu) {
  std::vector<uint32_t> ids;
  for (uint32_t i = 0; i < block.size(); ++i) ids.push_back(i);
  Loops r;
  for (const codegen::Loop& l : codegen::lower(block, ids, target).kernel.loops)
    r.emplace_back(l.axis, l.kind);
  return r;
}

// out = op-reduce(x, axis) with x contiguous of `shape` (bases 1 and 2).
Instruction reduce(Opcode op, DType t, const Dims& shape, int axis, BaseId x = 1, BaseId out = 2) {
  return reduceprog::unary(op, whole(out, t, shape.without(axis)), whole(x, t, shape), axis);
}

}  // namespace

TEST_CASE("schedule: a reduction along a non-last axis of contiguous rows sweeps outside the last axis") {
  // NumPy's x.sum(axis=0) of a matrix: each thread its share of the columns.
  CHECK(loops_of({reduce(Opcode::AddReduce, DType::Float64, {64, 40}, 0)}) ==
        Loops{{0, LoopKind::OuterSweep}, {1, LoopKind::SharedSimd}});
  // lattice_boltzmann's density = F.sum(axis=0) of (19, n, n, n): the
  // middle axes outside the sweep, the first of them in parallel.
  CHECK(
      loops_of({reduce(Opcode::AddReduce, DType::Float64, {19, 6, 5, 40}, 0)}) ==
      Loops{{1, LoopKind::Parallel}, {2, LoopKind::Serial}, {0, LoopKind::OuterSweep}, {3, LoopKind::Simd}});
  CHECK(loops_of({reduce(Opcode::MaximumReduce, DType::Int32, {6, 19, 40}, 1)}) ==
        Loops{{0, LoopKind::Parallel}, {1, LoopKind::OuterSweep}, {2, LoopKind::Simd}});
  // Not where the inner sweep is as good or the outer one is not exact.
  CHECK(loops_of({reduce(Opcode::AddReduce, DType::Float64, {64, 40}, 1)}) ==
        Loops{{0, LoopKind::Parallel}, {1, LoopKind::Sweep}});  // the last axis: contiguous already
  CHECK(loops_of({reduce(Opcode::AddReduce, DType::Float64, {64, 5}, 0)}) ==
        Loops{{1, LoopKind::Parallel}, {0, LoopKind::Sweep}});  // rows shorter than a vector
  Instruction transposed = reduce(Opcode::AddReduce, DType::Float64, {64, 40}, 0);
  transposed.in[0].view.stride = {1, 64};  // strided rows: nothing won
  CHECK(loops_of({transposed}) == Loops{{1, LoopKind::Parallel}, {0, LoopKind::Sweep}});
  // The output a row of the input's own base: the partial sums would
  // overwrite inputs not read yet.
  Instruction in_place = reduce(Opcode::AddReduce, DType::Float64, {64, 40}, 0, 1, 1);
  in_place.out.offset = 63 * 40;
  CHECK(loops_of({in_place}) == Loops{{1, LoopKind::Parallel}, {0, LoopKind::Sweep}});
  // Scans carry from one element to the next along the sweep: inner.
  Instruction scan = reduceprog::unary(Opcode::AddAccumulate, whole(2, DType::Float64, {64, 40}),
                                       whole(1, DType::Float64, {64, 40}), 0);
  CHECK(loops_of({scan}) == Loops{{1, LoopKind::Parallel}, {0, LoopKind::Sweep}});
  // OpenCL keeps its work items.
  CHECK(loops_of({reduce(Opcode::AddReduce, DType::Float64, {64, 40}, 0)}, codegen::Target::OpenCl) ==
        Loops{{1, LoopKind::WorkItems}, {0, LoopKind::Sweep}});
}

namespace {

struct Case {
  Opcode op;
  DType t;
  Dims shape;
  int axis;
};

// Values with both signs, zeros of both signs and (for floats) a NaN.
std::vector<uint8_t> data_for(DType t, int64_t n) {
  std::vector<uint8_t> bytes(static_cast<std::size_t>(n) * dtype_size(t));
  for (int64_t i = 0; i < n; ++i) {
    const int64_t k = (i * 7919) % 1009 - 504;
    uint8_t* p = bytes.data() + i * dtype_size(t);
    if (t == DType::Float64) {
      double v = static_cast<double>(k) / 64.0 + 1.0 / static_cast<double>(i + 3);
      if (i % 97 == 5) v = -0.0;
      if (i == n / 2 && n > 1000) v = std::numeric_limits<double>::quiet_NaN();
      std::memcpy(p, &v, sizeof v);
    } else if (t == DType::Float32) {
      const float v = static_cast<float>(k) / 8.0f;
      std::memcpy(p, &v, sizeof v);
    } else if (t == DType::Int32) {
      const int32_t v = static_cast<int32_t>(k * 4099);
      std::memcpy(p, &v, sizeof v);
    } else if (t == DType::Bool) {
      *p = static_cast<uint8_t>(k % 5 != 0);
    }
  }
  return bytes;
}

// The output bytes of `c` on `backend` (with a fused copy of the input
// when `with_copy`: the copy's bytes follow).
std::vector<uint8_t> run(const std::string& backend, const Case& c, bool with_copy) {
  cputest::TempDir dir;
  Runtime rt(cputest::config(backend, dir.path()));
  const int64_t n = c.shape.product(), m = c.shape.without(c.axis).product();
  const BaseId x = rt.new_base(c.t, n), out = rt.new_base(c.t, m);
  const std::vector<uint8_t> data = data_for(c.t, n);
  rt.write(x, data.data(), data.size());
  BaseId copy = 0;
  if (with_copy) {
    copy = rt.new_base(c.t, n);
    rt.issue(reduceprog::unary(Opcode::Identity, whole(copy, c.t, c.shape), whole(x, c.t, c.shape)));
  }
  rt.issue(reduce(c.op, c.t, c.shape, c.axis, x, out));
  std::vector<uint8_t> r(static_cast<std::size_t>(m) * dtype_size(c.t));
  rt.read(out, r.data(), r.size());
  if (with_copy) {
    std::vector<uint8_t> cb(data.size());
    rt.read(copy, cb.data(), cb.size());
    CHECK(cb == data);
    r.insert(r.end(), cb.begin(), cb.end());
  }
  return r;
}

}  // namespace

TEST_CASE("cpu: reductions sweeping outside the last axis equal ref bit for bit") {
  const std::vector<Case> cases = {
      {Opcode::AddReduce, DType::Float64, {600, 1003}, 0},  // parallel, shares not a multiple of 8
      {Opcode::AddReduce, DType::Float64, {37, 41}, 0},
      {Opcode::MultiplyReduce, DType::Float64, {37, 41}, 0},
      {Opcode::MinimumReduce, DType::Float64, {37, 41}, 0},
      {Opcode::MaximumReduce, DType::Float64, {300, 1003}, 0},  // with a NaN
      {Opcode::AddReduce, DType::Float32, {5, 19, 41}, 1},
      {Opcode::MultiplyReduce, DType::Float32, {5, 19, 41}, 1},
      {Opcode::AddReduce, DType::Int32, {19, 6, 5, 40}, 0},
      {Opcode::MaximumReduce, DType::Int32, {3, 50, 2, 33}, 1},
      {Opcode::LogicalAndReduce, DType::Bool, {9, 64}, 0},
      {Opcode::LogicalOrReduce, DType::Bool, {9, 64}, 0},
      // An empty axis: ref's identity (+0.0 for a float sum, not the sweep's -0.0 start).
      {Opcode::AddReduce, DType::Float64, {0, 16}, 0},
      {Opcode::MultiplyReduce, DType::Float64, {4, 0, 16}, 1},
      {Opcode::AddReduce, DType::Int32, {0, 16}, 0},
  };
  for (const Case& c : cases) {
    for (bool with_copy : {false, true}) {
      if (with_copy && c.shape.product() == 0) continue;
      CAPTURE(opcode_name(c.op));
      CAPTURE(dtype_name(c.t));
      CAPTURE(c.shape.product());
      CAPTURE(c.axis);
      CAPTURE(with_copy);
      if (c.shape[c.shape.size() - 1] >= 8) {
        // A float32 sum accumulates in float64 (accumulator_dtype), not in its output: no outer sweep.
        const bool outer = accumulator_dtype(c.op, c.t) == c.t;
        CHECK((loops_of({reduce(c.op, c.t, c.shape, c.axis)})[c.shape.size() - 2].second ==
               LoopKind::OuterSweep) == outer);
      }
      CHECK(run("cpu", c, with_copy) == run("ref", c, with_copy));
    }
  }
}

TEST_CASE("cpu: column sums sweeping outside the last axis equal hand-computed values") {
  // x[r][c] = (r mod 7) - 3 + c / 2 over 600 x 1003: column c sums to
  // -5 + 300 c exactly (600 = 85 * 7 + 5; a full cycle of r mod 7 - 3 sums to 0).
  cputest::TempDir dir;
  Runtime rt(cputest::config("cpu", dir.path()));
  constexpr int64_t R = 600, C = 1003;
  std::vector<double> x(R * C);
  for (int64_t r = 0; r < R; ++r) {
    for (int64_t c = 0; c < C; ++c)
      x[r * C + c] = static_cast<double>(r % 7 - 3) + 0.5 * static_cast<double>(c);
  }
  const BaseId b = rt.new_base(DType::Float64, R * C), s = rt.new_base(DType::Float64, C);
  rt.write(b, x.data(), x.size() * sizeof(double));
  rt.issue(reduce(Opcode::AddReduce, DType::Float64, {R, C}, 0, b, s));
  std::vector<double> got(C);
  rt.read(s, got.data(), got.size() * sizeof(double));
  int wrong = 0;
  for (int64_t c = 0; c < C; ++c) wrong += got[c] != -5.0 + 300.0 * static_cast<double>(c);
  CHECK(wrong == 0);
  CHECK(cpu_backend_stats(rt.backend()).kernels_launched == 1);
}

namespace {

// nbody's shape of block: an outer product reduced along axis 0,
//   d = x[:, None] - x[None, :];  s = (d * (d < 0.25)).sum(axis=0)
// with the bool cast to float64 (a select in the generated C), the n x n
// temporaries contracted.
std::vector<Instruction> outer_product_block(int64_t n, BaseId x, BaseId d, BaseId m, BaseId f, BaseId s) {
  const DType t = DType::Float64;
  auto binary = [](Opcode op, const View& out, const Operand& a, const Operand& b) {
    Instruction i;
    i.op = op;
    i.out = out;
    i.add_input(a);
    i.add_input(b);
    return i;
  };
  const View column = reduceprog::typed_view(x, t, 0, {n, n}, {1, 0});
  const View row = reduceprog::typed_view(x, t, 0, {n, n}, {0, 1});
  return {
      binary(Opcode::Subtract, whole(d, t, {n, n}), Operand::of(column), Operand::of(row)),
      binary(Opcode::Less, whole(m, DType::Bool, {n, n}), Operand::of(whole(d, t, {n, n})),
             Operand::of(Scalar::of_double(t, 0.25))),
      reduceprog::unary(Opcode::Identity, whole(f, t, {n, n}), whole(m, DType::Bool, {n, n})),
      binary(Opcode::Multiply, whole(f, t, {n, n}), Operand::of(whole(f, t, {n, n})),
             Operand::of(whole(d, t, {n, n}))),
      reduce(Opcode::AddReduce, t, {n, n}, 0, f, s),
  };
}

// The block with the frees that contract its temporaries (bases 2, 3, 4).
std::vector<Instruction> contracted(std::vector<Instruction> block, int64_t n) {
  for (const auto& [b, t] : {std::pair{2, DType::Float64}, {3, DType::Bool}, {4, DType::Float64}}) {
    Instruction in;
    in.op = Opcode::Free;
    in.out = whole(b, t, {n * n});
    block.push_back(in);
  }
  return block;
}

}  // namespace

TEST_CASE("schedule: an outer product reduced along axis 0 sweeps outside the last axis while its rows fit") {
  // No input strided along the sweep, but the inner sweep would be a
  // scalar loop; swept outside, the last axis vectorizes.
  CHECK(loops_of(contracted(outer_product_block(1000, 1, 2, 3, 4, 5), 1000)) ==
        Loops{{0, LoopKind::OuterSweep}, {1, LoopKind::SharedSimd}});
  // Output rows over 256 KB (40000 doubles) would be re-read from beyond
  // L2 once per index of the sweep: inner sweep.
  CHECK(loops_of(contracted(outer_product_block(40000, 1, 2, 3, 4, 5), 40000)) ==
        Loops{{1, LoopKind::Parallel}, {0, LoopKind::Sweep}});
}

TEST_CASE("cpu: an outer product reduced along axis 0 equals ref and a hand loop bit for bit") {
  for (const int64_t n : {9, 37, 1003}) {  // 1003: parallel, shares not a multiple of 8
    CAPTURE(n);
    std::vector<double> x(static_cast<std::size_t>(n));
    for (int64_t i = 0; i < n; ++i) x[i] = static_cast<double>((i * 7919) % 1009 - 504) / 1024.0;
    std::vector<double> hand(static_cast<std::size_t>(n));
    for (int64_t j = 0; j < n; ++j) {
      double acc = -0.0;  // ref's sum: from -0.0, in index order
      for (int64_t i = 0; i < n; ++i) {
        const double d = x[i] - x[j];
        acc += (d < 0.25 ? 1.0 : 0.0) * d;
      }
      hand[j] = acc;
    }
    for (const std::string backend : {"cpu", "ref"}) {
      CAPTURE(backend);
      cputest::TempDir dir;
      Runtime rt(cputest::config(backend, dir.path()));
      const BaseId xb = rt.new_base(DType::Float64, n), s = rt.new_base(DType::Float64, n);
      const BaseId d = rt.new_base(DType::Float64, n * n), m = rt.new_base(DType::Bool, n * n),
                   f = rt.new_base(DType::Float64, n * n);
      rt.write(xb, x.data(), x.size() * sizeof(double));
      for (const Instruction& in : outer_product_block(n, xb, d, m, f, s)) rt.issue(in);
      for (BaseId b : {d, m, f}) rt.free_base(b);
      std::vector<double> got(static_cast<std::size_t>(n));
      rt.read(s, got.data(), got.size() * sizeof(double));
      CHECK(std::memcmp(got.data(), hand.data(), got.size() * sizeof(double)) == 0);
      if (backend == "cpu") {
        CHECK(cpu_backend_stats(rt.backend()).kernels_launched == 1);
        CHECK(rt.profile().arrays_contracted == 3);
      }
    }
  }
}
