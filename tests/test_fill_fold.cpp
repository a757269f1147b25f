// Fills of a matrix's diagonal or column fold into its producer's shape
// (rewrite/fill_fold.hpp; nbody's `diagonal(f)[:] = 0.0`): for
// lines of every kind the header allows (diagonals above and below, partial
// ones, anti-diagonals in both directions, columns, two columns over per
// row) and lines it does not, on ref and fused on cpu and opencl, the matrix
// and its column sums equal ref's without the pass byte for byte; which
// fills fold; and a folded fill puts producer, fill and reduction in one
// kernel with the matrix contracted.
#include <doctest/doctest.h>

#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "arrvm/arrvm.hpp"
#include "engine/runtime.hpp"
#include "tests/cpu_test_util.hpp"
#include "tests/opencl_test_util.hpp"

using namespace arrvm;  // tests only

namespace {

// A line of an n0 x n1 matrix as NumPy writes it: a.ravel()[start:stop:step]
// (or a[rows, col] when `rows` is set).
struct Line {
  const char* what;
  int64_t n0, n1;
  std::optional<int64_t> start, stop, step;
  bool folds;
  std::optional<Slice> rows = std::nullopt;
  int64_t col = 0;
};

const Line kLines[] = {
    {"main diagonal, square", 8, 8, 0, {}, 9, true},
    {"diagonal, wide", 7, 9, 0, {}, 10, true},
    {"diagonal, tall", 9, 7, 0, 49, 8, true},
    {"a[::8] of 9 x 7: row 8 wraps to column 0", 9, 7, 0, {}, 8, false},
    {"diagonal +2", 8, 8, 2, 48, 9, true},
    {"diagonal -3", 8, 8, 24, {}, 9, true},
    {"partial diagonal (both row bounds)", 7, 9, 10, 40, 10, true},
    {"anti-diagonal", 8, 8, 7, 57, 7, true},
    {"anti-diagonal, reversed", 8, 8, 56, 0, -7, true},
    {"partial anti-diagonal, reversed", 7, 9, 40, 8, -8, true},
    {"column", 7, 9, 3, {}, 9, true},
    {"two columns over per row", 7, 9, 0, 45, 11, true},
    {"a[::19] of 7 x 9: two rows per element", 7, 9, 0, {}, 19, false},
    {"a[2:5, 4]", 7, 9, {}, {}, {}, true, Slice(2, 5), 4},
    {"a[5:1:-2, 0]", 7, 9, {}, {}, {}, false, Slice(5, 1, -2), 0},
    {"one element", 7, 9, 30, 31, 1, true},
};

Vm make_vm(const std::string& backend, bool fold, const std::string& cache) {
  return Vm({{"backend", backend},
             {"fuser", backend == "ref" ? "singleton" : "greedy"},
             {"passes", fold ? "default" : "-fold-fills"},
             {"cache_dir", cache}});
}

Array line_of(const Array& f, const Line& l) {
  if (l.rows) return f.index({Index(*l.rows), Index(l.col)});
  return f.ravel()(Slice(l.start, l.stop, l.step));
}

// f = a * 3 - b over n0 x n1 (dtype `dt`), the line filled with `c`; f
// and f.sum(0) read back as bytes.
struct Out {
  std::vector<uint8_t> f, sums;
  uint64_t folded = 0, kernels = 0, contracted = 0;
};

Out run(const Vm& vm, const Line& l, DType dt, double c, bool keep_f = true) {
  std::vector<double> av(l.n0 * l.n1), bv(l.n0 * l.n1);
  for (std::size_t i = 0; i < av.size(); ++i) av[i] = 0.25 * i - 3, bv[i] = 1.0 / (i + 1);
  const Array a = Array::from_host(av, {l.n0, l.n1}, vm).astype(dt);
  const Array b = Array::from_host(bv, {l.n0, l.n1}, vm).astype(dt);
  vm.flush();
  Out out;
  const uint64_t k0 = vm.runtime().profile().kernels_launched;
  const uint64_t c0 = vm.runtime().profile().arrays_contracted;
  Array sums;
  std::vector<uint8_t> f_bytes;
  {
    Array f = dt == DType::Bool ? a > 0.5 : a * 3 - b;
    line_of(f, l).assign(c);
    sums = f.sum(0);
    if (keep_f) {
      const Array bytes = f.astype(DType::Float64);
      for (double x : bytes.to_vector<double>()) {
        uint8_t raw[8];
        std::memcpy(raw, &x, 8);
        out.f.insert(out.f.end(), raw, raw + 8);
      }
    }
  }
  const std::vector<double> sv =
      dt == DType::Float64 ? sums.to_vector<double>() : sums.astype(DType::Float64).to_vector<double>();
  for (double x : sv) {
    uint8_t raw[8];
    std::memcpy(raw, &x, 8);
    out.sums.insert(out.sums.end(), raw, raw + 8);
  }
  const Profile& p = vm.runtime().profile();
  out.folded = p.pass("fold-fills");
  out.kernels = p.kernels_launched - k0;
  out.contracted = p.arrays_contracted - c0;
  return out;
}

}  // namespace

TEST_CASE("a fill of a matrix's line folded into the matrix's producer equals ref without the fold") {
  const cputest::TempDir dir;
  for (const Line& l : kLines) {
    // -0.0 must stay -0.0; 2.7 becomes 2 in int32 and true in bool.
    for (const auto& [dt, c] : {std::pair{DType::Float64, -0.0}, {DType::Int32, 2.7}, {DType::Bool, 2.7}}) {
      CAPTURE(std::string(l.what));
      CAPTURE(std::string(dtype_name(dt)));
      CAPTURE(c);
      const Out want = run(make_vm("ref", false, dir.path()), l, dt, c);
      CHECK(want.folded == 0);
      for (const char* backend : {"ref", "cpu", "opencl"}) {
        if (std::string(backend) == "opencl" && dt != DType::Float64) continue;  // (PoCL builds)
        CAPTURE(std::string(backend));
        const Out got =
            run(make_vm(backend, true,
                        backend == std::string("opencl") ? opencltest::shared_cache_dir() : dir.path()),
                l, dt, c);
        CHECK(got.f == want.f);
        CHECK(got.sums == want.sums);
        CHECK(got.folded == (l.folds ? 1u : 0u));
      }
    }
  }
}

TEST_CASE("the folded fill's values by hand: the diagonal of a 4 x 4 matrix") {
  const cputest::TempDir dir;
  const Vm vm = make_vm("cpu", true, dir.path());
  std::vector<double> v(16);
  for (int i = 0; i < 16; ++i) v[i] = i + 1;
  Array f = Array::from_host(v, {4, 4}, vm) * 2.0;
  f.ravel()(Slice(0, {}, 5)).assign(-1.0);
  const std::vector<double> got = f.to_vector<double>();
  const std::vector<double> want = {-1, 4, 6, 8, 10, -1, 14, 16, 18, 20, -1, 24, 26, 28, 30, -1};
  CHECK(got == want);
  CHECK(vm.runtime().profile().pass("fold-fills") == 1);
}

TEST_CASE("two fills in a row on one matrix both fold, the second onto the first's where") {
  const cputest::TempDir dir;
  std::vector<double> results[2];
  for (bool fold : {false, true}) {
    const Vm vm = make_vm("cpu", fold, dir.path());
    std::vector<double> v(16);
    for (int i = 0; i < 16; ++i) v[i] = i + 1;
    Array f = Array::from_host(v, {4, 4}, vm) * 2.0;
    f.ravel()(Slice(0, {}, 5)).assign(-1.0);  // the diagonal
    f.ravel()(Slice(3, 13, 3)).assign(-2.0);  // the anti-diagonal
    results[fold] = f.to_vector<double>();
    CHECK(vm.runtime().profile().pass("fold-fills") == (fold ? 2u : 0u));
  }
  const std::vector<double> want = {-1, 4, 6, -2, 10, -1, -2, 16, 18, -2, -1, 24, -2, 28, 30, -1};
  CHECK(results[0] == want);
  CHECK(results[1] == want);
}

TEST_CASE("a folded fill joins its producer and the reduction: one kernel, the matrix contracted") {
  const cputest::TempDir dir;
  const Line diag = kLines[0];
  const Out off = run(make_vm("cpu", false, dir.path()), diag, DType::Float64, 0.0, false);
  const Out on = run(make_vm("cpu", true, dir.path()), diag, DType::Float64, 0.0, false);
  CHECK(on.sums == off.sums);
  // Without: producer, fill (another shape), column sums. With: the range
  // (max(n0, n1) elements) and one kernel for the rest.
  CHECK(off.kernels == 3);
  CHECK(on.kernels == 2);
  CHECK(on.contracted > off.contracted);
}

TEST_CASE(
    "fills that must not fold: a vector, a matrix read before the fill, a matrix from an earlier batch") {
  const cputest::TempDir dir;
  for (int which = 0; which < 3; ++which) {
    CAPTURE(which);
    std::vector<double> results[2];
    uint64_t folded = 0;
    for (bool fold : {false, true}) {
      const Vm vm = make_vm("cpu", fold, dir.path());
      std::vector<double> v(64);
      for (int i = 0; i < 64; ++i) v[i] = i;
      const Array a = Array::from_host(v, {8, 8}, vm);
      Array f = which == 0 ? Array::from_host(v, vm) * 3.0 : a * 3.0;
      Array g = which == 1 ? f + 1.0 : f;  // reads f before the fill
      if (which == 2) vm.flush();
      f.ravel()(Slice(0, {}, 9)).assign(5.0);
      results[fold] = (f + g).to_vector<double>();
      folded = vm.runtime().profile().pass("fold-fills");
    }
    CHECK(results[1] == results[0]);
    CHECK(folded == 0);
  }
}
