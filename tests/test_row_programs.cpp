// Row programs (vm/row_nest.hpp, RowProgram; fusion/row_nests.hpp): on cpu
// and opencl a reduction along the rows and the work that reads its result
// row by row (an epilogue: `x / x.sum(axis=1)[:, None]`, softmax,
// standardization) run as one kernel, each row (an OpenMP iteration, a work
// item) running its segments in order. The programs below are written the
// way NumPy programs are and must give exactly ref's values on cpu (rows
// shorter than the SIMD sweep threshold: one order of additions), and
// within 1e-12 on opencl (the device's libm); programs whose epilogue reads
// another row's result must not become one block, and random programs of
// reductions, row scalars and shifted views equal ref whatever the engine
// fuses.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

#include "engine/runtime.hpp"
#include "fusion/algorithms.hpp"
#include "fusion/block_set.hpp"
#include "fusion/cost.hpp"
#include "fusion/graph.hpp"
#include "fusion/row_nests.hpp"
#include "include/arrvm/arrvm.hpp"
#include "tests/cpu_test_util.hpp"
#include "tests/fusion_test_util.hpp"
#include "vm/row_nest.hpp"

using arrvm::Array;
using arrvm::Slice;
using arrvm::Vm;

namespace {

Array matrix(int64_t m, int64_t n, const Vm& vm, int64_t salt = 0) {
  std::vector<double> host(static_cast<std::size_t>(m * n));
  for (std::size_t i = 0; i < host.size(); ++i)
    host[i] = static_cast<double>((i * 7919 + static_cast<std::size_t>(salt) * 104729) % 1000) / 250.0 - 2.0;
  return Array::from_host(host, vm).reshape({m, n});
}

Array col(const Array& v) {
  return v.reshape({-1, 1});
}

// e = exp(x - x.max(axis=1, keepdims=True)); e / e.sum(axis=1, keepdims=True)
std::vector<double> softmax(const Vm& vm, int64_t m, int64_t n) {
  const Array x = matrix(m, n, vm);
  const Array e = arrvm::exp(x - col(x.max(1)));
  return (e / col(e.sum(1))).to_vector<double>();
}

// x / x.sum(axis=1)[:, None], and in place: x /= x.sum(axis=1)[:, None]
std::vector<double> normalize(const Vm& vm, int64_t m, int64_t n) {
  const Array x = matrix(m, n, vm);
  std::vector<double> out = (x / col(x.sum(1))).to_vector<double>();
  Array y = matrix(m, n, vm, 1);
  y /= col(y.sum(1));
  for (double v : y.to_vector<double>()) out.push_back(v);
  return out;
}

// (x - mean) / sqrt(mean((x - mean)**2)), the row's scalars between the
// loops (mean = sum / n, a row's statement; the reciprocal of the norm).
std::vector<double> standardize(const Vm& vm, int64_t m, int64_t n) {
  const Array x = matrix(m, n, vm);
  const Array mu = x.mean(1);
  const Array d = x - col(mu);
  const Array r = 1.0 / arrvm::sqrt((d * d).sum(1) / static_cast<double>(n));
  return (d * col(r)).to_vector<double>();
}

// An epilogue that reads another row's result: y = x[1:] * s[:-1, None]
// (row i reads the sum of row i - 1), or the maxima reversed.
std::vector<double> other_rows(const Vm& vm, int64_t m, int64_t n, bool reversed) {
  Array x = matrix(m, n, vm);
  if (reversed) {
    x *= col(x.max(1)(Slice({}, {}, -1)));
    return x.to_vector<double>();
  }
  const Array s = x.sum(1);
  return (x(Slice(1, {})) * col(s(Slice({}, -1)))).to_vector<double>();
}

bool same(double x, double y) {
  return x == y || (std::isnan(x) && std::isnan(y));
}

struct Run {
  std::vector<double> values;
  uint64_t programs = 0, kernels = 0;  // row programs and nests run, kernels launched
};

Run run(const std::function<std::vector<double>(const Vm&)>& program, const std::string& backend,
        const std::string& fuser, bool rows, const std::string& cache_dir) {
  const Vm vm({{"backend", backend},
               {"fuser", fuser},
               {"cache_dir", cache_dir},
               {"passes", rows ? "default,-vector-math" : "-row-fusion,-vector-math"}});
  Run r;
  r.values = program(vm);
  vm.flush();
  const arrvm::Profile& prof = vm.runtime().profile();
  r.programs = prof.pass("row-fusion");
  r.kernels = prof.kernels_launched;
  return r;
}

// The backends that run row programs, and the tolerance against ref beyond
// the caller's: none on cpu (libm's scalar functions: vector-math, within 4
// ulp of ref, is off), 1e-12 on opencl (the device's libm).
struct Backend {
  const char* name;
  double rtol;
};
constexpr Backend kBackends[] = {{"cpu", 0}, {"opencl", 1e-12}};

// `program` on ref, and on each backend with and without row fusion under
// each fuser (on opencl greedy and ilp: its compiles are slow): ref's values
// bit for bit on cpu, or, for rows the cpu sums in SIMD lanes (256 elements
// or more, docs/semantics.md), within `rtol` of ref's. Returns the greedy
// runs with row fusion, cpu's then opencl's.
std::vector<Run> check_against_ref(const std::function<std::vector<double>(const Vm&)>& program,
                                   double rtol = 0) {
  cputest::TempDir dir;
  const Run want = run(program, "ref", "singleton", false, dir.path());
  std::vector<Run> greedy;
  for (const Backend& backend : kBackends) {
    const bool cpu = std::string(backend.name) == "cpu";
    for (const char* fuser : {"greedy", "linear", "optimal", "ilp", "unintrusive"}) {
      if (!cpu && std::string(fuser) != "greedy" && std::string(fuser) != "ilp") continue;
      for (bool rows : {true, false}) {
        CAPTURE(std::string(backend.name));
        CAPTURE(std::string(fuser));
        CAPTURE(rows);
        const Run got = run(program, backend.name, fuser, rows, dir.path());
        REQUIRE(got.values.size() == want.values.size());
        const double tol = std::max(rtol, backend.rtol);
        int64_t differ = 0;
        for (std::size_t i = 0; i < want.values.size(); ++i) {
          const double x = got.values[i], y = want.values[i];
          differ += !same(x, y) && !(std::abs(x - y) <= tol * std::max(1.0, std::abs(y)));
        }
        CHECK(differ == 0);
        if (!rows) CHECK(got.programs == 0);
        if (rows && std::string(fuser) == "greedy") greedy.push_back(got);
      }
    }
  }
  REQUIRE(greedy.size() == std::size(kBackends));
  return greedy;
}

}  // namespace

TEST_CASE(
    "row programs: softmax, a normalization and a standardization are one kernel, as ref computes them") {
  for (auto [m, n] : {std::pair<int64_t, int64_t>{1, 1}, {1, 7}, {5, 1}, {6, 4}, {300, 130}, {64, 1000}}) {
    CAPTURE(m);
    CAPTURE(n);
    const double rtol = n >= 256 ? 1e-9 : 0;  // (a sum near 0 divides: relative to its terms)
    for (const Run& s : check_against_ref([m, n](const Vm& vm) { return softmax(vm, m, n); }, rtol)) {
      CHECK(s.kernels == 1);  // max; subtract, exp, sum; divide
      CHECK(s.programs == 1);
    }
    for (const Run& z : check_against_ref([m, n](const Vm& vm) { return normalize(vm, m, n); }, rtol)) {
      CHECK(z.kernels == 2);  // one each, the in-place one too
      CHECK(z.programs == 2);
    }
    for (const Run& d : check_against_ref([m, n](const Vm& vm) { return standardize(vm, m, n); }, rtol)) {
      CHECK(d.kernels == 1);  // the mean, d, its squares' sum, the row's scalars, d * r
      CHECK(d.programs == 1);
    }
  }
}

TEST_CASE("row programs: an epilogue that reads another row's result runs apart") {
  for (auto [m, n] : {std::pair<int64_t, int64_t>{3, 4}, {200, 170}}) {
    for (bool reversed : {false, true}) {
      CAPTURE(m);
      CAPTURE(reversed);
      // The reduction alone, then its reader (in C++ the reversed vector is
      // a copy, which nests with its reader as a row's statement).
      for (const Run& r :
           check_against_ref([m, n, reversed](const Vm& vm) { return other_rows(vm, m, n, reversed); })) {
        CHECK(r.programs == (reversed ? 1u : 0u));
        CHECK(r.kernels == 2);
      }
    }
  }
}

TEST_CASE("row programs: check_partition accepts the legal program and names the illegal one") {
  using arrvm::BaseId;
  using arrvm::Dims;
  using arrvm::DType;
  using arrvm::make_view;
  using arrvm::Opcode;
  using arrvm::View;
  using fusion_test::Batch;
  using fusion_test::control;
  using fusion_test::make;
  using fusion_test::v;
  const int64_t m = 4, n = 3, r = m - 1;
  for (int64_t shift : {0, 1}) {
    CAPTURE(shift);
    // s = x[:r].sum(axis=1); y = x[shift:shift+r] / s[:, None]; x[shift:shift+r] -= y; free s.
    // Shifted, row i's update writes row i + 1 of x, which the sum of row
    // i + 1 reads: across rows.
    Batch c;
    const BaseId x = c.base(DType::Float64, m * n), s = c.base(DType::Float64, r),
                 y = c.base(DType::Float64, r * n);
    const View box = make_view(x, shift * n, Dims{r, n}, Dims{n, 1});
    const View yv = make_view(y, 0, Dims{r, n}, Dims{n, 1});
    c.add(make(Opcode::AddReduce, make_view(s, 0, Dims{r}, Dims{1}),
               {v(make_view(x, 0, Dims{r, n}, Dims{n, 1}))}, 1));
    c.add(make(Opcode::Divide, yv, {v(box), v(make_view(s, 0, Dims{r, n}, Dims{1, 0}))}));
    c.add(make(Opcode::Subtract, box, {v(box), v(yv)}));
    c.add(control(Opcode::Free, s));
    const std::vector<uint32_t> block{0, 1, 2, 3};
    arrvm::RowProgram p;
    REQUIRE(arrvm::row_program(c.instrs, block, &p));
    CHECK(p.segments() == 2);  // the sum; the divide and the update
    CHECK(p.segment == std::vector<int>{0, 1, 1, -1});
    CHECK(arrvm::row_program_legal(c.instrs, block, p) == (shift == 0));
    for (bool allow : {false, true}) {
      CAPTURE(allow);
      const arrvm::fusion::Graph g(c.instrs, arrvm::FusionRules{.row_nests = allow});
      const arrvm::Partition one{{{0, 1, 2, 3}}};
      const std::string problem = arrvm::fusion::check_partition(g, one);
      CHECK((problem == "") == (allow && shift == 0));
      if (allow && shift == 1) CHECK(problem.find("fuse-preventing pair") != std::string::npos);
    }
    // Without a reduction the block is no row program (a nest, or nothing).
    const std::vector<uint32_t> maps{1, 2};
    CHECK_FALSE(arrvm::row_program(c.instrs, maps, &p));
  }
}

TEST_CASE("row programs: grown through one segment where rule 8 keeps a reduction from its producers") {
  // y = x.copy(); y /= abs(y).max(axis=1)[:, None] over (5, 7), as mpi's
  // fusers see it (sweeps_alone): [copy, abs], [max], [divide], frees. The
  // first two make one segment, not yet a row program; with the divide they
  // are one, and every fuser but singleton runs it as one block.
  using arrvm::BaseId;
  using arrvm::Dims;
  using arrvm::DType;
  using arrvm::make_view;
  using arrvm::Opcode;
  using arrvm::View;
  using fusion_test::Batch;
  using fusion_test::control;
  using fusion_test::make;
  using fusion_test::v;
  const int64_t m = 5, n = 7;
  Batch c;
  const BaseId x = c.base(DType::Float64, m * n), y = c.base(DType::Float64, m * n),
               t = c.base(DType::Float64, m * n), s = c.base(DType::Float64, m);
  const View X = make_view(x, 0, Dims{m, n}, Dims{n, 1}), Y = make_view(y, 0, Dims{m, n}, Dims{n, 1}),
             T = make_view(t, 0, Dims{m, n}, Dims{n, 1});
  c.add(make(Opcode::Identity, Y, {v(X)}));
  c.add(make(Opcode::Absolute, T, {v(Y)}));
  c.add(make(Opcode::MaximumReduce, make_view(s, 0, Dims{m}, Dims{1}), {v(T)}, 1));
  c.add(control(Opcode::Free, t));
  c.add(make(Opcode::Divide, Y, {v(Y), v(make_view(s, 0, Dims{m, n}, Dims{1, 0}))}));
  c.add(control(Opcode::Free, s));
  const auto cost = arrvm::fusion::make_cost_model("bohrium");
  auto block_of = [](const arrvm::Partition& p, uint32_t i) {
    for (std::size_t k = 0; k < p.blocks.size(); ++k) {
      if (std::find(p.blocks[k].begin(), p.blocks[k].end(), i) != p.blocks[k].end()) return k;
    }
    return p.blocks.size();
  };
  for (const arrvm::fusion::Algorithm& a : arrvm::fusion::algorithms()) {
    CAPTURE(std::string(a.name));
    bool copy_with_abs = false;  // (a program grows from a block with work, not from two elementwise ones)
    for (bool rows : {false, true}) {
      CAPTURE(rows);
      const arrvm::fusion::Graph g(c.instrs, arrvm::FusionRules{.sweeps_alone = true, .row_nests = rows});
      const arrvm::Partition p = arrvm::fusion::run_algorithm(a, g, *cost, {});
      CHECK(arrvm::fusion::check_partition(g, p) == "");
      int work = 0;
      for (const arrvm::Block& b : p.blocks) {
        work +=
            std::any_of(b.begin(), b.end(), [&](uint32_t i) { return !arrvm::is_control(c.instrs[i].op); });
      }
      if (!rows) {
        copy_with_abs = block_of(p, 0) == block_of(p, 1);
        CHECK(work >= 3);  // the reduction alone (rule 8)
        continue;
      }
      if (std::string(a.name) == "singleton") {
        CHECK(work == 4);
      } else {
        // The abs, the maximum and the divide in one block; the copy too
        // where the fuser joined it to the abs.
        CHECK(block_of(p, 1) == block_of(p, 2));
        CHECK(block_of(p, 2) == block_of(p, 4));
        CHECK(work == (copy_with_abs ? 1 : 2));
      }
    }
  }
  // The first two alone are one segment: row_program_shapes, not row_program.
  arrvm::RowProgram p;
  const std::vector<uint32_t> first{0, 1, 2, 3};
  CHECK_FALSE(arrvm::row_program(c.instrs, first, &p));
  REQUIRE(arrvm::row_program_shapes(c.instrs, first, &p));
  CHECK(p.segments() == 1);
}

namespace {

// A random program of row reductions and their readers over an (m, n)
// matrix, as NumPy writes them: each step either reduces a box of rows
// (sum, max, min, prod) into a row vector, or updates a box in place from
// a row vector (broadcast down the rows, sometimes shifted by a row or
// reversed), or computes a row scalar from a row vector. Some steps read
// what another row's step wrote; the engine may nest only what stays in
// its row, and every outcome must equal ref.
std::vector<double> random_rows(const Vm& vm, uint64_t seed) {
  uint64_t z = seed * 0x9E3779B97F4A7C15ull + 7;
  auto next = [&](int64_t bound) {
    z ^= z >> 12;
    z ^= z << 25;
    z ^= z >> 27;
    return static_cast<int64_t>((z * 0x2545F4914F6CDD1Dull >> 33) % static_cast<uint64_t>(bound));
  };
  const int64_t m = 2 + next(6), n = 1 + next(6), rows = m - 1;
  Array x = matrix(m, n, vm, static_cast<int64_t>(seed));
  std::vector<Array> vectors{x.sum(1)(Slice(0, rows)) * 0.125};
  const int steps = 3 + static_cast<int>(next(6));
  for (int s = 0; s < steps; ++s) {
    const int64_t r0 = next(2);  // the box: rows [r0, r0 + rows)
    Array box = x(Slice(r0, r0 + rows));
    const Array& vec = vectors[static_cast<std::size_t>(next(static_cast<int64_t>(vectors.size())))];
    switch (next(4)) {
      case 0: {
        const int op = static_cast<int>(next(4));
        Array r = op == 0 ? box.sum(1) : op == 1 ? box.max(1) : op == 2 ? box.min(1) : box.prod(1);
        vectors.push_back(r * 0.25 + 0.5);
        break;
      }
      case 1:
        box += col(vec) * 0.5;
        break;
      case 2:
        box *= col(vec(Slice({}, {}, -1)) * 0.125) + 1.0;
        break;
      default:
        vectors.push_back(1.0 / (vec * vec + 1.0));
    }
  }
  std::vector<double> out = x.to_vector<double>();
  for (const Array& vec : vectors)
    for (double d : vec.to_vector<double>()) out.push_back(d);
  return out;
}

}  // namespace

TEST_CASE("row programs: random reductions, row scalars and shifted readers equal ref, fused or not") {
  const char* full = std::getenv("ARRVM_TEST_FULL");
  const int count = full != nullptr && *full != '\0' ? 300 : 40;
  cputest::TempDir dir;
  uint64_t programs = 0, device_programs = 0;
  for (int s = 0; s < count; ++s) {
    CAPTURE(s);
    const auto program = [s](const Vm& vm) { return random_rows(vm, static_cast<uint64_t>(s)); };
    const Run want = run(program, "ref", "singleton", false, dir.path());
    for (const Backend& backend : kBackends) {
      // (opencl: every fourth program, its compiles are slow)
      if (std::string(backend.name) != "cpu" && s % 4 != 0) continue;
      for (const char* fuser : {"greedy", "ilp"}) {
        CAPTURE(std::string(backend.name));
        CAPTURE(std::string(fuser));
        const Run got = run(program, backend.name, fuser, true, dir.path());
        REQUIRE(got.values.size() == want.values.size());
        int64_t differ = 0;
        for (std::size_t i = 0; i < want.values.size(); ++i) {
          const double x = got.values[i], y = want.values[i];
          differ += !same(x, y) && !(std::abs(x - y) <= backend.rtol * std::max(1.0, std::abs(y)));
        }
        CHECK(differ == 0);
        programs += got.programs;
        if (std::string(backend.name) != "cpu") device_programs += got.programs;
      }
    }
  }
  MESSAGE(count << " programs x 2 fusers (" << (count + 3) / 4 << " on opencl): " << programs
                << " row programs and nests ran, " << device_programs << " on opencl");
  CHECK(programs > static_cast<uint64_t>(count) / 2);
  CHECK(device_programs > static_cast<uint64_t>(count) / 8);
}
