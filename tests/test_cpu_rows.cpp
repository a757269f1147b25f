// Row nests (vm/row_nest.hpp, fusion/row_nests.hpp): on cpu and opencl the fusion
// engine makes a block over (m) and the next block over (m, ...) one block,
// which runs as one loop nest, the first once per row, when every
// conflicting access between them stays in its row. The
// programs below are written the way NumPy programs are (Gauss and LU
// elimination steps, a row normalized by its own first element, a row
// scaled by a mask of its column) and must read exactly what ref reads; a
// program whose column is shifted by a row is not row-local and must not
// be fused (fused, it would read values the update already wrote).
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

#include "engine/runtime.hpp"
#include "include/arrvm/arrvm.hpp"
#include "tests/cpu_test_util.hpp"

using arrvm::Array;
using arrvm::Slice;
using arrvm::Vm;

namespace {

Array matrix(int64_t m, int64_t n, const Vm& vm, double diagonal = 0.0) {
  std::vector<double> host(static_cast<std::size_t>(m * n));
  for (std::size_t i = 0; i < host.size(); ++i)
    host[i] = static_cast<double>((i * 7919) % 1000) / 250.0 - 2.0;
  for (int64_t i = 0; i < m && i < n; ++i) host[static_cast<std::size_t>(i * n + i)] += diagonal;
  return Array::from_host(host, vm).reshape({m, n});
}

// NumPy: for k in range(n - 1): f = a[k+1:, k] / a[k, k]; a[k+1:, k:] -= f[:, None] * a[k, k:]
std::vector<double> gauss(const Vm& vm, int64_t n) {
  Array a = matrix(n, n, vm, static_cast<double>(n) + 0.5);
  for (int64_t k = 0; k + 1 < n; ++k) {
    const Array f = a(Slice(k + 1, {}), k) / a(k, k);
    a(Slice(k + 1, {}), Slice(k, {})) -= f.reshape({-1, 1}) * a(k, Slice(k, {}));
  }
  return a.to_vector<double>();
}

// The same as Python runs it: `f` is rebound each step, so the previous
// step's factor is freed after the new one is computed, before the update
// (a block of frees between the two blocks).
std::vector<double> gauss_rebound(const Vm& vm, int64_t n) {
  Array a = matrix(n, n, vm, static_cast<double>(n) + 0.5);
  Array f;
  for (int64_t k = 0; k + 1 < n; ++k) {
    f = a(Slice(k + 1, {}), k) / a(k, k);
    a(Slice(k + 1, {}), Slice(k, {})) -= f.reshape({-1, 1}) * a(k, Slice(k, {}));
  }
  return a.to_vector<double>();
}

// NumPy: f = u[k+1:, k] / u[k, k]; l[k+1:, k] = f; u[k+1:, k:] -= f[:, None] * u[k, k:]
std::vector<double> lu(const Vm& vm, int64_t n) {
  Array u = matrix(n, n, vm, static_cast<double>(n) + 0.5);
  Array l = Array::zeros({n, n}, arrvm::DType::Float64, vm);
  for (int64_t k = 0; k + 1 < n; ++k) {
    const Array f = u(Slice(k + 1, {}), k) / u(k, k);
    l(Slice(k + 1, {}), k) = f;
    u(Slice(k + 1, {}), Slice(k, {})) -= f.reshape({-1, 1}) * u(k, Slice(k, {}));
  }
  std::vector<double> out = u.to_vector<double>();
  for (double x : l.to_vector<double>()) out.push_back(x);
  return out;
}

// NumPy: s = a[:, 0] * 2 + 1; a -= s[:, None]; then b = a * (a[:, 1] > 0)[:, None]
// over a (m, p) matrix; and over a (m, p, q) block: a3 *= (a3[:, 0, 0] + 3)[:, None, None].
std::vector<double> rows_by_own_column(const Vm& vm, int64_t m, int64_t p) {
  Array a = matrix(m, p, vm);
  const Array s = a(Slice(), 0) * 2.0 + 1.0;
  a -= s.reshape({-1, 1});
  const Array mask = a(Slice(), p > 1 ? 1 : 0) > 0.0;
  const Array b = a * mask.reshape({-1, 1});
  Array a3 = matrix(m, p * 3, vm).reshape({m, p, 3});
  a3 *= (a3(Slice(), 0, 0) + 3.0).reshape({-1, 1, 1});
  std::vector<double> out = a.to_vector<double>();
  for (double x : b.to_vector<double>()) out.push_back(x);
  for (double x : a3.to_vector<double>()) out.push_back(x);
  return out;
}

// NumPy: f = a[:-1, 0] * 2; a[1:, :] -= f[:, None]. Row i of the update
// writes a[i+1, 0], which the factor of row i+1 reads: not row-local.
std::vector<double> shifted_column(const Vm& vm, int64_t m, int64_t p) {
  Array a = matrix(m, p, vm);
  const Array f = a(Slice({}, -1), 0) * 2.0;
  a(Slice(1, {})) -= f.reshape({-1, 1});
  return a.to_vector<double>();
}

bool same(double x, double y) {
  return x == y || (std::isnan(x) && std::isnan(y));
}

struct Run {
  std::vector<double> values;
  uint64_t nests = 0, kernels = 0;  // row nests run, kernels launched
};

Run run(const std::function<std::vector<double>(const Vm&)>& program, const std::string& backend,
        const std::string& row_fusion, const std::string& cache_dir) {
  const Vm vm({{"backend", backend},
               {"fuser", backend == "ref" ? "singleton" : "greedy"},
               {"cache_dir", cache_dir},
               {"passes", row_fusion == "on" ? "default" : "-row-fusion"}});
  Run r;
  r.values = program(vm);
  vm.flush();
  const arrvm::Profile& prof = vm.runtime().profile();
  r.nests = prof.pass("row-fusion");
  r.kernels = prof.kernels_launched;
  if (backend != "ref") CHECK(r.kernels == prof.work_blocks);  // a nest is a block of the partition
  return r;
}

// `program` on cpu and on opencl, with and without row fusion, and on ref:
// the same values bit for bit (a fused row runs the same operations in the
// same order per element); returns the cpu runs (opencl's count the same).
std::pair<Run, Run> check_against_ref(const std::function<std::vector<double>(const Vm&)>& program) {
  cputest::TempDir dir;
  const Run want = run(program, "ref", "on", dir.path());
  std::pair<Run, Run> cpu;
  for (const char* backend : {"cpu", "opencl"}) {
    CAPTURE(std::string(backend));
    const Run fused = run(program, backend, "on", dir.path());
    const Run apart = run(program, backend, "off", dir.path());
    REQUIRE(fused.values.size() == want.values.size());
    REQUIRE(apart.values.size() == want.values.size());
    int64_t differ = 0;
    for (std::size_t i = 0; i < want.values.size(); ++i) {
      differ += !same(fused.values[i], want.values[i]);
      differ += !same(apart.values[i], want.values[i]);
    }
    CHECK(differ == 0);
    CHECK(apart.nests == 0);
    CHECK(fused.kernels + fused.nests == apart.kernels);
    if (std::string(backend) == "cpu") {
      cpu = {fused, apart};
    } else {
      CHECK(fused.nests == cpu.first.nests);
      CHECK(fused.kernels == cpu.first.kernels);
    }
  }
  return cpu;
}

}  // namespace

TEST_CASE(
    "row fusion (cpu, opencl): Gauss and LU elimination steps run one kernel a step, as ref computes them") {
  for (int64_t n : {1, 2, 3, 7, 40, 130}) {
    CAPTURE(n);
    const auto [g, g_apart] = check_against_ref([n](const Vm& vm) { return gauss(vm, n); });
    // Every step k < n - 1 but the last (one row, one column: still fused)
    // pairs its factor with its update.
    CHECK(g.nests == static_cast<uint64_t>(n - 1));
    const auto [l, l_apart] = check_against_ref([n](const Vm& vm) { return lu(vm, n); });
    CHECK(l.nests == static_cast<uint64_t>(n - 1));
    const auto [r, r_apart] = check_against_ref([n](const Vm& vm) { return gauss_rebound(vm, n); });
    CHECK(r.nests == static_cast<uint64_t>(n - 1));
  }
}

TEST_CASE("row fusion (cpu, opencl): a row updated by its own column, a mask of it, a 3-D block") {
  for (auto [m, p] : {std::pair<int64_t, int64_t>{1, 1}, {1, 5}, {5, 1}, {6, 4}, {300, 130}, {2000, 3}}) {
    CAPTURE(m);
    CAPTURE(p);
    const auto [fused, apart] =
        check_against_ref([m, p](const Vm& vm) { return rows_by_own_column(vm, m, p); });
    CHECK(fused.nests >= 1);
  }
}

TEST_CASE("row fusion (cpu, opencl): a column shifted by a row is not row-local and runs apart") {
  for (auto [m, p] : {std::pair<int64_t, int64_t>{3, 4}, {200, 170}}) {
    CAPTURE(m);
    const auto [fused, apart] = check_against_ref([m, p](const Vm& vm) { return shifted_column(vm, m, p); });
    CHECK(fused.nests == 0);
  }
}

namespace {

// One random candidate for a row nest, as NumPy writes them: a column
// segment of `a` read (f = a[r0:r0+len, cx] * 2 + 1) or updated in place
// first (a[r0:r0+len, cx] *= 0.5), then a box of rows shifted by `shift`
// updated from f and, sometimes, from a row of `a` broadcast down the box.
// Some are legal nests, some are not (a shifted box, a row read that the
// column update writes, a column write the box reads in other rows).
struct Candidate {
  int64_t m, n, r0, len, cx, shift, c0, c1, row;  // row < 0: no broadcast row
  bool write_column;
};

Candidate candidate(uint64_t seed) {
  uint64_t x = seed * 0x9E3779B97F4A7C15ull + 1;
  auto next = [&](int64_t bound) {  // uniform in [0, bound)
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    return static_cast<int64_t>((x * 0x2545F4914F6CDD1Dull >> 33) % static_cast<uint64_t>(bound));
  };
  Candidate c;
  c.m = 2 + next(7);
  c.n = 1 + next(7);
  c.r0 = next(c.m - 1);  // at least two rows: one row is always a legal nest
  c.len = 2 + next(c.m - c.r0 - 1);
  c.cx = next(c.n);
  const int64_t shifts[] = {0, 0, 1, -1};
  c.shift = shifts[next(4)];
  if (c.r0 + c.shift < 0 || c.r0 + c.shift + c.len > c.m) c.shift = 0;
  c.c0 = next(c.n);
  c.c1 = c.c0 + 1 + next(c.n - c.c0);
  c.row = next(2) == 0 ? next(c.m) : -1;
  c.write_column = next(2) == 0;
  return c;
}

std::vector<double> run_candidate(const Vm& vm, const Candidate& c) {
  Array a = matrix(c.m, c.n, vm);
  const Slice rows(c.r0, c.r0 + c.len);
  if (c.write_column) a(rows, c.cx) *= 0.5;
  const Array f = a(rows, c.cx) * 2.0 + 1.0;
  Array box = a(Slice(c.r0 + c.shift, c.r0 + c.shift + c.len), Slice(c.c0, c.c1));
  if (c.row >= 0) {
    box -= f.reshape({-1, 1}) * a(c.row, Slice(c.c0, c.c1));
  } else {
    box -= f.reshape({-1, 1});
  }
  return a.to_vector<double>();
}

}  // namespace

// The legality rule on random candidates: whatever the fusion engine
// nests, the values equal ref's bit for bit, a nest is one kernel, and
// both outcomes occur.
TEST_CASE("row nests (cpu, opencl): random columns and shifted boxes equal ref, nested or not") {
  const char* full = std::getenv("ARRVM_TEST_FULL");
  const int candidates = full != nullptr && *full != '\0' ? 400 : 80;
  cputest::TempDir dir;
  int nested = 0, apart = 0, device_nested = 0;
  for (int s = 0; s < candidates; ++s) {
    const Candidate c = candidate(static_cast<uint64_t>(s));
    CAPTURE(s);
    const Run want = run([&](const Vm& vm) { return run_candidate(vm, c); }, "ref", "on", dir.path());
    for (const char* backend : {"cpu", "opencl"}) {
      if (std::string(backend) == "opencl" && s % 4 != 0) continue;  // (its compiles are slow)
      CAPTURE(std::string(backend));
      const Run got = run([&](const Vm& vm) { return run_candidate(vm, c); }, backend, "on", dir.path());
      REQUIRE(got.values.size() == want.values.size());
      int64_t differ = 0;
      for (std::size_t i = 0; i < want.values.size(); ++i) differ += !same(got.values[i], want.values[i]);
      CHECK(differ == 0);
      if (std::string(backend) == "cpu") {
        (got.nests > 0 ? nested : apart) += 1;
      } else {
        device_nested += got.nests > 0;
      }
    }
  }
  MESSAGE(candidates << " candidates: " << nested << " nested, " << apart
                     << " apart; on opencl (every fourth) " << device_nested << " nested");
  CHECK(device_nested > candidates / 8);
  CHECK(nested > candidates / 2);
  CHECK(apart >= candidates / 20);
}
