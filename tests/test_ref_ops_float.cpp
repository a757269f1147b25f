// The float-only opcodes of the `ref` backend (sqrt ... rint, arctan2) on
// float32 and float64, against hand-computed values (exact where the result
// is exact, else within a few ulps of the value written out to 17 digits).
#include <doctest/doctest.h>

#include "tests/ref_test_util.hpp"

using namespace reftest;  // tests only

namespace {

using O = Opcode;

template <typename T>
constexpr double kRel = std::is_same_v<T, float> ? 4e-7 : 1e-15;

constexpr double kPi = 3.141592653589793;

}  // namespace

TEST_SUITE("ref float ops") {
  TEST_CASE_TEMPLATE("sqrt, exp, log families", T, REFTEST_FLOATS) {
    check_same(eval1<T>(O::Sqrt, vals<T>({0, 1, 4, 2.25, -1, kInf, -0.0})),
               vals<T>({0, 1, 2, 1.5, kNaN, kInf, -0.0}));
    check_near(eval1<T>(O::Sqrt, vals<T>({2})), vals<T>({1.4142135623730951}), kRel<T>);
    check_near(eval1<T>(O::Exp, vals<T>({0, 1, -1, -kInf, kInf})),
               vals<T>({1, 2.718281828459045, 0.36787944117144233, 0, kInf}), kRel<T>);
    check_same(eval1<T>(O::Exp2, vals<T>({0, 3, -1, 10, -kInf})), vals<T>({1, 8, 0.5, 1024, 0}));
    check_near(eval1<T>(O::Expm1, vals<T>({0, 1e-10, 1})), vals<T>({0, 1.00000000005e-10, 1.718281828459045}),
               kRel<T>);
    check_near(eval1<T>(O::Log, vals<T>({1, 2.718281828459045, 2, 0, -1})),
               vals<T>({0, 1, 0.6931471805599453, -kInf, kNaN}), kRel<T>);
    check_same(eval1<T>(O::Log2, vals<T>({1, 8, 0.5, 0, -1, kInf})), vals<T>({0, 3, -1, -kInf, kNaN, kInf}));
    check_near(eval1<T>(O::Log2, vals<T>({10})), vals<T>({3.321928094887362}), kRel<T>);
    check_near(eval1<T>(O::Log10, vals<T>({1, 1000, 0, -1, 2, 0.01})),
               vals<T>({0, 3, -kInf, kNaN, 0.3010299956639812, -2}), kRel<T>);
    check_near(eval1<T>(O::Log1p, vals<T>({0, 1e-10, -1, -2})), vals<T>({0, 9.9999999995e-11, -kInf, kNaN}),
               kRel<T>);
  }

  TEST_CASE_TEMPLATE("trigonometric and hyperbolic", T, REFTEST_FLOATS) {
    check_near(eval1<T>(O::Sin, vals<T>({0, kPi / 2, 1})), vals<T>({0, 1, 0.8414709848078965}), kRel<T>);
    check_near(eval1<T>(O::Cos, vals<T>({0, kPi, 1})), vals<T>({1, -1, 0.5403023058681398}), kRel<T>);
    check_near(eval1<T>(O::Tan, vals<T>({0, 1})), vals<T>({0, 1.5574077246549023}), kRel<T>);
    check_same(eval1<T>(O::Sin, vals<T>({kInf, kNaN, -0.0})), vals<T>({kNaN, kNaN, -0.0}));
    check_near(eval1<T>(O::Arcsin, vals<T>({0, 1, 0.5, 2})), vals<T>({0, kPi / 2, 0.5235987755982989, kNaN}),
               kRel<T>);
    check_near(eval1<T>(O::Arccos, vals<T>({1, 0, 0.5, -1})), vals<T>({0, kPi / 2, 1.0471975511965979, kPi}),
               kRel<T>);
    check_near(eval1<T>(O::Arctan, vals<T>({0, 1, kInf, 0.5})),
               vals<T>({0, kPi / 4, kPi / 2, 0.4636476090008061}), kRel<T>);
    // arctan2(y, x): the angle of (x, y), in (-pi, pi].
    check_near(eval2<T>(O::Arctan2, vals<T>({1, 0, -1, 0, 1, -1}), vals<T>({0, -1, 0, 1, 1, -1})),
               vals<T>({kPi / 2, kPi, -kPi / 2, 0, kPi / 4, -3 * kPi / 4}), kRel<T>);
    check_near(eval1<T>(O::Sinh, vals<T>({0, 1, 0.5})), vals<T>({0, 1.1752011936438014, 0.5210953054937474}),
               kRel<T>);
    check_near(eval1<T>(O::Cosh, vals<T>({0, 1, 0.5})), vals<T>({1, 1.5430806348152437, 1.1276259652063807}),
               kRel<T>);
    check_near(eval1<T>(O::Tanh, vals<T>({0, 1, kInf, -kInf})), vals<T>({0, 0.7615941559557649, 1, -1}),
               kRel<T>);
  }

  TEST_CASE_TEMPLATE("floor, ceil, trunc, rint", T, REFTEST_FLOATS) {
    const Vec<T> x = vals<T>({1.5, -1.5, 2, 2.5, -0.5, 0.4, kNaN, -kInf});
    check_same(eval1<T>(O::Floor, x), vals<T>({1, -2, 2, 2, -1, 0, kNaN, -kInf}));
    check_same(eval1<T>(O::Ceil, x), vals<T>({2, -1, 2, 3, -0.0, 1, kNaN, -kInf}));
    check_same(eval1<T>(O::Trunc, x), vals<T>({1, -1, 2, 2, -0.0, 0, kNaN, -kInf}));
    // rint rounds half to even.
    check_same(eval1<T>(O::Rint, x), vals<T>({2, -2, 2, 2, -0.0, 0, kNaN, -kInf}));
    check_same(eval1<T>(O::Rint, vals<T>({3.5, 4.5, -2.5, 2.6})), vals<T>({4, 4, -2, 3}));
  }

}  // TEST_SUITE
