// A short last axis over many rows (water_ice's (n, n, 4) layers, xyz
// triples): the cpu backend compiles such a kernel for its innermost extent
// (CDialect::inner_extent), one form per extent. The programs below are
// written as NumPy programs over such arrays (a layer-wise exchange, a
// broadcast per-layer constant, sums along and across the short axis, a
// cumsum along it) and must read exactly what ref reads, at extents 1 to 8
// and past the limit, with few rows and many.
#include <doctest/doctest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "backends/cpu/cpu_backend.hpp"
#include "engine/runtime.hpp"
#include "include/arrvm/arrvm.hpp"
#include "tests/cpu_test_util.hpp"

using arrvm::Array;
using arrvm::DType;
using arrvm::Slice;
using arrvm::Vm;

namespace {

// t of shape (a, b, k): heat exchanged between neighbours along the last
// axis and along the first, a per-layer constant broadcast, then sums.
std::vector<double> layers(const Vm& vm, int64_t a, int64_t b, int64_t k) {
  std::vector<double> host(static_cast<std::size_t>(a * b * k));
  for (std::size_t i = 0; i < host.size(); ++i)
    host[i] = static_cast<double>((i * 7919) % 1000) / 100.0 - 3.0;
  Array t = Array::from_host(host, vm).reshape({a, b, k});
  std::vector<double> per_layer;
  for (int64_t j = 0; j < k; ++j) per_layer.push_back(0.5 + static_cast<double>(j));
  const Array layer_k = Array::from_host(per_layer, vm);
  Array q = Array::zeros({a, b, k}, DType::Float64, vm);
  if (k > 1) {
    const Array flux = (t(Slice(), Slice(), Slice({}, -1)) - t(Slice(), Slice(), Slice(1, {}))) * 0.25;
    Array left = q(Slice(), Slice(), Slice({}, -1));
    left -= flux;
    Array right = q(Slice(), Slice(), Slice(1, {}));
    right += flux;
  }
  if (a > 1) {
    const Array flux = (t(Slice({}, -1)) - t(Slice(1, {}))) * 0.125;
    Array up = q(Slice({}, -1));
    up -= flux;
    Array down = q(Slice(1, {}));
    down += flux;
  }
  t += q / layer_k + arrvm::sqrt(arrvm::absolute(t)) * layer_k;
  std::vector<double> out = t.to_vector<double>();
  for (double x : t.sum(2).to_vector<double>()) out.push_back(x);     // along the short axis
  for (double x : t.sum(0).to_vector<double>()) out.push_back(x);     // across rows, rows of k
  for (double x : t.cumsum(2).to_vector<double>()) out.push_back(x);  // a scan along it
  out.push_back(t.max().item<double>());
  return out;
}

Vm cpu_vm(const cputest::TempDir& dir) {
  return Vm({{"backend", "cpu"}, {"fuser", "greedy"}, {"cache_dir", dir.path()}});
}

}  // namespace

TEST_CASE("cpu: kernels over a short last axis read what ref reads, at every extent") {
  cputest::TempDir dir;
  const Vm cpu = cpu_vm(dir);
  const Vm ref({{"backend", "ref"}, {"fuser", "singleton"}});
  struct Shape {
    int64_t a, b, k;
  };
  // Many rows (200 x 10 = 2000 >= 1024: a form per extent), few rows (4 x 10:
  // the kernel of any extent), and an extent past the limit (9).
  for (const Shape s : {Shape{200, 10, 4}, Shape{200, 10, 3}, Shape{200, 10, 1}, Shape{64, 40, 8},
                        Shape{200, 10, 2}, Shape{4, 10, 4}, Shape{200, 10, 9}, Shape{200, 10, 4}}) {
    CAPTURE(s.a);
    CAPTURE(s.b);
    CAPTURE(s.k);
    const std::vector<double> got = layers(cpu, s.a, s.b, s.k), want = layers(ref, s.a, s.b, s.k);
    REQUIRE(got.size() == want.size());
    for (std::size_t i = 0; i < got.size(); ++i) {
      CAPTURE(i);
      CHECK(got[i] == want[i]);
    }
  }
}

TEST_CASE("cpu: a kernel over a short last axis is compiled once per extent, and never for few rows") {
  cputest::TempDir dir;
  const Vm cpu = cpu_vm(dir);
  auto compiled = [&] { return arrvm::cpu_backend_stats(cpu.runtime().backend()).cache.compiled; };
  layers(cpu, 4, 10, 4);  // few rows: the forms of any extent
  const uint64_t any = compiled();
  CHECK(any > 0);
  layers(cpu, 5, 10, 3);  // another extent, still few rows: nothing new
  CHECK(compiled() == any);
  // (Sizes past the parallel forms' threshold, 2^15 element-statements,
  // so that both runs of extent 4 use the parallel form.)
  layers(cpu, 2000, 10, 4);  // many rows: forms for extent 4
  const uint64_t four = compiled();
  CHECK(four > any);
  layers(cpu, 3000, 10, 4);  // extent 4 again, at another size
  CHECK(compiled() == four);
  layers(cpu, 2000, 10, 3);  // extent 3: its own forms
  CHECK(compiled() > four);
}

TEST_CASE("cpu: one block at several short extents runs the form of each extent") {
  // The same block (one lowering, re-bound) at extents 4, 3, 5, 4, 1, 8: each
  // launch must run the form compiled for its own extent. A per-column weight
  // keeps the block 2-D (a contiguous elementwise block runs flat). Values by
  // hand: y[i, j] = (i * k + j) * (j + 1) + 1.
  cputest::TempDir dir;
  const Vm cpu = cpu_vm(dir);
  for (const int64_t k : {4, 3, 5, 4, 1, 8}) {
    CAPTURE(k);
    const int64_t rows = 2000;
    const Array x = Array::arange(rows * k, DType::Float64, cpu).reshape({rows, k});
    const Array w = Array::arange(k, DType::Float64, cpu) + 1.0;
    const std::vector<double> y = (x * w + 1.0).to_vector<double>();
    REQUIRE(y.size() == static_cast<std::size_t>(rows * k));
    for (std::size_t i = 0; i < y.size(); ++i) {
      CAPTURE(i);
      CHECK(y[i] == static_cast<double>(i) * static_cast<double>(static_cast<int64_t>(i) % k + 1) + 1.0);
    }
  }
  CHECK(arrvm::cpu_backend_stats(cpu.runtime().backend()).lowerings_reused > 0);
}
