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
#include <map>
#include <string>

#include "backends/backend.hpp"
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
    const int bound = is_float(t) ? ulp_bound(got.ops[i]) : 0;
    const int64_t ulp = t == DType::Float64   ? max_ulp<double, uint64_t>(got.bytes[i], expected.bytes[i])
                        : t == DType::Float32 ? max_ulp<float, uint32_t>(got.bytes[i], expected.bytes[i])
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
