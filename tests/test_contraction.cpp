// The interpreted tier's contraction (backends/ref/contraction.hpp): a
// matrix product's block (a multiply into a temporary, an add reduction of
// it, the temporary freed) runs as one precompiled loop nest while its
// kernel compiles, with ref's values bit for bit, and is never waited for.
#include <doctest/doctest.h>
#include <sys/stat.h>

#include <arrvm/arrvm.hpp>
#include <chrono>
#include <cmath>
#include <fstream>
#include <string>
#include <vector>

#include "engine/runtime.hpp"
#include "tests/cpu_test_util.hpp"
#include "vm/profile.hpp"

namespace {

using arrvm::Array;
using arrvm::DType;

arrvm::Vm::Options tiered(const cputest::TempDir& dir, const std::string& cc) {
  return {{"backend", "cpu"}, {"tiered", "on"}, {"cache_dir", dir.path()}, {"cc", cc}, {"log", "off"}};
}

// Values with many bits (so that any other summation order or a fused
// multiply-add shows), some negative, some -0.0.
Array values(const arrvm::Vm& vm, int64_t n, DType t, double scale) {
  const Array i = Array::arange(0.0, static_cast<double>(n), 1.0, DType::Float64, vm);
  const Array v = arrvm::sin(i * scale) * 3.7 - 0.2;
  return arrvm::where(i == 5.0, Array::full({n}, -0.0, DType::Float64, vm), v).astype(t);
}

// a @ b as Python's matmul lowers it: (n, k, 1) * (1, k, m) summed over k.
Array matmul(const Array& a, const Array& b) {
  const int64_t n = a.shape()[0], k = a.shape()[1], m = b.shape()[1];
  return (a.reshape({n, k, 1}).broadcast_to({n, k, m}) * b.reshape({1, k, m}).broadcast_to({n, k, m})).sum(1);
}

// The products of one dtype, on `vm`: a @ b, a.T @ u (summed over axis 0 of
// a strided product), a @ v (over its last axis: dots, eight rows at a
// time), u @ u (to a 0-d array), (a * c).sum(0), a @ c.T (c.T's rows
// packed).
std::vector<std::vector<double>> products(const arrvm::Vm& vm, DType t, int64_t n, int64_t k, int64_t m) {
  const Array a = values(vm, n * k, t, 0.37).reshape({n, k});
  const Array b = values(vm, k * m, t, 0.11).reshape({k, m});
  const Array u = values(vm, n, t, 0.53);
  const Array v = values(vm, k, t, 0.29);
  std::vector<std::vector<double>> r;
  r.push_back(matmul(a, b).astype(DType::Float64).to_vector<double>());
  r.push_back((a * u.reshape({n, 1}).broadcast_to({n, k})).sum(0).astype(DType::Float64).to_vector<double>());
  r.push_back((a * v.reshape({1, k}).broadcast_to({n, k})).sum(1).astype(DType::Float64).to_vector<double>());
  r.push_back((u * u).sum().astype(DType::Float64).to_vector<double>());
  const Array c = values(vm, n * k, t, 0.71).reshape({n, k});
  r.push_back((a * c).sum(0).astype(DType::Float64).to_vector<double>());  // rows of unit stride in both
  // a @ c.T, c.T a view (its rows packed for the panel).
  const Array ct = values(vm, m * k, t, 0.43).reshape({1, m, k}).transpose({0, 2, 1}).broadcast_to({n, k, m});
  const Array act = (a.reshape({n, k, 1}).broadcast_to({n, k, m}) * ct).sum(1);  // (the product freed here)
  r.push_back(act.astype(DType::Float64).to_vector<double>());
  return r;
}

void check_same_bits(const std::vector<std::vector<double>>& got,
                     const std::vector<std::vector<double>>& want) {
  REQUIRE(got.size() == want.size());
  for (std::size_t p = 0; p < want.size(); ++p) {
    REQUIRE(got[p].size() == want[p].size());
    int64_t differ = 0;
    for (std::size_t i = 0; i < want[p].size(); ++i) {
      if (std::memcmp(&got[p][i], &want[p][i], sizeof(double)) != 0) ++differ;  // (-0.0 and NaN bits too)
    }
    CAPTURE(p);
    CHECK(differ == 0);
  }
}

}  // namespace

TEST_CASE("contraction: the interpreted matrix products have ref's values, bit for bit") {
  cputest::TempDir dir;
  const arrvm::Vm ref({{"backend", "ref"}});
  const arrvm::Vm cpu(tiered(dir, "false"));  // (no kernel ever compiles: all interpreted)
  for (DType t : {DType::Float64, DType::Float32}) {
    CAPTURE(arrvm::dtype_name(t));
    check_same_bits(products(cpu, t, 37, 300, 23), products(ref, t, 37, 300, 23));
    check_same_bits(products(cpu, t, 3, 5, 9), products(ref, t, 3, 5, 9));  // short rows: one sum at a time
    // The products were never stored (a @ b's take 2 MB in float64, 1 MB in
    // float32; everything else here less than 0.2 MB): the contraction ran,
    // not ref's instructions.
    CHECK(cpu.runtime().profile().bytes_allocated_peak < 600u * 1000);
  }
  CHECK(cpu.runtime().profile().kernels_launched == 0);
  // -0.0 times anything positive summed alone stays -0.0 (ref starts from the first product).
  const Array z = Array::full({4, 1}, -0.0, DType::Float64, cpu);
  const std::vector<double> s = matmul(z, Array::full({1, 12}, 2.0, DType::Float64, cpu)).to_vector<double>();
  REQUIRE(s.size() == 48u);
  CHECK(std::signbit(s[0]));
  CHECK(std::signbit(s[47]));
}

TEST_CASE("contraction: a product too big to interpret by instruction runs while its kernel compiles") {
  // 136M products (past CpuKernels::kInterpretWork, where any other block
  // waits for its compile); the compiler never finishes.
  cputest::TempDir dir;
  const std::string path = dir.file("hang-cc");
  std::ofstream(path) << "#!/bin/sh\nsleep 600\n";
  ::chmod(path.c_str(), 0755);
  const auto start = std::chrono::steady_clock::now();
  {
    const arrvm::Vm cpu(tiered(dir, path));
    const int64_t n = 520, k = 512, m = 512;
    const Array a = values(cpu, n * k, DType::Float64, 0.37).reshape({n, k});
    const Array b = values(cpu, k * m, DType::Float64, 0.11).reshape({k, m});
    const std::vector<double> av = a.to_vector<double>(), bv = b.to_vector<double>();
    const std::vector<double> r = matmul(a, b).to_vector<double>();
    REQUIRE(r.size() == static_cast<std::size_t>(n * m));
    // Entries computed here in ref's order: the first product, then k ascending.
    for (int64_t i : {int64_t{0}, int64_t{5}, int64_t{519}}) {
      for (int64_t j : {int64_t{0}, int64_t{7}, int64_t{511}}) {
        double s = av[i * k] * bv[j];
        for (int64_t q = 1; q < k; ++q) s += av[i * k + q] * bv[q * m + j];
        CHECK(r[i * m + j] == s);
      }
    }
    CHECK(cpu.runtime().profile().kernels_launched == 0);
  }
  CHECK(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() < 60.0);
}
