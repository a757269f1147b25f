// Comparisons, logical, bitwise and shift opcodes, predicates, `where` and
// `identity` (casts) of the `ref` backend on every dtype they take, against
// hand-computed values.
#include <doctest/doctest.h>

#include <tuple>

#include "tests/ref_test_util.hpp"

using namespace reftest;  // tests only

namespace {

using O = Opcode;

// 0/1 patterns valid in every dtype: all four (a, b) pairs.
const std::initializer_list<double> kA = {0, 0, 1, 1};
const std::initializer_list<double> kB = {0, 1, 0, 1};

}  // namespace

TEST_SUITE("ref logic") {
  TEST_CASE_TEMPLATE("comparisons on every dtype", T, REFTEST_ALL) {
    check_same(eval2<T, bool>(O::Equal, vals<T>(kA), vals<T>(kB)), vals<bool>({1, 0, 0, 1}));
    check_same(eval2<T, bool>(O::NotEqual, vals<T>(kA), vals<T>(kB)), vals<bool>({0, 1, 1, 0}));
    check_same(eval2<T, bool>(O::Less, vals<T>(kA), vals<T>(kB)), vals<bool>({0, 1, 0, 0}));
    check_same(eval2<T, bool>(O::LessEqual, vals<T>(kA), vals<T>(kB)), vals<bool>({1, 1, 0, 1}));
    check_same(eval2<T, bool>(O::Greater, vals<T>(kA), vals<T>(kB)), vals<bool>({0, 0, 1, 0}));
    check_same(eval2<T, bool>(O::GreaterEqual, vals<T>(kA), vals<T>(kB)), vals<bool>({1, 0, 1, 1}));
    if constexpr (!std::is_same_v<T, bool>) {
      check_same(eval2<T, bool>(O::Less, vals<T>({5, 100, 127}), vals<T>({100, 5, 127})),
                 vals<bool>({1, 0, 0}));
      check_same(eval2<T, bool>(O::GreaterEqual, vals<T>({5, 100, 127}), vals<T>({100, 5, 127})),
                 vals<bool>({0, 1, 1}));
      check_same(eval2<T, bool>(O::Equal, Vec<T>{hi<T>(), lo<T>()}, Vec<T>{hi<T>(), hi<T>()}),
                 vals<bool>({1, 0}));
      check_same(eval2<T, bool>(O::Greater, Vec<T>{hi<T>(), lo<T>()}, Vec<T>{lo<T>(), hi<T>()}),
                 vals<bool>({1, 0}));
    }
  }

  TEST_CASE("signed, unsigned and float comparisons") {
    check_same(eval2<int8_t, bool>(O::Less, {-1, -128, 127}, {0, 127, -128}), vals<bool>({1, 1, 0}));
    check_same(eval2<int64_t, bool>(O::LessEqual, {-1, lo<int64_t>()}, {-1, 0}), vals<bool>({1, 1}));
    check_same(eval2<uint8_t, bool>(O::Greater, {255, 128}, {1, 127}), vals<bool>({1, 1}));
    check_same(eval2<uint64_t, bool>(O::Greater, {hi<uint64_t>()}, {0}), vals<bool>({1}));
    const Vec<double> a = {kNaN, kNaN, 1, -0.0, -kInf};
    const Vec<double> b = {kNaN, 1, kNaN, 0.0, kInf};
    check_same(eval2<double, bool>(O::Equal, a, b), vals<bool>({0, 0, 0, 1, 0}));
    check_same(eval2<double, bool>(O::NotEqual, a, b), vals<bool>({1, 1, 1, 0, 1}));
    check_same(eval2<double, bool>(O::Less, a, b), vals<bool>({0, 0, 0, 0, 1}));
    check_same(eval2<double, bool>(O::LessEqual, a, b), vals<bool>({0, 0, 0, 1, 1}));
    check_same(eval2<double, bool>(O::Greater, a, b), vals<bool>({0, 0, 0, 0, 0}));
    check_same(eval2<double, bool>(O::GreaterEqual, a, b), vals<bool>({0, 0, 0, 1, 0}));
    check_same(eval2<float, bool>(O::NotEqual, {NAN, 2.5f}, {NAN, 2.5f}), vals<bool>({1, 0}));
  }

  TEST_CASE("logical ops on bool") {
    check_same(eval2<bool>(O::LogicalAnd, vals<bool>(kA), vals<bool>(kB)), vals<bool>({0, 0, 0, 1}));
    check_same(eval2<bool>(O::LogicalOr, vals<bool>(kA), vals<bool>(kB)), vals<bool>({0, 1, 1, 1}));
    check_same(eval2<bool>(O::LogicalXor, vals<bool>(kA), vals<bool>(kB)), vals<bool>({0, 1, 1, 0}));
    check_same(eval1<bool>(O::LogicalNot, vals<bool>(kA)), vals<bool>({1, 1, 0, 0}));
  }

  TEST_CASE("bitwise ops on bool are logical") {
    check_same(eval2<bool>(O::BitwiseAnd, vals<bool>(kA), vals<bool>(kB)), vals<bool>({0, 0, 0, 1}));
    check_same(eval2<bool>(O::BitwiseOr, vals<bool>(kA), vals<bool>(kB)), vals<bool>({0, 1, 1, 1}));
    check_same(eval2<bool>(O::BitwiseXor, vals<bool>(kA), vals<bool>(kB)), vals<bool>({0, 1, 1, 0}));
    check_same(eval1<bool>(O::Invert, vals<bool>(kA)), vals<bool>({1, 1, 0, 0}));
  }

  TEST_CASE_TEMPLATE("bitwise ops and shifts on ints", T, REFTEST_INTS) {
    check_same(eval2<T>(O::BitwiseAnd, vals<T>({12, 10, 127}), vals<T>({10, 6, 0})), vals<T>({8, 2, 0}));
    check_same(eval2<T>(O::BitwiseOr, vals<T>({12, 10, 127}), vals<T>({10, 6, 0})), vals<T>({14, 14, 127}));
    check_same(eval2<T>(O::BitwiseXor, vals<T>({12, 10, 127}), vals<T>({10, 6, 0})), vals<T>({6, 12, 127}));
    check_same(eval2<T>(O::LeftShift, vals<T>({1, 3, 5, 0}), vals<T>({0, 2, 3, 5})), vals<T>({1, 12, 40, 0}));
    check_same(eval2<T>(O::RightShift, vals<T>({40, 12, 7, 1}), vals<T>({3, 2, 0, 1})),
               vals<T>({5, 3, 7, 0}));
    // Shifting by the bit width or more gives 0.
    constexpr T bits = sizeof(T) * 8;
    check_same(eval2<T>(O::LeftShift, Vec<T>{1, 1, 3}, Vec<T>{bits, T(bits - 1), 100}),
               Vec<T>{0, T(T(1) << (bits - 1)), 0});
    check_same(eval2<T>(O::RightShift, Vec<T>{hi<T>(), 100}, Vec<T>{bits, 100}), Vec<T>{0, 0});
    check_same(eval2<T>(O::BitwiseAnd, Vec<T>{hi<T>(), lo<T>()}, Vec<T>{hi<T>(), hi<T>()}),
               Vec<T>{hi<T>(), 0});
  }

  TEST_CASE_TEMPLATE("invert and shifts of negative signed ints", T, REFTEST_SIGNED) {
    check_same(eval1<T>(O::Invert, vals<T>({0, 5, -1, 127})), vals<T>({-1, -6, 0, -128}));
    check_same(eval2<T>(O::RightShift, vals<T>({-8, -8, -8, -1, -8}), vals<T>({1, 3, 4, 0, 100})),
               vals<T>({-4, -1, -1, -1, -1}));
    constexpr T bits = sizeof(T) * 8;
    check_same(eval2<T>(O::RightShift, Vec<T>{lo<T>(), lo<T>(), 8}, Vec<T>{T(bits - 1), bits, -1}),
               Vec<T>{-1, -1, 0});
    check_same(eval2<T>(O::RightShift, Vec<T>{-8}, Vec<T>{-1}), Vec<T>{-1});
    check_same(eval2<T>(O::LeftShift, Vec<T>{1, -1, -3}, Vec<T>{-1, T(bits - 1), 2}),
               Vec<T>{0, lo<T>(), -12});
    check_same(eval2<T>(O::BitwiseXor, vals<T>({-1, -2}), vals<T>({5, -3})), vals<T>({-6, 3}));
  }

  TEST_CASE("invert on unsigned ints") {
    check_same(eval1<uint8_t>(O::Invert, {0, 5, 255}), Vec<uint8_t>{255, 250, 0});
    check_same(eval1<uint16_t>(O::Invert, {0, 5}), Vec<uint16_t>{65535, 65530});
    check_same(eval1<uint32_t>(O::Invert, {0, 5}), Vec<uint32_t>{4294967295u, 4294967290u});
    check_same(eval1<uint64_t>(O::Invert, {0, 5}), Vec<uint64_t>{hi<uint64_t>(), hi<uint64_t>() - 5});
    check_same(eval2<uint8_t>(O::RightShift, {255, 128}, {7, 7}),
               Vec<uint8_t>{1, 1});  // logical, not arithmetic
    check_same(eval2<uint8_t>(O::LeftShift, {255}, {4}), Vec<uint8_t>{240});
  }

  TEST_CASE_TEMPLATE("isnan, isinf, isfinite on ints and bool", T, bool, REFTEST_INTS) {
    check_same(eval1<T, bool>(O::Isnan, vals<T>({0, 1})), vals<bool>({0, 0}));
    check_same(eval1<T, bool>(O::Isinf, vals<T>({0, 1})), vals<bool>({0, 0}));
    check_same(eval1<T, bool>(O::Isfinite, vals<T>({0, 1})), vals<bool>({1, 1}));
  }

  TEST_CASE_TEMPLATE("isnan, isinf, isfinite on floats", T, REFTEST_FLOATS) {
    const Vec<T> x = vals<T>({0, kNaN, kInf, -kInf, 1.5, -0.0});
    check_same(eval1<T, bool>(O::Isnan, x), vals<bool>({0, 1, 0, 0, 0, 0}));
    check_same(eval1<T, bool>(O::Isinf, x), vals<bool>({0, 0, 1, 1, 0, 0}));
    check_same(eval1<T, bool>(O::Isfinite, x), vals<bool>({1, 0, 0, 0, 1, 1}));
  }

  TEST_CASE_TEMPLATE("where on every dtype", T, REFTEST_ALL) {
    Vm vm;
    const BaseId c = vm.array<bool>(vals<bool>({1, 0, 1, 0}));
    const BaseId a = vm.array<T>(vals<T>({1, 1, 0, 0}));
    const BaseId b = vm.array<T>(vals<T>({0, 1, 1, 0}));
    const BaseId o = vm.empty<T>(4), o2 = vm.empty<T>(4);
    vm.issue(make(O::Where, vec(o, 4), {in(vec(c, 4)), in(vec(a, 4)), in(vec(b, 4))}));
    // A constant condition and a constant value.
    vm.issue(make(O::Where, vec(o2, 4), {konst<bool>(false), in(vec(a, 4)), konst<T>(T(1))}));
    check_same(vm.read<T>(o), vals<T>({1, 1, 0, 0}));
    check_same(vm.read<T>(o2), vals<T>({1, 1, 1, 1}));
    if constexpr (!std::is_same_v<T, bool>) {
      const BaseId x = vm.array<T>(vals<T>({5, 6, 7, 8}));
      const BaseId y = vm.array<T>(Vec<T>{hi<T>(), hi<T>(), lo<T>(), lo<T>()});
      vm.issue(make(O::Where, vec(o, 4), {in(vec(c, 4)), in(vec(x, 4)), in(vec(y, 4))}));
      check_same(vm.read<T>(o), Vec<T>{5, hi<T>(), 7, lo<T>()});
    }
  }

  namespace {

  // identity from From to every dtype: 0/1 stay 0/1, bool gets value != 0.
  template <typename From, typename To>
  void check_cast_small() {
    INFO("identity " << std::string(arrvm::dtype_name(dt<From>())) << " -> "
                     << std::string(arrvm::dtype_name(dt<To>())));
    check_same(eval1<From, To>(O::Identity, vals<From>({0, 1, 1, 0})), vals<To>({0, 1, 1, 0}));
    if constexpr (!std::is_same_v<From, bool>) {
      if constexpr (std::is_same_v<To, bool>) {
        check_same(eval1<From, To>(O::Identity, vals<From>({100, 0, 2, 127})), vals<To>({1, 0, 1, 1}));
      } else {
        check_same(eval1<From, To>(O::Identity, vals<From>({100, 0, 2, 127})), vals<To>({100, 0, 2, 127}));
      }
    }
  }

  template <typename From, typename... To>
  void check_cast_to_all(std::tuple<To...>*) {
    (check_cast_small<From, To>(), ...);
  }

  }  // namespace

  TEST_CASE_TEMPLATE("identity from every dtype to every dtype", T, REFTEST_ALL) {
    check_cast_to_all<T>(static_cast<std::tuple<REFTEST_ALL>*>(nullptr));
  }

  TEST_CASE("identity: integer casts wrap") {
    check_same(eval1<int32_t, int8_t>(O::Identity, {300, -129, 128}), Vec<int8_t>{44, 127, -128});
    check_same(eval1<int8_t, uint8_t>(O::Identity, {-1, -128}), Vec<uint8_t>{255, 128});
    check_same(eval1<int64_t, uint64_t>(O::Identity, {-1}), Vec<uint64_t>{hi<uint64_t>()});
    check_same(eval1<uint64_t, int64_t>(O::Identity, {hi<uint64_t>()}), Vec<int64_t>{-1});
    check_same(eval1<uint32_t, int16_t>(O::Identity, {65535, 4294967295u}), Vec<int16_t>{-1, -1});
    check_same(eval1<int16_t, uint32_t>(O::Identity, {-2}), Vec<uint32_t>{4294967294u});
    check_same(eval1<int8_t, bool>(O::Identity, {-1, 0, 8}), vals<bool>({1, 0, 1}));
  }

  TEST_CASE("identity: float to int as NumPy on x86-64 (vm/cast.hpp), values from NumPy 1.24") {
    check_same(
        eval1<double, int32_t>(O::Identity, {3.9, -3.9, kNaN, 1e10, -1e10, kInf, -kInf, -0.5}),
        Vec<int32_t>{3, -3, lo<int32_t>(), lo<int32_t>(), lo<int32_t>(), lo<int32_t>(), lo<int32_t>(), 0});
    check_same(eval1<double, int8_t>(O::Identity, {300, -300, 127.9, -128.9}),
               Vec<int8_t>{44, -44, 127, -128});
    check_same(eval1<double, uint8_t>(O::Identity, {-1, 255.5, 256, kNaN}), Vec<uint8_t>{255, 255, 0, 0});
    check_same(eval1<double, int64_t>(O::Identity, {9223372036854775808.0, -9223372036854775808.0, kNaN}),
               Vec<int64_t>{lo<int64_t>(), lo<int64_t>(), lo<int64_t>()});
    check_same(eval1<double, uint64_t>(O::Identity, {1e20, -5, 18446744073709549568.0}),
               Vec<uint64_t>{0, 18446744073709551611ull, 18446744073709549568ull});
    check_same(eval1<float, int16_t>(O::Identity, {NAN, 40000.0f, -2.5f}), Vec<int16_t>{0, -25536, -2});
    check_same(eval1<float, uint32_t>(O::Identity, {INFINITY, 7.99f}), Vec<uint32_t>{0, 7});
  }

  TEST_CASE("identity: to bool and between floats") {
    check_same(eval1<double, bool>(O::Identity, {kNaN, -0.0, 0.5, 0.0, -kInf}), vals<bool>({1, 0, 1, 0, 1}));
    check_same(eval1<double, float>(O::Identity, {1e300, -1e300, 0.1, kNaN, -0.0}),
               Vec<float>{INFINITY, -INFINITY, 0.1f, NAN, -0.0f});
    check_same(eval1<float, double>(O::Identity, {0.1f, -0.0f}),
               Vec<double>{static_cast<double>(0.1f), -0.0});
    // int -> float rounds to nearest even: 2^53 + 1 -> 2^53; 2^24 + 1 -> 2^24 in float32.
    check_same(eval1<int64_t, double>(O::Identity, {9007199254740993, -7}),
               Vec<double>{9007199254740992.0, -7.0});
    check_same(eval1<int32_t, float>(O::Identity, {16777217, 16777219}),
               Vec<float>{16777216.0f, 16777220.0f});
    check_same(eval1<uint64_t, double>(O::Identity, {hi<uint64_t>()}), Vec<double>{18446744073709551616.0});
  }

}  // TEST_SUITE
