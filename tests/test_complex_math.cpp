// The complex functions written out for OpenCL C (codegen::complex_math_library,
// backends/c_emitter_complex.cpp) against glibc's, whose results NumPy
// gives, on a dense grid: parts of magnitude 1e-6 .. 1e6 of both signs, the
// axes, the unit circle and the branch points, and every pair of special
// values (zeros, infinities, NaN). The library is C in the terms of
// CDialect::complex_prelude, so the host compiler builds it here twice:
// as a device with doubles sees it (complex128, and complex64 computed in
// complex128) and as one without (complex64 in float). Finite results must
// lie within a few epsilons (normwise) of glibc's; a non-finite part must be
// glibc's (NaN for NaN, the same infinity), but where C99 Annex G leaves a
// sign or a NaN-ness unspecified (an infinity next to a NaN).
#include <doctest/doctest.h>

#include <dlfcn.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "backends/c_emitter.hpp"
#include "tests/cpu_test_util.hpp"

namespace {

const char* const kNames[] = {"cexp",  "clog",   "csqrt",  "csinh", "ccosh", "ctanh", "casinh", "casin",
                              "cacos", "cacosh", "catanh", "csin",  "ccos",  "ctan",  "catan"};
constexpr int kCount = sizeof kNames / sizeof kNames[0];

// The library in C, with applyf / applyd(k, in, out, n) calling the k-th
// function of kNames on complex64 / complex128 (fp64: as a device with
// doubles sees it, whose complex64 functions go through complex128).
std::string source(bool fp64) {
  std::string s = "#include <math.h>\n";
  if (fp64) {
    s += "#define cl_khr_fp64 1\n#define convert_double2(z) ((arrvm_complex128)(z))\n"
         "#define convert_float2(z) ((arrvm_complex64)(z))\n";
  }
  s += arrvm::codegen::CDialect{}.complex_prelude;
  s += arrvm::codegen::complex_math_library(arrvm::DType::Complex64);
  if (fp64) s += arrvm::codegen::complex_math_library(arrvm::DType::Complex128);
  for (const char* part : {"f", ""}) {
    const std::string t = *part ? "arrvm_complex64" : "arrvm_complex128";
    if (!*part && !fp64) continue;
    s += std::string("void apply") + (*part ? "f" : "d") + "(int k, const " + t + "* in, " + t +
         "* out, long n) {\n  for (long i = 0; i < n; ++i) {\n    switch (k) {\n";
    for (int k = 0; k < kCount; ++k)
      s += "      case " + std::to_string(k) + ": out[i] = arrvm_" + kNames[k] + part + "(in[i]); break;\n";
    s += "    }\n  }\n}\n";
  }
  return s;
}

template <typename T>
using Apply = void (*)(int, const std::complex<T>*, std::complex<T>*, long);

template <typename T>
std::complex<T> glibc(int k, std::complex<T> z) {
  switch (k) {
    case 0:
      return std::exp(z);
    case 1:
      return std::log(z);
    case 2:
      return std::sqrt(z);
    case 3:
      return std::sinh(z);
    case 4:
      return std::cosh(z);
    case 5:
      return std::tanh(z);
    case 6:
      return std::asinh(z);
    case 7:
      return std::asin(z);
    case 8:
      return std::acos(z);
    case 9:
      return std::acosh(z);
    case 10:
      return std::atanh(z);
    case 11:
      return std::sin(z);
    case 12:
      return std::cos(z);
    case 13:
      return std::tan(z);
    default:
      return std::atan(z);
  }
}

template <typename T>
std::vector<std::complex<T>> grid() {
  std::vector<T> parts = {T(0), T(-0.0), T(1), T(-1), T(0.5), T(-0.5), T(2), T(-2), T(0.999), T(1.001)};
  for (int e = -6; e <= 6; ++e) {
    for (T m : {T(1), T(3.7), T(-1), T(-5.3)}) parts.push_back(m * static_cast<T>(std::pow(10.0, e)));
  }
  std::vector<std::complex<T>> z;
  for (T a : parts)
    for (T b : parts) z.emplace_back(a, b);
  for (int i = 0; i < 64; ++i) z.push_back(std::polar(T(1), static_cast<T>(i * 0.0981748)));  // |z| = 1
  const T inf = std::numeric_limits<T>::infinity(), nan = std::numeric_limits<T>::quiet_NaN();
  for (T a : {T(0), T(-0.0), T(1.5), T(-1.5), inf, -inf, nan})
    for (T b : {T(0), T(-0.0), T(1.5), T(-1.5), inf, -inf, nan}) z.emplace_back(a, b);
  return z;
}

// Worst normwise error (in epsilons) of function k over the grid, and the
// count of special results that disagree with glibc's.
template <typename T>
std::pair<double, int> check(Apply<T> apply, int k) {
  const std::vector<std::complex<T>> z = grid<T>();
  std::vector<std::complex<T>> got(z.size());
  apply(k, z.data(), got.data(), static_cast<long>(z.size()));
  double worst = 0;
  int bad = 0;
  for (std::size_t i = 0; i < z.size(); ++i) {
    const std::complex<T> want = glibc(k, z[i]), g = got[i];
    const bool finite = std::isfinite(want.real()) && std::isfinite(want.imag());
    if (!finite) {
      // glibc: NaN + inf i and the like leave one part's sign or NaN-ness
      // unspecified (C99 Annex G: "NaN +- i inf"); compare the classes.
      for (int p = 0; p < 2; ++p) {
        const T w = p ? want.imag() : want.real(), a = p ? g.imag() : g.real();
        const bool close =
            std::isfinite(w) && std::isfinite(a) &&
            std::abs(double(a) - double(w)) <= 16 * std::numeric_limits<T>::epsilon() * std::abs(double(w));
        // (Annex G leaves the sign of an infinity next to a NaN unspecified,
        // and the NaN-ness of a part next to an infinity.)
        const T other = p ? want.real() : want.imag();
        const bool same = (std::isnan(w) && std::isnan(a)) || (std::isinf(w) && w == a) || close ||
                          (std::isinf(w) && std::isinf(a) && std::isnan(other)) ||
                          (std::isinf(other) && (std::isnan(w) || std::isnan(a)));
        if (!same) {
          ++bad;
          MESSAGE(std::string(kNames[k]) << z[i] << ": " << g << " against glibc's " << want);
          break;
        }
      }
      continue;
    }
    if (!std::isfinite(g.real()) || !std::isfinite(g.imag())) {
      ++bad;
      MESSAGE(std::string(kNames[k]) << z[i] << ": " << g << " against glibc's " << want);
      continue;
    }
    const double d = std::abs(std::complex<double>(g) - std::complex<double>(want));
    const double m = std::abs(std::complex<double>(want));
    if (d == 0) continue;
    // (relative to the smallest normal number below it: subnormal results
    // have fewer bits, and one rounding more or less moves them by an ulp)
    const double e =
        d / (std::max(m, double(std::numeric_limits<T>::min())) * std::numeric_limits<T>::epsilon());
    if (e > worst) worst = e;
    if (e > 64)
      MESSAGE(std::string(kNames[k]) << z[i] << ": " << g << " against glibc's " << want << ", " << e);
  }
  return {worst, bad};
}

}  // namespace

TEST_CASE("complex math for OpenCL: within a few epsilons of glibc, and glibc's special values") {
  const cputest::TempDir dir;
  std::map<std::string, double> worst;
  for (bool fp64 : {true, false}) {
    CAPTURE(fp64);
    const std::string c = dir.path() + (fp64 ? "/wide.c" : "/narrow.c"), so = c + ".so";
    std::ofstream(c) << source(fp64);
    const std::string cmd = "cc -O2 -std=gnu11 -ffp-contract=off -shared -fPIC -o " + so + " " + c + " -lm";
    REQUIRE(std::system(cmd.c_str()) == 0);
    void* h = ::dlopen(so.c_str(), RTLD_NOW | RTLD_LOCAL);
    REQUIRE(h != nullptr);
    const auto applyf = reinterpret_cast<Apply<float>>(::dlsym(h, "applyf"));
    REQUIRE(reinterpret_cast<void*>(applyf) != nullptr);
    for (int k = 0; k < kCount; ++k) {
      CAPTURE(kNames[k]);
      const auto [e, bad] = check<float>(applyf, k);
      CHECK(bad == 0);
      // (measured: at most 3 epsilons each way; glibc's own float functions
      // are a few ulp from the true values)
      CHECK(e <= (fp64 ? 4 : 8));
      worst[std::string(kNames[k]) + (fp64 ? "f(wide)" : "f")] = e;
    }
    if (fp64) {
      const auto applyd = reinterpret_cast<Apply<double>>(::dlsym(h, "applyd"));
      REQUIRE(reinterpret_cast<void*>(applyd) != nullptr);
      for (int k = 0; k < kCount; ++k) {
        CAPTURE(kNames[k]);
        const auto [e, bad] = check<double>(applyd, k);
        CHECK(bad == 0);
        CHECK(e <= 8);
        worst[kNames[k]] = e;
      }
    }
    ::dlclose(h);
  }
  std::string summary;
  for (const auto& [name, e] : worst)
    summary += " " + name + ":" + std::to_string(static_cast<int>(std::ceil(e)));
  MESSAGE("worst normwise error in epsilons:" << summary);
}
