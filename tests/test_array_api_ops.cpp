// The C++ array API's elementwise operations: NumPy 2 type promotion (arrays
// and weak scalars), every operator and ufunc, broadcasting. Expected values
// are computed by hand.
#include <doctest/doctest.h>

#include <cmath>

#include "tests/array_api_util.hpp"

using namespace apitest;

namespace {

template <typename T>
Array host(std::vector<T> v, const Vm& vm) {
  return Array::from_host(v, vm);
}

}  // namespace

TEST_CASE("array_api: promotion between arrays") {
  Vm vm = ref_vm();
  const Array i32 = host<int32_t>({1, -2}, vm);
  const Array f32 = host<float>({0.5f, 0.25f}, vm);
  const Array r1 = i32 + f32;
  CHECK(r1.dtype() == DType::Float64);
  check_values<double>(r1, {1.5, -1.75});

  const Array u8 = host<uint8_t>({200, 1}, vm);
  const Array i8 = host<int8_t>({-100, -2}, vm);
  const Array r2 = u8 + i8;
  CHECK(r2.dtype() == DType::Int16);
  check_values<int16_t>(r2, {100, -1});

  const Array i64a = host<int64_t>({7, -7}, vm);
  const Array i64b = host<int64_t>({2, 2}, vm);
  const Array r3 = i64a / i64b;
  CHECK(r3.dtype() == DType::Float64);
  check_values<double>(r3, {3.5, -3.5});

  CHECK((i32 + i64a).dtype() == DType::Int64);
  CHECK((host<uint32_t>({1}, vm) + host<int32_t>({1}, vm)).dtype() == DType::Int64);
  CHECK((host<uint64_t>({1}, vm) + host<int64_t>({1}, vm)).dtype() == DType::Float64);
  CHECK((host<int16_t>({1}, vm) + host<float>({1}, vm)).dtype() == DType::Float32);
  CHECK((host<bool>({true}, vm) + host<int8_t>({1}, vm)).dtype() == DType::Int8);
  CHECK((host<int8_t>({1}, vm) / host<int8_t>({2}, vm)).dtype() == DType::Float64);
  CHECK((host<float>({1}, vm) / host<int8_t>({2}, vm)).dtype() == DType::Float32);
}

TEST_CASE("array_api: weak scalars (NumPy 2)") {
  Vm vm = ref_vm();
  const Array i8 = host<int8_t>({127, -1}, vm);
  const Array r1 = i8 + 1;
  CHECK(r1.dtype() == DType::Int8);
  check_values<int8_t>(r1, {-128, 0});  // wraps

  const Array r2 = host<int32_t>({1, 2}, vm) + 1.5;
  CHECK(r2.dtype() == DType::Float64);
  check_values<double>(r2, {2.5, 3.5});

  const Array r3 = host<float>({1.0f}, vm) + 0.1;
  CHECK(r3.dtype() == DType::Float32);
  check_values<float>(r3, {1.1f});

  const Array r4 = host<bool>({true, false}, vm) + 1;
  CHECK(r4.dtype() == DType::Int64);
  check_values<int64_t>(r4, {2, 1});

  const Array r5 = host<bool>({true, false}, vm) + true;
  CHECK(r5.dtype() == DType::Bool);  // NumPy: bool + bool is "or"
  check_values<bool>(r5, {true, true});

  const Array r6 = host<uint8_t>({200, 3}, vm) * 2;
  CHECK(r6.dtype() == DType::UInt8);
  check_values<uint8_t>(r6, {144, 6});

  const Array r7 = 10 - host<int16_t>({3, 12}, vm);
  CHECK(r7.dtype() == DType::Int16);
  check_values<int16_t>(r7, {7, -2});

  const Array r8 = 1 / host<int32_t>({2, 4}, vm);
  CHECK(r8.dtype() == DType::Float64);
  check_values<double>(r8, {0.5, 0.25});

  const Array r9 = arrvm::power(2, host<uint16_t>({3, 10}, vm));
  CHECK(r9.dtype() == DType::UInt16);
  check_values<uint16_t>(r9, {8, 1024});

  // An integer the array's dtype cannot hold: NumPy 2 raises, except that
  // comparisons are evaluated exactly.
  CHECK_THROWS_AS(host<int8_t>({1}, vm) + 1000, arrvm::Error);
  CHECK_THROWS_AS(host<uint8_t>({1}, vm) + (-1), arrvm::Error);
  check_values<bool>(host<int8_t>({-128, 127}, vm) < 1000, {true, true});
  check_values<bool>(host<uint8_t>({0, 255}, vm) == -1, {false, false});
  check_values<bool>(host<uint8_t>({0, 255}, vm) > -1, {true, true});
}

TEST_CASE("array_api: arithmetic operators") {
  Vm vm = ref_vm();
  const Array a = host<int64_t>({7, -7, 5, 0}, vm);
  const Array b = host<int64_t>({2, 2, -3, 3}, vm);
  check_values<int64_t>(a + b, {9, -5, 2, 3});
  check_values<int64_t>(a - b, {5, -9, 8, -3});
  check_values<int64_t>(a * b, {14, -14, -15, 0});
  check_close<double>(a / b, {3.5, -3.5, -5.0 / 3.0, 0.0});
  check_values<int64_t>(a % b, {1, 1, -1, 0});
  check_values<int64_t>(arrvm::mod(a, b), {1, 1, -1, 0});
  check_values<int64_t>(arrvm::floor_divide(a, b), {3, -4, -2, 0});
  check_values<int64_t>(arrvm::floor_divide(a, 0), {0, 0, 0, 0});
  check_values<int64_t>(-a, {-7, 7, -5, 0});
  check_values<int64_t>(arrvm::power(host<int64_t>({2, 3, -2}, vm), host<int64_t>({3, 2, 3}, vm)),
                        {8, 9, -8});
  // NumPy: an integer power with a negative integer exponent is a ValueError.
  CHECK_THROWS_WITH_AS(arrvm::power(a, -1), "Integers to negative integer powers are not allowed.",
                       arrvm::Error);
  check_values<int64_t>(arrvm::maximum(a, b), {7, 2, 5, 3});
  check_values<int64_t>(arrvm::minimum(a, b), {2, -7, -3, 0});

  const Array x = host<double>({7.0, -7.0, 1.0, -0.5}, vm);
  const Array y = host<double>({2.0, 2.0, 0.1, -2.0}, vm);
  check_values<double>(x % y, {1.0, 1.0, std::fmod(1.0, 0.1), -0.5});
  // NumPy: 1.0 // 0.1 == 9.0 (not floor(1.0 / 0.1) == 10.0); -0.5 // -2.0 == +0.0.
  const Array fd = arrvm::floor_divide(x, y);
  check_values<double>(fd, {3.0, -4.0, 9.0, 0.0});
  CHECK_FALSE(std::signbit(fd.to_vector<double>()[3]));
  check_values<double>(arrvm::floor_divide(x, 2.0), {3.0, -4.0, 0.0, -1.0});
  check_values<double>(arrvm::floor_divide(x, 0.0), {kInf, -kInf, kInf, -kInf});
  check_values<double>(arrvm::floor_divide(x, host<double>({0.0, 4.0, -1.0, 1.0}, vm)),
                       {kInf, -2.0, -1.0, -1.0});
  check_close<double>(arrvm::power(host<double>({4.0, 2.0}, vm), 0.5), {2.0, std::sqrt(2.0)});
  check_close<double>(arrvm::maximum(host<double>({1.0, kNaN}, vm), host<double>({2.0, 0.0}, vm)),
                      {2.0, kNaN});
  check_close<double>(arrvm::minimum(host<double>({1.0, kNaN}, vm), 0.5), {0.5, kNaN});
  check_values<double>(-host<double>({1.5, -2.0}, vm), {-1.5, 2.0});
  check_values<double>(arrvm::true_divide(host<double>({1.0}, vm), 4.0), {0.25});
  check_values<double>(arrvm::remainder(host<double>({-1.0}, vm), 3.0), {2.0});
}

TEST_CASE("array_api: bitwise, shift and logical operators") {
  Vm vm = ref_vm();
  const Array x = host<int32_t>({12, 10}, vm);
  const Array y = host<int32_t>({10, 6}, vm);
  check_values<int32_t>(x & y, {8, 2});
  check_values<int32_t>(x | y, {14, 14});
  check_values<int32_t>(x ^ y, {6, 12});
  check_values<int32_t>(~x, {-13, -11});
  check_values<int32_t>(x << 2, {48, 40});
  check_values<int32_t>(x >> 1, {6, 5});
  check_values<int32_t>(arrvm::left_shift(1, x), {4096, 1024});
  check_values<int32_t>(arrvm::right_shift(x, y), {0, 0});
  check_values<uint8_t>(~host<uint8_t>({0, 255}, vm), {255, 0});

  const Array p = host<bool>({true, true, false, false}, vm);
  const Array q = host<bool>({true, false, true, false}, vm);
  check_values<bool>(p & q, {true, false, false, false});
  check_values<bool>(p | q, {true, true, true, false});
  check_values<bool>(p ^ q, {false, true, true, false});
  check_values<bool>(~p, {false, false, true, true});
  check_values<bool>(p * q, {true, false, false, false});  // NumPy: bool * bool is "and"

  const Array i = host<int64_t>({1, 0, 2}, vm);
  const Array j = host<double>({1.0, 1.0, 0.0}, vm);
  CHECK(arrvm::logical_and(i, j).dtype() == DType::Bool);
  check_values<bool>(arrvm::logical_and(i, j), {true, false, false});
  check_values<bool>(arrvm::logical_or(i, j), {true, true, true});
  check_values<bool>(arrvm::logical_xor(i, j), {false, true, true});
  check_values<bool>(arrvm::logical_not(i), {false, true, false});
  check_values<bool>(arrvm::logical_and(i, true), {true, false, true});

  CHECK_THROWS_AS(host<double>({1.0}, vm) & host<double>({1.0}, vm), arrvm::Error);
  CHECK_THROWS_AS(~host<float>({1.0f}, vm), arrvm::Error);
  CHECK_THROWS_AS(host<double>({1.0}, vm) << 1, arrvm::Error);
  CHECK_THROWS_AS(p - q, arrvm::Error);
  CHECK_THROWS_AS(-p, arrvm::Error);
}

TEST_CASE("array_api: comparisons") {
  Vm vm = ref_vm();
  const Array c = host<int32_t>({1, 2, 3}, vm);
  const Array d = host<int32_t>({3, 2, 1}, vm);
  CHECK((c == d).dtype() == DType::Bool);
  check_values<bool>(c == d, {false, true, false});
  check_values<bool>(c != d, {true, false, true});
  check_values<bool>(c < d, {true, false, false});
  check_values<bool>(c <= d, {true, true, false});
  check_values<bool>(c > d, {false, false, true});
  check_values<bool>(c >= d, {false, true, true});
  check_values<bool>(c == 2, {false, true, false});
  check_values<bool>(2 < c, {false, false, true});
  check_values<bool>(c >= 1.5, {false, true, true});
  check_values<bool>(host<double>({kNaN, 1.0}, vm) == host<double>({kNaN, 1.0}, vm), {false, true});
  check_values<bool>(arrvm::not_equal(host<int8_t>({-1}, vm), host<uint8_t>({255}, vm)), {true});
  check_values<bool>(arrvm::less_equal(host<float>({0.5f}, vm), 0.5), {true});
  check_values<bool>(arrvm::greater_equal(c, d), {false, true, true});
  check_values<bool>(arrvm::greater(c, d), {false, false, true});
  check_values<bool>(arrvm::less(c, d), {true, false, false});
  check_values<bool>(arrvm::equal(c, d), {false, true, false});
}

TEST_CASE("array_api: unary ufuncs") {
  Vm vm = ref_vm();
  const double pi = 3.14159265358979323846;
  const Array zero = host<double>({0.0}, vm);
  const Array one = host<double>({1.0}, vm);
  check_close<double>(arrvm::exp(zero), {1.0});
  check_close<double>(arrvm::exp2(host<double>({3.0}, vm)), {8.0});
  check_close<double>(arrvm::expm1(zero), {0.0});
  check_close<double>(arrvm::log(host<double>({std::exp(1.0)}, vm)), {1.0});
  check_close<double>(arrvm::log2(host<double>({8.0}, vm)), {3.0});
  check_close<double>(arrvm::log10(host<double>({1000.0}, vm)), {3.0});
  check_close<double>(arrvm::log1p(zero), {0.0});
  check_close<double>(arrvm::sin(host<double>({pi / 2}, vm)), {1.0});
  check_close<double>(arrvm::cos(zero), {1.0});
  check_close<double>(arrvm::tan(host<double>({pi / 4}, vm)), {1.0});
  check_close<double>(arrvm::arcsin(one), {pi / 2});
  check_close<double>(arrvm::arccos(one), {0.0});
  check_close<double>(arrvm::arctan(one), {pi / 4});
  check_close<double>(arrvm::arctan2(one, host<double>({-1.0}, vm)), {3 * pi / 4});
  check_close<double>(arrvm::sinh(zero), {0.0});
  check_close<double>(arrvm::cosh(zero), {1.0});
  check_close<double>(arrvm::tanh(zero), {0.0});
  const Array h = host<double>({-1.5, 2.5, 3.5}, vm);
  check_values<double>(arrvm::floor(h), {-2.0, 2.0, 3.0});
  check_values<double>(arrvm::ceil(h), {-1.0, 3.0, 4.0});
  check_values<double>(arrvm::trunc(h), {-1.0, 2.0, 3.0});
  check_values<double>(arrvm::rint(h), {-2.0, 2.0, 4.0});
  check_close<float>(arrvm::sqrt(host<float>({4.0f, 2.0f}, vm)), {2.0, std::sqrt(2.0)});
  CHECK(arrvm::sqrt(host<float>({4.0f}, vm)).dtype() == DType::Float32);

  // Integers and bools go to float64 first.
  const Array s = arrvm::sqrt(Array::arange(4, DType::Int32, vm));
  CHECK(s.dtype() == DType::Float64);
  check_close<double>(s, {0.0, 1.0, std::sqrt(2.0), std::sqrt(3.0)});
  CHECK(arrvm::arctan2(Array::arange(2, DType::Int64, vm), 1).dtype() == DType::Float64);
  CHECK(arrvm::floor(host<bool>({true}, vm)).dtype() == DType::Float64);

  const Array special = host<double>({1.0, kNaN, kInf, -kInf}, vm);
  check_values<bool>(arrvm::isnan(special), {false, true, false, false});
  check_values<bool>(arrvm::isinf(special), {false, false, true, true});
  check_values<bool>(arrvm::isfinite(special), {true, false, false, false});
  const Array ints = host<int16_t>({-3, 4}, vm);
  CHECK(arrvm::isnan(ints).dtype() == DType::Bool);
  check_values<bool>(arrvm::isnan(ints), {false, false});
  check_values<bool>(arrvm::isfinite(ints), {true, true});

  check_values<int16_t>(arrvm::absolute(ints), {3, 4});
  check_values<int64_t>(arrvm::sign(host<int64_t>({-5, 0, 7}, vm)), {-1, 0, 1});
  check_values<double>(arrvm::sign(host<double>({-0.5, 0.0, 2.0}, vm)), {-1.0, 0.0, 1.0});
  check_values<int32_t>(arrvm::negative(host<int32_t>({5, -6}, vm)), {-5, 6});
  check_values<bool>(arrvm::absolute(host<bool>({true, false}, vm)), {true, false});
  check_values<bool>(arrvm::invert(host<bool>({true, false}, vm)), {false, true});
  CHECK_THROWS_AS(arrvm::sign(host<bool>({true}, vm)), arrvm::Error);
}

TEST_CASE("array_api: broadcasting") {
  Vm vm = ref_vm();
  const Array col = Array::arange(3, DType::Int64, vm).reshape({3, 1}) * 10;
  const Array row = Array::arange(4, DType::Int64, vm);
  const Array s = col + row;
  CHECK(s.shape() == Shape{3, 4});
  check_values<int64_t>(s, {0, 1, 2, 3, 10, 11, 12, 13, 20, 21, 22, 23});
  const Array z = Array::full({}, 5, DType::Int64, vm) - row;  // 0-d with 1-D
  CHECK(z.shape() == Shape{4});
  check_values<int64_t>(z, {5, 4, 3, 2});
  // A strided, reversed operand.
  check_values<int64_t>(row(Slice({}, {}, -1)) * row, {0, 2, 2, 0});
  CHECK_THROWS_AS(row + Array::arange(3, DType::Int64, vm), arrvm::Error);
  const Array e = Array::zeros({0, 3}, DType::Float64, vm) + Array::ones({3}, DType::Float64, vm);
  CHECK(e.shape() == Shape{0, 3});
  CHECK(e.to_vector<double>().empty());
}
