// Vector math on the cpu backend (backends/cpu/vector_math.hpp,
// the vector-math pass): every libm function with a vector variant, in both
// precisions, on random arguments over its domain and on special values,
// against ref's scalar libm. The bound is glibc's for libmvec (4 ulp); the
// largest difference found per function is printed (docs/architecture.md
// quotes them). The kernels must call the vector variants
// (their code names `_ZGV...`), else the comparison would prove nothing;
// with the option off, and when the compiler refuses the declarations,
// every value is ref's bit for bit.
#include <doctest/doctest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "backends/cpu/vector_math.hpp"
#include "engine/runtime.hpp"
#include "include/arrvm/arrvm.hpp"
#include "tests/cpu_test_util.hpp"

using arrvm::Array;
using arrvm::DType;
using arrvm::Vm;

namespace {

constexpr int64_t kMaxUlp = 4;  // glibc's bound for libmvec
constexpr int kRandom = 20000;  // random arguments per function and precision

struct Function {
  const char* name;  // libm's double name, as vector_math_functions() lists it
  std::function<Array(const Array&, const Array&)> apply;
  double lo, hi;                // random arguments in [lo, hi] (log-uniform when lo > 0)
  double lo_f, hi_f;            // the same for float32
  bool binary = false;          // pow, atan2: the second argument in [-40, 40]
  const char* label = nullptr;  // the name printed, when not `name`
};

std::vector<Function> functions() {
  using A = const Array&;
  return {
      {"exp", [](A x, A) { return arrvm::exp(x); }, -700, 700, -87, 88},
      {"log", [](A x, A) { return arrvm::log(x); }, 1e-300, 1e300, 1e-37, 1e37},
      {"pow", [](A x, A y) { return arrvm::power(x, y); }, 1e-3, 1e3, 1e-2, 1e2, true},
      {"sin", [](A x, A) { return arrvm::sin(x); }, -1e4, 1e4, -1e3, 1e3},
      {"cos", [](A x, A) { return arrvm::cos(x); }, -1e4, 1e4, -1e3, 1e3},
      {"exp2", [](A x, A) { return arrvm::exp2(x); }, -1000, 1000, -120, 120},
      {"expm1", [](A x, A) { return arrvm::expm1(x); }, -40, 700, -20, 88},
      {"log2", [](A x, A) { return arrvm::log2(x); }, 1e-300, 1e300, 1e-37, 1e37},
      {"log10", [](A x, A) { return arrvm::log10(x); }, 1e-300, 1e300, 1e-37, 1e37},
      {"log1p", [](A x, A) { return arrvm::log1p(x); }, -0.999, 1e10, -0.999, 1e10},
      {"tan", [](A x, A) { return arrvm::tan(x); }, -1e4, 1e4, -1e3, 1e3},
      {"asin", [](A x, A) { return arrvm::arcsin(x); }, -1, 1, -1, 1},
      {"acos", [](A x, A) { return arrvm::arccos(x); }, -1, 1, -1, 1},
      {"atan", [](A x, A) { return arrvm::arctan(x); }, -1e6, 1e6, -1e6, 1e6},
      {"atan2", [](A y, A x) { return arrvm::arctan2(y, x); }, -1e3, 1e3, -1e3, 1e3, true},
      {"sinh", [](A x, A) { return arrvm::sinh(x); }, -700, 700, -88, 88},
      {"cosh", [](A x, A) { return arrvm::cosh(x); }, -700, 700, -88, 88},
      {"tanh", [](A x, A) { return arrvm::tanh(x); }, -30, 30, -15, 15},
      {"cbrt", [](A x, A) { return arrvm::cbrt(x); }, -1e300, 1e300, -1e37, 1e37},
      {"asinh", [](A x, A) { return arrvm::arcsinh(x); }, -1e300, 1e300, -1e37, 1e37},
      {"acosh", [](A x, A) { return arrvm::arccosh(x); }, 1, 1e300, 1, 1e37},
      {"atanh", [](A x, A) { return arrvm::arctanh(x); }, -1, 1, -1, 1},
      {"hypot", [](A x, A y) { return arrvm::hypot(x, y); }, -1e300, 1e300, -1e37, 1e37, true},
      // |x + yj|, hypot of the parts: a complex kernel with no products of
      // parts vectorizes (codegen::scalar_complex). The complex array is
      // made first, so that the kernel of the absolute value holds it alone.
      {"hypot",
       [](A x, A y) {
         const Array z = arrvm::make_complex(x, y);
         z.sync();
         return arrvm::absolute(z);
       },
       -1e300, 1e300, -1e37, 1e37, true, "abs(complex)"},
  };
}

// Arguments: random over [lo, hi], then special values.
std::vector<double> arguments(double lo, double hi, uint32_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  std::vector<double> x;
  for (int i = 0; i < kRandom; ++i) {
    x.push_back(lo > 0 ? std::exp(std::log(lo) + u(rng) * (std::log(hi) - std::log(lo)))
                       : lo + u(rng) * (hi - lo));
  }
  const double inf = std::numeric_limits<double>::infinity();
  for (double s : {std::nan(""), inf, -inf, 0.0, -0.0, 1.0, -1.0, 0.5, 2.0, -2.0, 1e-310, 1e22, -1e22, 1e308,
                   -1e308, 710.0, -746.0, 89.0, -104.0})
    x.push_back(s);
  return x;
}

// Distance in ulp between two results of one precision (0 for two NaNs or
// equal values; the largest value when only one is NaN or infinite).
template <typename T>
int64_t ulp(T a, T b) {
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b) ? 0 : INT64_MAX;
  if (a == b) return 0;
  if (std::isinf(a) || std::isinf(b)) return INT64_MAX;
  using I = std::conditional_t<sizeof(T) == 8, int64_t, int32_t>;
  auto ordered = [](T v) {
    const I i = std::bit_cast<I>(v);
    return static_cast<int64_t>(i < 0 ? std::numeric_limits<I>::min() - i : i);
  };
  const int64_t d = ordered(a) - ordered(b);
  return d < 0 ? -d : d;
}

template <typename T>
std::vector<T> run(const Function& f, const std::vector<double>& x, const std::vector<double>& y,
                   const Vm& vm) {
  const DType t = sizeof(T) == 8 ? DType::Float64 : DType::Float32;
  const Array a = Array::from_host(x, vm).astype(t), b = Array::from_host(y, vm).astype(t);
  return f.apply(a, b).template to_vector<T>();
}

Vm cpu_vm(const std::string& cache_dir, const std::string& vector_math, const std::string& cc = "cc") {
  return Vm({{"backend", "cpu"},
             {"cache_dir", cache_dir},
             {"passes", vector_math == "on" ? "default" : "-vector-math"},
             {"cc", cc}});
}

// Whether a compiled kernel in `dir` calls a libmvec variant.
bool calls_vector_variant(const std::string& dir) {
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    if (!e.is_regular_file()) continue;
    std::ifstream in(e.path(), std::ios::binary);
    const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (bytes.find("_ZGV") != std::string::npos) return true;
  }
  return false;
}

// Runs every function in precision T on cpu (vector math `mode`) and ref;
// returns the largest ulp distance per function.
template <typename T>
std::vector<int64_t> compare_all(const std::string& cache_dir, const std::string& mode, const std::string& cc,
                                 uint64_t* fired = nullptr) {
  const Vm ref({{"backend", "ref"}, {"fuser", "singleton"}});
  const Vm cpu = cpu_vm(cache_dir, mode, cc);
  std::vector<int64_t> worst;
  uint32_t seed = 1;
  for (const Function& f : functions()) {
    const bool f32 = sizeof(T) == 4;
    std::vector<double> x = arguments(f32 ? f.lo_f : f.lo, f32 ? f.hi_f : f.hi, seed++);
    std::vector<double> y(x.size(), 1.5);
    if (f.binary) {
      std::mt19937_64 rng(seed++);
      std::uniform_real_distribution<double> u(-40.0, 40.0);
      for (double& v : y) v = u(rng);
      for (std::size_t i = 0; i < 64; ++i) {  // negative bases with integral and fractional exponents
        x[i] = -x[i];
        y[i] = i % 2 == 0 ? std::round(y[i]) : y[i];
      }
    }
    const std::vector<T> got = run<T>(f, x, y, cpu), want = run<T>(f, x, y, ref);
    REQUIRE(got.size() == want.size());
    int64_t w = 0;
    for (std::size_t i = 0; i < got.size(); ++i) {
      const int64_t d = ulp(got[i], want[i]);
      // Special values: NaN, infinite or zero arguments or results are ref's.
      const T xi = static_cast<T>(x[i]), yi = static_cast<T>(y[i]);
      if (!std::isfinite(xi) || !std::isfinite(yi) || !std::isfinite(want[i]) || want[i] == 0) {
        INFO(f.name, (f32 ? "f" : ""), "(", x[i], ", ", y[i], "): cpu ", got[i], ", ref ", want[i]);
        CHECK(d == 0);
      }
      if (d > kMaxUlp) {
        INFO(f.name, (f32 ? "f" : ""), "(", x[i], f.binary ? ", " + std::to_string(y[i]) : "", "): cpu ",
             got[i], ", ref ", want[i]);
        CHECK(d <= kMaxUlp);
      }
      w = std::max(w, d);
    }
    worst.push_back(w);
  }
  if (fired != nullptr) *fired = cpu.runtime().profile().pass("vector-math");
  return worst;
}

}  // namespace

TEST_CASE("vector math: libmvec is found where glibc has it") {
#if defined(__GLIBC__) && defined(__x86_64__)
  const auto& names = arrvm::vector_math_functions();
  REQUIRE(names.size() >= 5);  // glibc >= 2.22: exp log pow sin cos
  CHECK(names[0] == "exp");
#endif
}

TEST_CASE("vector math: every function within 4 ulp of ref's scalar libm, special values included") {
  const auto& names = arrvm::vector_math_functions();
  if (names.empty()) return;  // (no libmvec: the next case checks the scalar path)
  cputest::TempDir dir;
  uint64_t fired = 0;
  const std::vector<int64_t> d64 = compare_all<double>(dir.path(), "on", "cc", &fired);
  CHECK(calls_vector_variant(dir.path()));
  CHECK(fired > 0);  // the profile counts the kernels that call libmvec
  const std::vector<int64_t> d32 = compare_all<float>(dir.path(), "on", "cc");
  std::printf("vector math, largest ulp from ref (float64 / float32):");
  const std::vector<Function> all = functions();
  for (std::size_t i = 0; i < d64.size(); ++i) {
    const Function& f = all[i];
    const bool vectorized = std::find(names.begin(), names.end(), f.name) != names.end();
    std::printf(" %s %lld/%lld%s", f.label != nullptr ? f.label : f.name, static_cast<long long>(d64[i]),
                static_cast<long long>(d32[i]), vectorized ? "" : " (scalar)");
  }
  std::printf("\n");
}

TEST_CASE("vector math: a complex absolute value vectorizes and calls the vector hypot") {
  const auto& names = arrvm::vector_math_functions();
  if (std::find(names.begin(), names.end(), "hypot") == names.end()) return;  // (glibc < 2.35)
  cputest::TempDir dir;
  // (Compiled before it runs: not interpreted while a worker compiles.)
  const Vm cpu({{"backend", "cpu"}, {"cache_dir", dir.path()}, {"tiered", "off"}, {"eager", "off"}});
  const std::vector<Function> all = functions();
  const Function& f = all.back();
  REQUIRE(std::string(f.label) == "abs(complex)");
  // (Enough elements that the work is compiled, not run at once.)
  std::vector<double> x, y, want;
  for (int i = 0; i < 1024; ++i) {
    x.insert(x.end(), {3.0, -0.0, 1e300, 5.0});
    y.insert(y.end(), {4.0, -2.0, 1e300, -12.0});
    want.insert(want.end(), {5.0, 2.0, std::hypot(1e300, 1e300), 13.0});
  }
  CHECK(run<double>(f, x, y, cpu) == want);
  CHECK(calls_vector_variant(dir.path()));
}

TEST_CASE("vector math: off, and refused by the compiler, every value is ref's bit for bit") {
  cputest::TempDir dir;
  SUBCASE("ARRVM_PASSES=-vector-math") {
    uint64_t fired = 1;
    const std::vector<int64_t> d = compare_all<double>(dir.path(), "off", "cc", &fired);
    for (int64_t v : d) CHECK(v == 0);
    CHECK(!calls_vector_variant(dir.path()));
    CHECK(fired == 0);
  }
  SUBCASE("a compiler that rejects `omp declare simd`: scalar calls, a warning, the same values") {
    // A cc that fails on any source with the declarations.
    const std::string cc = dir.file("cc-no-simd");
    {
      std::ofstream s(cc);
      s << "#!/bin/sh\nfor a; do case \"$a\" in *.c) grep -q 'omp declare simd' \"$a\" && "
           "{ echo 'no declare simd here' >&2; exit 1; };; esac; done\nexec cc \"$@\"\n";
    }
    std::filesystem::permissions(cc, std::filesystem::perms::owner_all);
    const std::vector<int64_t> d = compare_all<double>(dir.path(), "on", cc);
    for (int64_t v : d) CHECK(v == 0);
    CHECK(!calls_vector_variant(dir.path()));
  }
}
