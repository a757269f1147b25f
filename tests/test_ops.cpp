// Every elementwise opcode x every dtype it accepts (and identity x every
// pair of dtypes, range and random x every dtype) on each generating backend
// (cpu, opencl: one suite, parameterised by backend) equals ref on inputs
// full of edge cases (tests/op_table.hpp: NaN, +-inf, -0.0, integer
// MIN/MAX, -1, zero divisors, shift amounts out of range), with greedy
// fusion (a few big kernels; tests/test_backend_random runs every fuser)
// and a constant operand.
//   cpu: bit for bit, everything (its helpers follow ref line by line and
//        call the same glibc).
//   opencl: bit for bit for integers, bools, casts, arithmetic, sqrt,
//        rounding, fmod, comparisons, range and random. The transcendental
//        functions come from the device's math library, not glibc: those
//        must agree on NaN, infinities and zeros and lie within the OpenCL C
//        accuracy bound of the function (in ulp, OpenCL 1.2 tables 7.1/7.2)
//        plus one ulp for glibc's own error. NaN equals NaN whatever its sign
//        bit (log of a negative number is -NaN in glibc, +NaN in PoCL).
#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <map>
#include <string>

#include "backends/backend.hpp"
#include "backends/c_emitter.hpp"
#include "backends/opencl/opencl_backend.hpp"
#include "tests/cpu_test_util.hpp"
#include "tests/op_table.hpp"
#include "tests/opencl_test_util.hpp"
#include "vm/error.hpp"

using namespace arrvm;  // tests only

TEST_CASE("opencl: an OpenCL device is available (CI installs PoCL)") {
  // Fails with the backend's own message (no platform, or no device) when
  // the machine has no OpenCL driver: these tests never pass vacuously.
  std::string error;
  try {
    const std::unique_ptr<Backend> b = make_backend(opencltest::config("opencl"));
    MESSAGE("opencl device: " << opencl_backend_stats(*b).device);
  } catch (const Error& e) {
    error = e.what();
  }
  INFO(error);
  REQUIRE(error.empty());
}

namespace {

// The OpenCL C accuracy bound (ulp, the same for float and double) of a
// function that ref takes from glibc; 0 for everything that must be exact.
int opencl_ulp_bound(Opcode op) {
  switch (op) {
    case Opcode::Sin:
    case Opcode::Cos:
    case Opcode::Arcsin:
    case Opcode::Arccos:
    case Opcode::Sinh:
    case Opcode::Cosh:
    case Opcode::Arcsinh:
    case Opcode::Arccosh:
    case Opcode::Hypot:
      return 4;
    case Opcode::Cbrt:
      return 2;
    case Opcode::Arctanh:
      return 5;
    case Opcode::Tan:
    case Opcode::Arctan:
    case Opcode::Tanh:
      return 5;
    case Opcode::Arctan2:
      return 6;
    case Opcode::Exp:
    case Opcode::Exp2:
    case Opcode::Expm1:
    case Opcode::Log:
    case Opcode::Log2:
    case Opcode::Log10:
      return 3;
    case Opcode::Log1p:
      return 2;
    case Opcode::Power:
      return 16;
    default:
      return 0;
  }
}

// Position of x on the line of floats (adjacent floats differ by 1; -0.0 and
// +0.0 by 1).
template <typename F, typename I>
int64_t ordered(F x) {
  I u;
  std::memcpy(&u, &x, sizeof u);
  const I sign = I(1) << (sizeof(I) * 8 - 1);
  return (u & sign) ? -static_cast<int64_t>(u & ~sign) - 1 : static_cast<int64_t>(u);
}

// Largest distance in ulp between got and want (float outputs), NaN equal
// to NaN; -1 if they disagree on NaN or infinity.
template <typename F, typename I>
int64_t max_ulp(const std::vector<uint8_t>& got, const std::vector<uint8_t>& want) {
  int64_t worst = 0;
  for (std::size_t i = 0; i + sizeof(F) <= got.size(); i += sizeof(F)) {
    F a, b;
    std::memcpy(&a, &got[i], sizeof(F));
    std::memcpy(&b, &want[i], sizeof(F));
    if (std::isnan(a) || std::isnan(b)) {
      if (std::isnan(a) != std::isnan(b)) return -1;
      continue;
    }
    if ((std::isinf(a) || std::isinf(b)) && a != b) return -1;
    const int64_t d = ordered<F, I>(a) - ordered<F, I>(b);
    worst = std::max(worst, d < 0 ? -d : d);
  }
  return worst;
}

// The largest normwise error of got against want (complex outputs: pairs
// of F), in units of F's epsilon: |got - want| / (eps |want|), rounded up;
// -1 where they disagree on NaN (per part) or on an infinite part.
// `overflows` (power): glibc raises a complex64 to a power in float, arrvm
// in double, so where b * log(a) overflows float one gets inf or NaN parts
// where the other gets other infinities, NaNs or zeros. Such elements (a
// non-finite part in either result, the two not equal) are not compared;
// at most 2 of an output's 96 may be such (else -1).
template <typename F>
int64_t max_complex_err(const std::vector<uint8_t>& got, const std::vector<uint8_t>& want, bool overflows) {
  double worst = 0;
  int overflowed = 0;
  for (std::size_t i = 0; i + 2 * sizeof(F) <= got.size(); i += 2 * sizeof(F)) {
    F a[2], b[2];
    std::memcpy(a, &got[i], sizeof a);
    std::memcpy(b, &want[i], sizeof b);
    const bool finite =
        std::isfinite(a[0]) && std::isfinite(a[1]) && std::isfinite(b[0]) && std::isfinite(b[1]);
    if (overflows && !finite && std::memcmp(a, b, sizeof a) != 0) {
      MESSAGE("power, overflow: (" << a[0] << ", " << a[1] << ") against ref's (" << b[0] << ", " << b[1]
                                   << ")");
      if (++overflowed > 2) return -1;
      continue;
    }
    bool special = false;
    for (int p = 0; p < 2; ++p) {
      if (std::isnan(a[p]) != std::isnan(b[p]) || ((std::isinf(a[p]) || std::isinf(b[p])) && a[p] != b[p])) {
        MESSAGE("element " << i / (2 * sizeof(F)) << ": (" << a[0] << ", " << a[1] << ") against ref's ("
                           << b[0] << ", " << b[1] << ")");
        return -1;
      }
      special = special || std::isnan(a[p]) || std::isinf(a[p]);
    }
    if (special) continue;
    const double d = std::hypot(double(a[0]) - double(b[0]), double(a[1]) - double(b[1]));
    const double m = std::hypot(double(b[0]), double(b[1]));
    if (d == 0) continue;
    // (a zero result: within the smallest normal number)
    const double e = m == 0 ? (d <= std::numeric_limits<F>::min() ? 0 : 1e30)
                            : d / (m * std::numeric_limits<F>::epsilon());
    worst = std::max(worst, e);
  }
  return static_cast<int64_t>(std::ceil(std::min(worst, 1e15)));
}

}  // namespace

namespace {

// `backend` against ref; `ulp_bound`: how far a float output of an opcode
// may be from ref's (0: bit for bit, NaN sign bits included).
void check_ops(const std::string& backend, int (*ulp_bound)(Opcode), bool complex = false) {
  cputest::TempDir dir;
  Config ref_config = opencltest::config("ref");
  ref_config.batch = 100000;
  const optable::Result expected = optable::run_table(ref_config, complex);
  Config config = backend == "opencl" ? opencltest::config("opencl") : cputest::config(backend, dir.path());
  config.batch = 100000;
  // cpu: ref's scalar libm everywhere (libmvec's vector variants are within
  // 4 ulp, checked by test_vector_math; which loops gcc vectorizes depends
  // on how the blocks are cut).
  config.passes = "-vector-math";
  const optable::Result got = optable::run_table(config, complex);
  REQUIRE(expected.labels == got.labels);
  // 11 real dtypes: 121 casts, range and random each, plus the accepted ops;
  // 2 complex ones: 26 casts and about 40 ops each.
  CHECK(got.issued > (complex ? 26 + 2 * 35 : 121 + 22 + 300));
  int exact = 0, within = 0;
  std::map<std::string, int64_t> worst;  // per function and dtype, in ulp
  for (std::size_t i = 0; i < got.bytes.size(); ++i) {
    INFO(got.labels[i]);
    if (got.bytes[i] == expected.bytes[i]) {
      ++exact;
      continue;
    }
    const DType t = got.dtypes[i];
    const int bound = is_float(t) || is_complex(t) ? ulp_bound(got.ops[i]) : 0;
    const bool power = got.ops[i] == Opcode::Power;
    const int64_t ulp =
        t == DType::Float64      ? max_ulp<double, uint64_t>(got.bytes[i], expected.bytes[i])
        : t == DType::Float32    ? max_ulp<float, uint32_t>(got.bytes[i], expected.bytes[i])
        : t == DType::Complex128 ? max_complex_err<double>(got.bytes[i], expected.bytes[i], power)
        : t == DType::Complex64  ? max_complex_err<float>(got.bytes[i], expected.bytes[i], power)
                                 : -1;
    if (ulp == 0 && backend != "cpu") {
      ++exact;  // only NaN sign bits differ
      continue;
    }
    // cpu: nothing may differ; opencl: the bound plus one ulp for glibc.
    const int64_t allowed = backend == "cpu" ? -1 : bound + 1;
    for (std::size_t k = 0; k < got.bytes[i].size() && (ulp < 0 || ulp > allowed); ++k) {
      if (got.bytes[i][k] != expected.bytes[i][k]) {
        MESSAGE(got.labels[i] << ": " << ulp << " ulp (bound " << bound << "); first difference at byte " << k
                              << ": " << int(got.bytes[i][k]) << " vs ref " << int(expected.bytes[i][k]));
        break;
      }
    }
    CHECK(ulp >= 0);
    CHECK(ulp <= allowed);
    if (ulp > 0 && ulp <= allowed) ++within;
    const std::string& key = got.labels[i];
    int64_t& w = worst[key.substr(0, key.find("->"))];
    w = std::max(w, ulp);
  }
  std::string summary;
  for (const auto& [name, ulp] : worst) summary += " " + name + ":" + std::to_string(ulp);
  MESSAGE(backend << ": " << exact << " outputs exact, " << within
                  << " within the OpenCL ulp bound:" << summary);
  CHECK(exact + within == got.issued);
  CHECK(exact > got.issued - (complex ? 60 : 50));  // only the transcendental functions may differ
  if (backend == "cpu") CHECK(exact == got.issued);
}

// opencl, complex dtypes: the normwise error (in epsilons) of a complex
// result, or the ulp of a real one (absolute value), that the written-out
// complex functions (c_emitter_complex.cpp) may have against glibc's;
// arithmetic but division exact. complex64 computes in complex128 on a
// device with doubles, so its functions are within a few epsilons of float.
int opencl_complex_bound(Opcode op) {
  switch (op) {
    case Opcode::Absolute:
      return opencl_ulp_bound(Opcode::Hypot);
    case Opcode::Divide:
      return 4;
    case Opcode::Power:  // (the error of log(a) times |b|)
      return 64;
    default:
      return codegen::uses_complex_math(op) || op == Opcode::Expm1 || op == Opcode::Log1p ? 8 : 0;
  }
}

int bit_for_bit(Opcode) {
  return 0;
}

}  // namespace

TEST_CASE("cpu: every elementwise opcode and dtype equals ref bit for bit") {
  check_ops("cpu", bit_for_bit);
}

TEST_CASE(
    "cpu: every elementwise opcode on complex64 and complex128, and their casts, equal ref bit for bit") {
  check_ops("cpu", bit_for_bit, true);
}

TEST_CASE("opencl: every elementwise opcode and dtype equals ref (bit for bit but transcendentals)") {
  check_ops("opencl", opencl_ulp_bound);
}

TEST_CASE(
    "opencl: every elementwise opcode on complex64 and complex128, and their casts, equal ref (functions "
    "within "
    "their bound)") {
  check_ops("opencl", opencl_complex_bound, true);
}
