// What the cpu backend reports in the profile, on whole programs of the C++
// Array API: sum(a*b + c) over 10^7 float64 is one kernel that allocates no
// temporary; a second process replaying a trace compiles nothing (the disk
// cache); Gauss elimination on a 500 x 500 matrix, whose slices shrink every
// iteration, compiles a handful of kernels and gives ref's bytes.
#include <doctest/doctest.h>

#include <sys/wait.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "arrvm/arrvm.hpp"
#include "engine/runtime.hpp"
#include "tests/cpu_test_util.hpp"

using arrvm::Array;
using arrvm::DType;
using arrvm::Slice;
using arrvm::Vm;

namespace {

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

TEST_CASE("cpu: sum(a*b + c) over 10^7 float64 runs as one kernel and allocates no temporary") {
  const int64_t n = 10'000'000;
  // Multiples of 1/8 whose every partial sum is exact: the parallel
  // reduction must give the exact total, whatever its order.
  std::vector<double> a(n), b(n), c(n);
  double want = 0;
  for (int64_t i = 0; i < n; ++i) {
    a[i] = 0.5 * static_cast<double>(i % 8);
    b[i] = 0.25 * static_cast<double>(i % 4);
    c[i] = static_cast<double>(i % 3) - 1;
    want += a[i] * b[i] + c[i];
  }
  cputest::TempDir dir;
  double fused_s = 0, singleton_s = 0;
  for (const char* fuser : {"greedy", "singleton"}) {
    INFO(std::string(fuser));
    Vm vm({{"backend", "cpu"}, {"fuser", fuser}, {"cache_dir", dir.path()}});
    arrvm::Runtime& rt = vm.runtime();
    const Array A = Array::from_host(a, vm), B = Array::from_host(b, vm), C = Array::from_host(c, vm);
    auto run = [&] {
      const Array s = (A * B + C).sum();  // the temporaries die here: their frees join the batch
      return s.item<double>();
    };
    const arrvm::Profile before = rt.profile();
    CHECK(run() == want);
    const arrvm::Profile& after = rt.profile();
    const uint64_t bytes = 3 * 8 * static_cast<uint64_t>(n) + 8;  // a, b, c and the 0-d sum
    if (std::string(fuser) == "greedy") {
      CHECK(after.kernels_launched - before.kernels_launched == 1);
      CHECK(after.arrays_contracted - before.arrays_contracted >= 2);  // a*b and a*b + c
      CHECK(after.bytes_allocated_peak == bytes);
      CHECK(after.kernels_compiled == 1);
    } else {
      CHECK(after.kernels_launched - before.kernels_launched == 3);
      // a*b and a*b + c at once; a*b is freed (early-frees) before the sum's 0-d result exists.
      CHECK(after.bytes_allocated_peak == bytes - 8 + 2 * 8 * static_cast<uint64_t>(n));
    }
    // Warm: the kernels come from the signature memo.
    const auto t0 = std::chrono::steady_clock::now();
    for (int r = 0; r < 3; ++r) CHECK(run() == want);
    (std::string(fuser) == "greedy" ? fused_s : singleton_s) = seconds_since(t0) / 3;
    CHECK(rt.profile().kernel_cache_hits >= 3);
  }
  MESSAGE("sum(a*b + c), 10^7 float64: fused " << fused_s * 1e3 << " ms, singleton " << singleton_s * 1e3
                                               << " ms");
}

namespace {

struct CliRun {
  int code = -1;
  std::string out;
  nlohmann::json profile;
};

// `arrvm replay trace` in a new process on the cpu backend with the given
// cache directory; its profile (ARRVM_PROFILE as JSON).
CliRun replay(const std::string& trace, const std::string& cache_dir, const std::string& profile_path) {
  const std::string cmd =
      "ARRVM_TRACE= ARRVM_BACKEND=cpu ARRVM_FUSER=greedy ARRVM_CACHE=on ARRVM_CACHE_DIR='" + cache_dir +
      "' ARRVM_PROFILE='" + profile_path + "' '" + ARRVM_CLI_PATH + "' replay '" + trace + "' 2>&1";
  CliRun r;
  FILE* p = ::popen(cmd.c_str(), "r");
  REQUIRE(p != nullptr);
  char buf[4096];
  std::size_t got = 0;
  while ((got = std::fread(buf, 1, sizeof buf, p)) > 0) r.out.append(buf, got);
  const int status = ::pclose(p);
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  std::ifstream in(profile_path);
  if (in) r.profile = nlohmann::json::parse(in, nullptr, false);
  return r;
}

}  // namespace

TEST_CASE("cpu: a second process running the same program compiles no kernel") {
  cputest::TempDir dir;
  const std::string trace = dir.path() + "/program.trace";
  {
    // Recorded on ref: the trace is the program, whoever ran it.
    Vm vm({{"backend", "ref"}, {"trace", trace}});
    const Array x = Array::arange(1000, DType::Float64, vm);
    CHECK((x * 2.0 + 1.0).sum().item<double>() == 1000000.0);
    CHECK((x * x).reshape({10, 100}).max(1).to_vector<double>().size() == 10);
    CHECK(x.cumsum().to_vector<double>().back() == 499500.0);
    CHECK(x.take(Array::arange(50, DType::Int64, vm) * 3).to_vector<double>()[7] == 21.0);
  }
  const std::string cache = dir.path() + "/cache";
  const CliRun first = replay(trace, cache, dir.path() + "/first.json");
  INFO(first.out);
  REQUIRE(first.code == 0);
  REQUIRE(first.profile.is_object());
  CHECK(first.profile["kernels"]["compiled"].get<uint64_t>() > 0);
  const CliRun second = replay(trace, cache, dir.path() + "/second.json");
  INFO(second.out);
  REQUIRE(second.code == 0);
  REQUIRE(second.profile.is_object());
  const nlohmann::json& k = second.profile["kernels"];
  CHECK(k["compiled"].get<uint64_t>() == 0);
  CHECK(k["launched"].get<uint64_t>() == first.profile["kernels"]["launched"].get<uint64_t>());
  CHECK(k["cache_disk_hits"].get<uint64_t>() == first.profile["kernels"]["compiled"].get<uint64_t>());
  CHECK(k["cache_hits"].get<uint64_t>() > 0);
  CHECK(k["cache_misses"].get<uint64_t>() == 0);
}

namespace {

// NumPy-style Gauss elimination (no pivoting) of A x = b on `backend`, one
// sync at the end: for k in range(n-1): factor = A[k+1:,k] / A[k,k];
// A[k+1:,k:] -= factor[:,None] * A[k,k:]; b[k+1:] -= factor * b[k].
// Returns A (upper triangular) followed by b; *compiled gets the kernels
// compiled.
std::vector<double> gauss(const std::string& backend, const std::string& cache_dir, int64_t n,
                          const std::vector<double>& a0, const std::vector<double>& b0, uint64_t* compiled) {
  Vm vm({{"backend", backend}, {"cache_dir", cache_dir}});
  Array A = Array::from_host(a0, {n, n}, vm);
  Array b = Array::from_host(b0, vm);
  for (int64_t k = 0; k < n - 1; ++k) {
    const Array factor = A(Slice(k + 1, {}), k) / A(k, k);
    A(Slice(k + 1, {}), Slice(k, {})) -= factor.reshape({-1, 1}) * A(k, Slice(k, {}));
    b(Slice(k + 1, {})) -= factor * b(k);
  }
  std::vector<double> r = A.to_vector<double>();
  const std::vector<double> bv = b.to_vector<double>();
  r.insert(r.end(), bv.begin(), bv.end());
  *compiled = vm.runtime().profile().kernels_compiled;
  return r;
}

}  // namespace

TEST_CASE("cpu: Gauss elimination 500x500 compiles at most 10 kernels and gives ref's bytes") {
  const int64_t n = 500;
  // Diagonally dominant (no pivoting needed); b = A * ones, so x = ones.
  std::vector<double> a0(n * n), b0(n, 0.0);
  for (int64_t i = 0; i < n; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      a0[i * n + j] = i == j ? static_cast<double>(n) : 1.0 / static_cast<double>(1 + (i * 7 + j * 13) % 17);
      b0[i] += a0[i * n + j];
    }
  }
  cputest::TempDir dir;
  uint64_t compiled = 0, unused = 0;
  const auto t0 = std::chrono::steady_clock::now();
  const std::vector<double> got = gauss("cpu", dir.path(), n, a0, b0, &compiled);
  const double cpu_s = seconds_since(t0);
  MESSAGE("Gauss elimination " << n << "x" << n << " on cpu: " << compiled << " kernels compiled, " << cpu_s
                               << " s");
  CHECK(compiled >= 1);
  CHECK(compiled <= 10);
  // Only elementwise operations: every element equals ref's bit for bit.
  CHECK(got == gauss("ref", dir.path(), n, a0, b0, &unused));
  // Back substitution on the host recovers x = ones.
  std::vector<double> x(n);
  for (int64_t i = n - 1; i >= 0; --i) {
    double s = got[n * n + i];
    for (int64_t j = i + 1; j < n; ++j) s -= got[i * n + j] * x[j];
    x[i] = s / got[i * n + i];
  }
  double err = 0;
  for (double v : x) err = std::max(err, std::abs(v - 1.0));
  CHECK(err < 1e-9);
}
