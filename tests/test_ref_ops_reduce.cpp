// Reductions and scans of the `ref` backend: along each axis of a 3-D array,
// into 0-d outputs, over strided/reversed/transposed inputs, over empty axes,
// on every dtype they take, with wrap-around and NaN propagation.
#include <doctest/doctest.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <random>

#include "backends/ref/scalar_ops.hpp"
#include "tests/ref_test_util.hpp"

using namespace reftest;  // tests only

namespace {

using O = Opcode;

// A [2,3,4] int64 array holding 0..23 in row-major order.
template <typename T>
BaseId iota_2x3x4(Vm& vm) {
  Vec<T> v;
  for (int i = 0; i < 24; ++i) v.push_back(static_cast<Host<T>>(i));
  return vm.array<T>(v);
}

const View kIn3 = view(0, 0, {2, 3, 4}, {12, 4, 1});

View in3(BaseId b) {
  View v = kIn3;
  v.base = b;
  return v;
}

// Reduces a [2,3,4] 0..23 array along `axis` with `op` into a contiguous output.
template <typename T>
Vec<T> reduce3(Opcode op, int axis) {
  Vm vm;
  const BaseId a = iota_2x3x4<T>(vm);
  const Dims out_shape = Dims{2, 3, 4}.without(axis);
  const BaseId o = vm.empty<T>(out_shape.product());
  vm.issue(make(op, arrvm::contiguous_view(o, dt<T>(), out_shape), {in(in3(a))}, axis));
  return vm.read<T>(o);
}

template <typename T>
Vec<T> scan3(Opcode op, int axis) {
  Vm vm;
  const BaseId a = iota_2x3x4<T>(vm);
  const BaseId o = vm.empty<T>(24);
  vm.issue(make(op, view(o, 0, {2, 3, 4}, {12, 4, 1}), {in(in3(a))}, axis));
  return vm.read<T>(o);
}

// A 1-D array reduced into a 0-d view.
template <typename T>
Vec<T> reduce1(Opcode op, const Vec<T>& x) {
  Vm vm;
  const auto n = static_cast<int64_t>(x.size());
  const BaseId a = vm.array<T>(x), o = vm.empty<T>(1);
  vm.issue(make(op, scalar_view(o, 0), {in(vec(a, n))}, 0));
  return vm.read<T>(o);
}

template <typename T>
Vec<T> scan1(Opcode op, const Vec<T>& x) {
  Vm vm;
  const auto n = static_cast<int64_t>(x.size());
  const BaseId a = vm.array<T>(x), o = vm.empty<T>(n);
  vm.issue(make(op, vec(o, n), {in(vec(a, n))}, 0));
  return vm.read<T>(o);
}

}  // namespace

TEST_SUITE("ref reductions") {
  TEST_CASE_TEMPLATE("add_reduce along each axis of a 3-D array", T, int64_t, double, int32_t) {
    // out[j][k] = a[0][j][k] + a[1][j][k] = 12 + 8j + 2k
    check_same(reduce3<T>(O::AddReduce, 0), vals<T>({12, 14, 16, 18, 20, 22, 24, 26, 28, 30, 32, 34}));
    // out[i][k] = sum_j (12i + 4j + k) = 36i + 12 + 3k
    check_same(reduce3<T>(O::AddReduce, 1), vals<T>({12, 15, 18, 21, 48, 51, 54, 57}));
    // out[i][j] = sum_k (12i + 4j + k) = 48i + 16j + 6
    check_same(reduce3<T>(O::AddReduce, 2), vals<T>({6, 22, 38, 54, 70, 86}));
  }

  TEST_CASE("minimum, maximum, multiply reductions along each axis of a 3-D array") {
    check_same(reduce3<int64_t>(O::MaximumReduce, 0),
               vals<int64_t>({12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23}));
    check_same(reduce3<int64_t>(O::MinimumReduce, 0), vals<int64_t>({0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}));
    check_same(reduce3<int64_t>(O::MinimumReduce, 1), vals<int64_t>({0, 1, 2, 3, 12, 13, 14, 15}));
    check_same(reduce3<int64_t>(O::MaximumReduce, 1), vals<int64_t>({8, 9, 10, 11, 20, 21, 22, 23}));
    check_same(reduce3<double>(O::MaximumReduce, 2), vals<double>({3, 7, 11, 15, 19, 23}));
    check_same(reduce3<double>(O::MinimumReduce, 2), vals<double>({0, 4, 8, 12, 16, 20}));
    // products: axis 0: j*k-free check on a few: (4j+k)(12+4j+k)
    check_same(reduce3<int64_t>(O::MultiplyReduce, 0),
               vals<int64_t>({0, 13, 28, 45, 64, 85, 108, 133, 160, 189, 220, 253}));
    // axis 1, i=0: k*(4+k)*(8+k); i=1: (12+k)(16+k)(20+k)
    check_same(reduce3<int64_t>(O::MultiplyReduce, 1),
               vals<int64_t>({0, 45, 120, 231, 3840, 4641, 5544, 6555}));
    // axis 2: r(r+1)(r+2)(r+3) for r = 0, 4, ..., 20
    check_same(reduce3<int64_t>(O::MultiplyReduce, 2), vals<int64_t>({0, 840, 7920, 32760, 93024, 212520}));
  }

  TEST_CASE("logical reductions along each axis") {
    Vm vm;
    const BaseId a = vm.array<bool>({1, 1, 0, 1, 1, 1});  // 2x3
    const BaseId b = vm.array<bool>({0, 0, 0, 0, 1, 0});
    const BaseId o3 = vm.empty<bool>(3), o2 = vm.empty<bool>(2), p3 = vm.empty<bool>(3),
                 p2 = vm.empty<bool>(2);
    const View a2 = view(a, 0, {2, 3}, {3, 1}), b2 = view(b, 0, {2, 3}, {3, 1});
    vm.issue(make(O::LogicalAndReduce, vec(o3, 3), {in(a2)}, 0));
    vm.issue(make(O::LogicalAndReduce, vec(o2, 2), {in(a2)}, 1));
    vm.issue(make(O::LogicalOrReduce, vec(p3, 3), {in(b2)}, 0));
    vm.issue(make(O::LogicalOrReduce, vec(p2, 2), {in(b2)}, 1));
    check_same(vm.read<bool>(o3), vals<bool>({1, 1, 0}));
    check_same(vm.read<bool>(o2), vals<bool>({0, 1}));
    check_same(vm.read<bool>(p3), vals<bool>({0, 1, 0}));
    check_same(vm.read<bool>(p2), vals<bool>({0, 1}));
  }

  TEST_CASE_TEMPLATE("1-D reductions into a 0-d view on every arithmetic dtype", T, REFTEST_ARITH) {
    check_same(reduce1<T>(O::AddReduce, vals<T>({1, 2, 3, 4})), vals<T>({10}));
    check_same(reduce1<T>(O::MultiplyReduce, vals<T>({1, 2, 3, 4})), vals<T>({24}));
    check_same(reduce1<T>(O::MinimumReduce, vals<T>({3, 1, 2})), vals<T>({1}));
    check_same(reduce1<T>(O::MaximumReduce, vals<T>({3, 1, 2})), vals<T>({3}));
    check_same(reduce1<T>(O::MaximumReduce, Vec<T>{lo<T>(), hi<T>(), 0}), Vec<T>{hi<T>()});
    check_same(reduce1<T>(O::MinimumReduce, Vec<T>{0, hi<T>(), lo<T>()}), Vec<T>{lo<T>()});
    check_same(reduce1<T>(O::AddReduce, vals<T>({5})), vals<T>({5}));
  }

  TEST_CASE("1-D logical reductions into a 0-d view") {
    check_same(reduce1<bool>(O::LogicalAndReduce, vals<bool>({1, 1, 1})), vals<bool>({1}));
    check_same(reduce1<bool>(O::LogicalAndReduce, vals<bool>({1, 0, 1})), vals<bool>({0}));
    check_same(reduce1<bool>(O::LogicalOrReduce, vals<bool>({0, 0, 0})), vals<bool>({0}));
    check_same(reduce1<bool>(O::LogicalOrReduce, vals<bool>({0, 0, 1})), vals<bool>({1}));
  }

  TEST_CASE("reductions wrap and propagate NaN") {
    check_same(reduce1<int8_t>(O::AddReduce, {100, 100, 100}), Vec<int8_t>{44});
    check_same(reduce1<uint8_t>(O::MultiplyReduce, {16, 16, 3}), Vec<uint8_t>{0});
    check_same(reduce1<int64_t>(O::AddReduce, {hi<int64_t>(), 1}), Vec<int64_t>{lo<int64_t>()});
    check_same(reduce1<double>(O::MaximumReduce, {1, kNaN, 3}), Vec<double>{kNaN});
    check_same(reduce1<double>(O::MinimumReduce, {1, kNaN, 3}), Vec<double>{kNaN});
    check_same(reduce1<float>(O::MaximumReduce, {1, 3, NAN}), Vec<float>{NAN});
    check_same(reduce1<float>(O::MinimumReduce, {NAN, -1, 3}), Vec<float>{NAN});
    check_same(reduce1<double>(O::AddReduce, {1, kInf, -kInf}), Vec<double>{kNaN});
    check_same(reduce1<double>(O::AddReduce, {-0.0}), Vec<double>{-0.0});
    // Along a leading axis (the output accumulates a row at a time): the same.
    Vm vm;
    const BaseId a = vm.array<double>({1, -0.0, kNaN, -0.0, 3, 5});  // 3x2
    const BaseId o = vm.empty<double>(6);
    vm.issue(make(O::MaximumReduce, view(o, 0, {2}, {1}), {in(view(a, 0, {3, 2}, {2, 1}))}, 0));
    vm.issue(make(O::AddReduce, view(o, 2, {2}, {1}), {in(view(a, 0, {3, 2}, {2, 1}))}, 0));
    vm.issue(make(O::AddReduce, view(o, 4, {2}, {1}), {in(view(a, 0, {2, 2}, {2, 1}))}, 0));
    check_same(vm.read<double>(o), Vec<double>{kNaN, 5, kNaN, 5, kNaN, -0.0});
    const BaseId b = vm.array<int8_t>({100, 1, 100, 2, 100, 3});  // 3x2
    const BaseId p = vm.empty<int8_t>(2);
    vm.issue(make(O::AddReduce, view(p, 0, {2}, {1}), {in(view(b, 0, {3, 2}, {2, 1}))}, 0));
    check_same(vm.read<int8_t>(p), Vec<int8_t>{44, 6});
  }

  TEST_CASE("reductions over empty axes give the identity") {
    Vm vm;
    const BaseId a = vm.array<int32_t>({1});
    const BaseId o = vm.array<int32_t>({7, 7, 7, 7, 7});
    vm.issue(make(O::AddReduce, view(o, 0, {2}, {1}), {in(view(a, 0, {2, 0}, {0, 1}))}, 1));
    vm.issue(make(O::MultiplyReduce, view(o, 2, {3}, {1}), {in(view(a, 0, {0, 3}, {1, 0}))}, 0));
    check_same(vm.read<int32_t>(o), Vec<int32_t>{0, 0, 1, 1, 1});
    const BaseId b = vm.array<bool>({1});
    const BaseId p = vm.array<bool>({0, 1});
    vm.issue(make(O::LogicalAndReduce, scalar_view(p, 0), {in(view(b, 0, {0}, {1}))}, 0));
    vm.issue(make(O::LogicalOrReduce, scalar_view(p, 1), {in(view(b, 0, {0}, {1}))}, 0));
    check_same(vm.read<bool>(p), vals<bool>({1, 0}));
    // An empty output: nothing to do.
    vm.issue(make(O::AddReduce, view(o, 0, {0}, {1}), {in(view(a, 0, {0, 4}, {1, 0}))}, 1));
    check_same(vm.read<int32_t>(o), Vec<int32_t>{0, 0, 1, 1, 1});
  }

  TEST_CASE("reductions of transposed, reversed and strided inputs into strided outputs") {
    Vm vm;
    const BaseId a = vm.array<float>({1, 2, 3, 4, 5, 6});  // 2x3
    const BaseId o = vm.empty<float>(5);
    const View at = view(a, 0, {3, 2}, {1, 3});                       // transposed: [3,2]
    vm.issue(make(O::AddReduce, view(o, 0, {3}, {2}), {in(at)}, 1));  // column sums
    check_same(vm.read<float>(o), Vec<float>{5, 0, 7, 0, 9});
    vm.issue(make(O::AddReduce, view(o, 4, {2}, {-1}), {in(at)}, 0));  // row sums, written reversed
    check_same(vm.read<float>(o), Vec<float>{5, 0, 7, 15, 6});
    vm.issue(make(O::MaximumReduce, scalar_view(o, 1), {in(view(a, 5, {3}, {-2}))}, 0));  // a[5], a[3], a[1]
    check_same(vm.read<float>(o), Vec<float>{5, 6, 7, 15, 6});
    // A broadcast (stride 0) input axis.
    vm.issue(make(O::AddReduce, view(o, 0, {2}, {1}), {in(view(a, 1, {2, 4}, {3, 0}))}, 1));
    check_same(vm.read<float>(o), Vec<float>{8, 20, 7, 15, 6});
  }

  TEST_CASE_TEMPLATE("accumulate along each axis of a 3-D array", T, int64_t, double, int16_t) {
    check_same(scan3<T>(O::AddAccumulate, 0), vals<T>({0,  1,  2,  3,  4,  5,  6,  7,  8,  9,  10, 11,
                                                       12, 14, 16, 18, 20, 22, 24, 26, 28, 30, 32, 34}));
    check_same(scan3<T>(O::AddAccumulate, 1), vals<T>({0,  1,  2,  3,  4,  6,  8,  10, 12, 15, 18, 21,
                                                       12, 13, 14, 15, 28, 30, 32, 34, 48, 51, 54, 57}));
    check_same(scan3<T>(O::AddAccumulate, 2), vals<T>({0,  1,  3,  6,  4,  9,  15, 22, 8,  17, 27, 38,
                                                       12, 25, 39, 54, 16, 33, 51, 70, 20, 41, 63, 86}));
    // products along axis 0: a[0], then a[0] * a[1] = x(12 + x) for x = 0..11
    check_same(
        scan3<T>(O::MultiplyAccumulate, 0),
        vals<T>({0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 0, 13, 28, 45, 64, 85, 108, 133, 160, 189, 220, 253}));
  }

  TEST_CASE_TEMPLATE("1-D accumulates on every arithmetic dtype", T, REFTEST_ARITH) {
    check_same(scan1<T>(O::AddAccumulate, vals<T>({1, 2, 3, 4})), vals<T>({1, 3, 6, 10}));
    check_same(scan1<T>(O::MultiplyAccumulate, vals<T>({1, 2, 3, 4})), vals<T>({1, 2, 6, 24}));
    check_same(scan1<T>(O::AddAccumulate, vals<T>({9})), vals<T>({9}));
    // The running minimum and maximum (NumPy's minimum.accumulate, maximum.accumulate).
    check_same(scan1<T>(O::MinimumAccumulate, vals<T>({5, 7, 2, 3, 1})), vals<T>({5, 5, 2, 2, 1}));
    check_same(scan1<T>(O::MaximumAccumulate, vals<T>({5, 7, 2, 9, 1})), vals<T>({5, 7, 7, 9, 9}));
  }

  TEST_CASE("accumulates: wrap, NaN, reversed and strided views, empty") {
    check_same(scan1<int8_t>(O::AddAccumulate, {100, 100, -128}), Vec<int8_t>{100, -56, 72});
    check_same(scan1<uint16_t>(O::MultiplyAccumulate, {256, 256, 5}), Vec<uint16_t>{256, 0, 0});
    check_same(scan1<double>(O::AddAccumulate, {1, kNaN, 3}), Vec<double>{1, kNaN, kNaN});
    check_same(scan1<double>(O::MinimumAccumulate, {4, kNaN, 3}), Vec<double>{4, kNaN, kNaN});
    check_same(scan1<double>(O::MaximumAccumulate, {4, 5, kNaN, 9}), Vec<double>{4, 5, kNaN, kNaN});
    Vm vm;
    const BaseId a = vm.array<int32_t>({1, 2, 3, 4});
    const BaseId o = vm.empty<int32_t>(8);
    vm.issue(make(O::AddAccumulate, view(o, 0, {4}, {2}), {in(view(a, 3, {4}, {-1}))}, 0));  // of 4,3,2,1
    check_same(vm.read<int32_t>(o), Vec<int32_t>{4, 0, 7, 0, 9, 0, 10, 0});
    vm.issue(make(O::MultiplyAccumulate, view(o, 7, {4}, {-2}), {in(vec(a, 4))}, 0));  // written reversed
    check_same(vm.read<int32_t>(o), Vec<int32_t>{4, 24, 7, 6, 9, 2, 10, 1});
    vm.issue(make(O::AddAccumulate, view(o, 0, {2, 0}, {1, 1}), {in(view(a, 0, {2, 0}, {1, 1}))}, 1));
    vm.issue(make(O::AddAccumulate, view(o, 0, {0, 2}, {1, 1}), {in(view(a, 0, {0, 2}, {1, 1}))}, 1));
    check_same(vm.read<int32_t>(o), Vec<int32_t>{4, 24, 7, 6, 9, 2, 10, 1});
  }

  // float_extreme (the contiguous min/max reduction's four chains) against
  // the one-chain fold it replaces, bit for bit: NaNs of several payloads
  // and signs (the first wins), zeros of both signs (the first of the
  // extreme's wins), every length 1..40.
  TEST_CASE_TEMPLATE("min/max of a contiguous run: the fold's bits", T, float, double) {
    std::mt19937 gen(7);
    const T qnan = std::numeric_limits<T>::quiet_NaN();
    const T pool[] = {T(-2), T(-1), T(-0.0), T(0.0), T(1), T(2), qnan, -qnan, std::nextafter(T(1), T(2))};
    auto bits = [](T v) {
      uint64_t b = 0;
      std::memcpy(&b, &v, sizeof v);
      return b;
    };
    int checked = 0, nans = 0, zeros = 0;
    for (int n = 1; n <= 40; ++n) {
      for (int trial = 0; trial < 200; ++trial) {
        std::vector<T> x(static_cast<std::size_t>(n));
        // (NaNs in a fifth of the trials: else nearly every run would hold one.)
        const int choices = trial % 5 == 0 ? 9 : 6;
        for (T& v : x) {
          v = pool[std::uniform_int_distribution<int>(0, choices - 1)(gen)];
          if (v != v && std::uniform_int_distribution<int>(0, 1)(gen)) {  // another payload
            uint64_t b = bits(v) | 1;
            std::memcpy(&v, &b, sizeof v);
          }
        }
        T fold_max = x[0], fold_min = x[0];
        for (int i = 1; i < n; ++i) {
          fold_max = arrvm::ref::Reducer<O::MaximumReduce>::combine(fold_max, x[static_cast<std::size_t>(i)]);
          fold_min = arrvm::ref::Reducer<O::MinimumReduce>::combine(fold_min, x[static_cast<std::size_t>(i)]);
        }
        CHECK(bits(arrvm::ref::float_extreme<true>(x.data(), n)) == bits(fold_max));
        CHECK(bits(arrvm::ref::float_extreme<false>(x.data(), n)) == bits(fold_min));
        ++checked;
        nans += fold_max != fold_max;
        zeros += (fold_max == T(0)) + (fold_min == T(0));
      }
    }
    CHECK(checked == 8000);
    CHECK(nans > 500);  // (the cases the four chains could get wrong occur)
    CHECK(zeros > 400);
  }

  TEST_CASE("min/max reductions keep the first zero and the first NaN") {
    const double z = -0.0;
    CHECK(std::signbit(reduce1<double>(O::MaximumReduce, {-1, z, 0.0, -3, 0.0, z, -2})[0]));
    CHECK(!std::signbit(reduce1<double>(O::MaximumReduce, {-1, 0.0, z, -3, 0.0, z, -2})[0]));
    CHECK(std::signbit(reduce1<double>(O::MinimumReduce, {1, z, 0.0, 3, 0.0, z, 2})[0]));
    check_same(reduce1<double>(O::MaximumReduce, {1, 2, 3, 4, 5, 6, kNaN, 8, 9}), Vec<double>{kNaN});
  }

}  // TEST_SUITE
