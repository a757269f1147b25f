// The arithmetic opcodes of the `ref` backend (add ... mod, maximum, minimum,
// negative, absolute, sign) on every dtype they take, against hand-computed
// values: small values common to all dtypes, then each dtype's edge cases
// (wrap-around, floor division and modulo signs, x/0, MIN/-1, NaN, -0.0).
#include <doctest/doctest.h>

#include "tests/ref_test_util.hpp"

using namespace reftest;  // tests only

namespace {

using O = Opcode;

}  // namespace

TEST_SUITE("ref arithmetic") {
  TEST_CASE_TEMPLATE("add, subtract, multiply, maximum, minimum on small values", T, REFTEST_ARITH) {
    check_same(eval2<T>(O::Add, vals<T>({0, 1, 2, 100}), vals<T>({0, 5, 7, 27})), vals<T>({0, 6, 9, 127}));
    check_same(eval2<T>(O::Subtract, vals<T>({5, 9, 100, 127}), vals<T>({0, 4, 1, 27})),
               vals<T>({5, 5, 99, 100}));
    check_same(eval2<T>(O::Multiply, vals<T>({0, 3, 7, 11}), vals<T>({9, 5, 7, 11})),
               vals<T>({0, 15, 49, 121}));
    check_same(eval2<T>(O::Maximum, vals<T>({1, 5, 0, 127}), vals<T>({2, 3, 0, 100})),
               vals<T>({2, 5, 0, 127}));
    check_same(eval2<T>(O::Minimum, vals<T>({1, 5, 0, 127}), vals<T>({2, 3, 0, 100})),
               vals<T>({1, 3, 0, 100}));
    check_same(eval2<T>(O::Power, vals<T>({2, 3, 0, 1, 5, 11}), vals<T>({3, 4, 0, 100, 0, 2})),
               vals<T>({8, 81, 1, 1, 1, 121}));
  }

  TEST_CASE_TEMPLATE("divide and mod on small non-negative values", T, REFTEST_INTS) {
    check_same(eval2<T>(O::Divide, vals<T>({7, 9, 100, 0, 1}), vals<T>({2, 3, 7, 5, 9})),
               vals<T>({3, 3, 14, 0, 0}));
    check_same(eval2<T>(O::Mod, vals<T>({7, 9, 100, 0, 1}), vals<T>({2, 3, 7, 5, 9})),
               vals<T>({1, 0, 2, 0, 1}));
    // x / 0 == x % 0 == 0
    check_same(eval2<T>(O::Divide, vals<T>({7, 0, 127}), vals<T>({0, 0, 0})), vals<T>({0, 0, 0}));
    check_same(eval2<T>(O::Mod, vals<T>({7, 0, 127}), vals<T>({0, 0, 0})), vals<T>({0, 0, 0}));
  }

  TEST_CASE_TEMPLATE("floor division and modulo signs on signed ints", T, REFTEST_SIGNED) {
    check_same(eval2<T>(O::Divide, vals<T>({-7, 7, -7, -6, 6, 0}), vals<T>({2, -2, -2, 3, -3, -3})),
               vals<T>({-4, -4, 3, -2, -2, 0}));
    check_same(eval2<T>(O::Mod, vals<T>({-7, 7, -7, -6, 6, 0, -1}), vals<T>({2, -2, -2, 3, -3, -3, 100})),
               vals<T>({1, -1, -1, 0, 0, 0, 99}));
    // MIN / -1 wraps to MIN, MIN % -1 == 0, and the other divisions by -1.
    check_same(eval2<T>(O::Divide, Vec<T>{lo<T>(), hi<T>(), 5}, Vec<T>{-1, -1, -1}),
               Vec<T>{lo<T>(), T(-hi<T>()), -5});
    check_same(eval2<T>(O::Mod, Vec<T>{lo<T>(), hi<T>(), 5}, Vec<T>{-1, -1, -1}), Vec<T>{0, 0, 0});
    check_same(eval2<T>(O::Divide, Vec<T>{lo<T>(), -5}, Vec<T>{0, 0}), Vec<T>{0, 0});
    check_same(eval2<T>(O::Mod, Vec<T>{lo<T>(), -5}, Vec<T>{0, 0}), Vec<T>{0, 0});
    // Negative exponents: 1 -> 1, -1 -> +-1 by parity, else 0.
    check_same(eval2<T>(O::Power, vals<T>({1, -1, -1, 2, -2, 0}), vals<T>({-5, -3, -2, -1, -1, -1})),
               vals<T>({1, -1, 1, 0, 0, 0}));
    check_same(eval2<T>(O::Power, vals<T>({-2, -3}), vals<T>({3, 2})), vals<T>({-8, 9}));
    check_same(eval2<T>(O::Maximum, vals<T>({-5, -1, 3}), vals<T>({-6, 2, -3})), vals<T>({-5, 2, 3}));
    check_same(eval2<T>(O::Minimum, vals<T>({-5, -1, 3}), vals<T>({-6, 2, -3})), vals<T>({-6, -1, -3}));
  }

  TEST_CASE("int8 wraps") {
    using T = int8_t;
    check_same(eval2<T>(O::Add, {127, -128, 100}, {1, -1, 100}), Vec<T>{-128, 127, -56});
    check_same(eval2<T>(O::Subtract, {-128, 127}, {1, -1}), Vec<T>{127, -128});
    check_same(eval2<T>(O::Multiply, {16, 100, -128}, {16, 3, -1}), Vec<T>{0, 44, -128});
    check_same(eval2<T>(O::Power, {2, 3, 2}, {7, 5, 8}), Vec<T>{-128, -13, 0});
  }

  TEST_CASE("int16 wraps") {
    using T = int16_t;
    check_same(eval2<T>(O::Add, {32767}, {1}), Vec<T>{-32768});
    check_same(eval2<T>(O::Multiply, {300, -32768}, {300, -1}), Vec<T>{24464, -32768});
  }

  TEST_CASE("int32 wraps") {
    using T = int32_t;
    check_same(eval2<T>(O::Add, {2147483647}, {1}), Vec<T>{-2147483647 - 1});
    check_same(eval2<T>(O::Multiply, {65536, 46341}, {65536, 46341}), Vec<T>{0, -2147479015});
    check_same(eval2<T>(O::Power, {2, 2}, {31, 32}), Vec<T>{-2147483647 - 1, 0});
  }

  TEST_CASE("int64 wraps") {
    using T = int64_t;
    check_same(eval2<T>(O::Add, {hi<T>()}, {1}), Vec<T>{lo<T>()});
    check_same(eval2<T>(O::Subtract, {lo<T>()}, {1}), Vec<T>{hi<T>()});
    check_same(eval2<T>(O::Multiply, {hi<T>(), lo<T>()}, {2, -1}), Vec<T>{-2, lo<T>()});
    // 3^40 = 12157665459056928801 = 2^64 - 6289078614652622815
    check_same(eval2<T>(O::Power, {3, 2, 2}, {40, 63, 64}), Vec<T>{-6289078614652622815, lo<T>(), 0});
  }

  TEST_CASE("unsigned ints wrap") {
    check_same(eval2<uint8_t>(O::Add, {255, 200}, {1, 100}), Vec<uint8_t>{0, 44});
    check_same(eval2<uint8_t>(O::Subtract, {0, 3}, {1, 5}), Vec<uint8_t>{255, 254});
    check_same(eval2<uint8_t>(O::Multiply, {16, 255}, {16, 255}), Vec<uint8_t>{0, 1});
    check_same(eval2<uint8_t>(O::Power, {2, 3, 255}, {8, 5, 2}), Vec<uint8_t>{0, 243, 1});
    // 65535 * 65535 overflows int after C++'s promotion: must wrap in unsigned.
    check_same(eval2<uint16_t>(O::Multiply, {65535, 256}, {65535, 256}), Vec<uint16_t>{1, 0});
    check_same(eval2<uint16_t>(O::Power, {65535, 2}, {3, 16}), Vec<uint16_t>{65535, 0});
    check_same(eval2<uint32_t>(O::Subtract, {0}, {1}), Vec<uint32_t>{4294967295u});
    check_same(eval2<uint32_t>(O::Multiply, {65536, 4294967295u}, {65536, 4294967295u}), Vec<uint32_t>{0, 1});
    check_same(eval2<uint64_t>(O::Add, {hi<uint64_t>()}, {2}), Vec<uint64_t>{1});
    check_same(eval2<uint64_t>(O::Subtract, {0}, {1}), Vec<uint64_t>{hi<uint64_t>()});
    // 7^23 mod 2^64
    check_same(eval2<uint64_t>(O::Power, {7, 2}, {23, 64}), Vec<uint64_t>{8922003266371364727ull, 0});
    check_same(eval2<uint64_t>(O::Divide, {hi<uint64_t>(), 5}, {2, 0}),
               Vec<uint64_t>{9223372036854775807ull, 0});
    check_same(eval2<uint64_t>(O::Mod, {hi<uint64_t>(), 5}, {10, 0}), Vec<uint64_t>{5, 0});
    check_same(eval2<uint8_t>(O::Maximum, {255, 0}, {1, 128}), Vec<uint8_t>{255, 128});
  }

  TEST_CASE_TEMPLATE("float divide, mod and power", T, REFTEST_FLOATS) {
    check_same(eval2<T>(O::Divide, vals<T>({7, 9, 1, -1, 0, -3}), vals<T>({2, 3, 0, 0, 0, 4})),
               vals<T>({3.5, 3, kInf, -kInf, kNaN, -0.75}));
    // NumPy remainder: the result takes the divisor's sign; a zero result is a
    // zero of the divisor's sign; x mod 0 is NaN.
    check_same(eval2<T>(O::Mod, vals<T>({-7, 7, -7, 5.5, -0.5, 6, -6, 1, kInf, 3}),
                        vals<T>({2, -2, -2, 2, 2, -3, 3, 0, 2, kNaN})),
               vals<T>({1, -1, -1, 1.5, 1.5, -0.0, 0.0, kNaN, kNaN, kNaN}));
    check_same(eval2<T>(O::Power, vals<T>({2, 4, 2, 0, -8, -1}), vals<T>({-1, 0.5, 10, 0, 2, 0.5})),
               vals<T>({0.5, 2, 1024, 1, 64, kNaN}));
    check_same(eval2<T>(O::Add, vals<T>({kInf, kNaN, -0.0, -0.0}), vals<T>({-kInf, 1, -0.0, 0.0})),
               vals<T>({kNaN, kNaN, -0.0, 0.0}));
    check_same(eval2<T>(O::Multiply, vals<T>({-0.5, kInf}), vals<T>({0, 0})), vals<T>({-0.0, kNaN}));
    check_same(eval2<T>(O::Subtract, vals<T>({0.5, 0.0}), vals<T>({1.5, 0.0})), vals<T>({-1, 0.0}));
  }

  TEST_CASE_TEMPLATE("float maximum and minimum propagate NaN", T, REFTEST_FLOATS) {
    check_same(eval2<T>(O::Maximum, vals<T>({kNaN, 1, kNaN, -kInf, -1.5}), vals<T>({1, kNaN, kNaN, 3, -2.5})),
               vals<T>({kNaN, kNaN, kNaN, 3, -1.5}));
    check_same(eval2<T>(O::Minimum, vals<T>({kNaN, 1, kNaN, kInf, -1.5}), vals<T>({1, kNaN, kNaN, 3, -2.5})),
               vals<T>({kNaN, kNaN, kNaN, 3, -2.5}));
  }

  TEST_CASE("float32 arithmetic rounds to float32") {
    // 16777216 + 1 is not representable in float32 (it rounds to even).
    check_same(eval2<float>(O::Add, {16777216.0f, 0.1f}, {1.0f, 0.2f}), Vec<float>{16777216.0f, 0.1f + 0.2f});
    check_same(eval2<float>(O::Divide, {1.0f}, {3.0f}), Vec<float>{1.0f / 3.0f});
  }

  TEST_CASE_TEMPLATE("negative, absolute, sign on signed ints and floats", T, REFTEST_SIGNED,
                     REFTEST_FLOATS) {
    check_same(eval1<T>(O::Negative, vals<T>({2, 1, -5, 127, -127})), vals<T>({-2, -1, 5, -127, 127}));
    check_same(eval1<T>(O::Absolute, vals<T>({-3, 0, 5, -127, 127})), vals<T>({3, 0, 5, 127, 127}));
    check_same(eval1<T>(O::Sign, vals<T>({-3, 0, 5, -127, 127})), vals<T>({-1, 0, 1, -1, 1}));
  }

  TEST_CASE_TEMPLATE("negative wraps, absolute of MIN is MIN", T, REFTEST_SIGNED) {
    check_same(eval1<T>(O::Negative, Vec<T>{lo<T>(), hi<T>(), 0}), Vec<T>{lo<T>(), T(lo<T>() + 1), 0});
    check_same(eval1<T>(O::Absolute, Vec<T>{lo<T>(), T(lo<T>() + 1)}), Vec<T>{lo<T>(), hi<T>()});
    check_same(eval1<T>(O::Sign, Vec<T>{lo<T>(), hi<T>()}), Vec<T>{-1, 1});
  }

  TEST_CASE("negative, absolute, sign on unsigned ints") {
    check_same(eval1<uint8_t>(O::Negative, {0, 1, 255, 128}), Vec<uint8_t>{0, 255, 1, 128});
    check_same(eval1<uint16_t>(O::Negative, {0, 1, 65535}), Vec<uint16_t>{0, 65535, 1});
    check_same(eval1<uint32_t>(O::Negative, {1, 4294967295u}), Vec<uint32_t>{4294967295u, 1});
    check_same(eval1<uint64_t>(O::Negative, {1, 2}), Vec<uint64_t>{hi<uint64_t>(), hi<uint64_t>() - 1});
    check_same(eval1<uint8_t>(O::Absolute, {0, 5, 255}), Vec<uint8_t>{0, 5, 255});
    check_same(eval1<uint16_t>(O::Absolute, {0, 65535}), Vec<uint16_t>{0, 65535});
    check_same(eval1<uint32_t>(O::Absolute, {4294967295u}), Vec<uint32_t>{4294967295u});
    check_same(eval1<uint64_t>(O::Absolute, {hi<uint64_t>()}), Vec<uint64_t>{hi<uint64_t>()});
    check_same(eval1<uint8_t>(O::Sign, {0, 5, 255}), Vec<uint8_t>{0, 1, 1});
    check_same(eval1<uint16_t>(O::Sign, {0, 65535}), Vec<uint16_t>{0, 1});
    check_same(eval1<uint32_t>(O::Sign, {0, 4294967295u}), Vec<uint32_t>{0, 1});
    check_same(eval1<uint64_t>(O::Sign, {0, hi<uint64_t>()}), Vec<uint64_t>{0, 1});
  }

  TEST_CASE_TEMPLATE("negative, absolute, sign of float specials", T, REFTEST_FLOATS) {
    check_same(eval1<T>(O::Negative, vals<T>({0.0, -0.0, kInf, kNaN})), vals<T>({-0.0, 0.0, -kInf, kNaN}));
    check_same(eval1<T>(O::Absolute, vals<T>({-0.0, -kInf, kNaN, -2.5})), vals<T>({0.0, kInf, kNaN, 2.5}));
    check_same(eval1<T>(O::Sign, vals<T>({-0.0, kNaN, -kInf, kInf, 1e-30, -0.25})),
               vals<T>({0.0, kNaN, -1, 1, 1, -1}));
  }

}  // TEST_SUITE
