// operator<< on arrays and item<T>() conversions. Every expected string is
// NumPy 1.24's str() of the same array (printed with /usr/bin/python3 when
// the test was written).
#include <doctest/doctest.h>

#include <sstream>
#include <string>

#include "tests/array_api_util.hpp"

using namespace apitest;

namespace {
std::string text(const Array& a) {
  std::ostringstream s;
  s << a;
  return s.str();
}
}  // namespace

TEST_CASE("array_print: like NumPy's str()") {
  Vm vm = ref_vm();
  const auto f64 = [&](std::vector<double> v) { return Array::from_host(v, vm); };
  CHECK(text(Array::arange(6, DType::Float64, vm).reshape({2, 3})) == "[[0. 1. 2.]\n [3. 4. 5.]]");
  CHECK(text(f64({0.1, 1.5, 2})) == "[0.1 1.5 2. ]");
  CHECK(text(Array::arange(24, DType::Int32, vm).reshape({2, 3, 4})) ==
        "[[[ 0  1  2  3]\n  [ 4  5  6  7]\n  [ 8  9 10 11]]\n\n [[12 13 14 15]\n  [16 17 18 19]\n  [20 21 22 "
        "23]]]");
  CHECK(text(Array::from_host(std::vector<bool>{true, false, true}, vm)) == "[ True False  True]");
  CHECK(text(f64({1e20, 1.0})) == "[1.e+20 1.e+00]");
  CHECK(text(f64({1e-5, 1.0})) == "[1.e-05 1.e+00]");
  CHECK(text(f64({123456789.0, 0.5})) == "[1.23456789e+08 5.00000000e-01]");
  CHECK(text(Array::arange(2000, DType::Int64, vm)) == "[   0    1    2 ... 1997 1998 1999]");
  CHECK(text(f64({kNaN, -kInf, 1.25})) == "[ nan -inf 1.25]");
  CHECK(text(f64({-1.5, 2.0})) == "[-1.5  2. ]");
  CHECK(text(Array::arange(40, DType::Float64, vm) / 3.0) ==
        "[ 0.          0.33333333  0.66666667  1.          1.33333333  1.66666667\n"
        "  2.          2.33333333  2.66666667  3.          3.33333333  3.66666667\n"
        "  4.          4.33333333  4.66666667  5.          5.33333333  5.66666667\n"
        "  6.          6.33333333  6.66666667  7.          7.33333333  7.66666667\n"
        "  8.          8.33333333  8.66666667  9.          9.33333333  9.66666667\n"
        " 10.         10.33333333 10.66666667 11.         11.33333333 11.66666667\n"
        " 12.         12.33333333 12.66666667 13.        ]");
  CHECK(text((Array::arange(3, DType::Float32, vm) + 1) / 3.0f) == "[0.33333334 0.6666667  1.        ]");
  CHECK(text(Array::arange(2000, DType::Float64, vm).reshape({40, 50})) ==
        "[[0.000e+00 1.000e+00 2.000e+00 ... 4.700e+01 4.800e+01 4.900e+01]\n"
        " [5.000e+01 5.100e+01 5.200e+01 ... 9.700e+01 9.800e+01 9.900e+01]\n"
        " [1.000e+02 1.010e+02 1.020e+02 ... 1.470e+02 1.480e+02 1.490e+02]\n"
        " ...\n"
        " [1.850e+03 1.851e+03 1.852e+03 ... 1.897e+03 1.898e+03 1.899e+03]\n"
        " [1.900e+03 1.901e+03 1.902e+03 ... 1.947e+03 1.948e+03 1.949e+03]\n"
        " [1.950e+03 1.951e+03 1.952e+03 ... 1.997e+03 1.998e+03 1.999e+03]]");
  CHECK(text(Array::from_host(std::vector<uint8_t>{1, 200}, vm)) == "[  1 200]");
  // A strided view prints its own elements.
  CHECK(text(Array::arange(10, DType::Int64, vm)(Slice({}, {}, -3))) == "[9 6 3 0]");
  // 0-d arrays print as NumPy scalars.
  CHECK(text(Array::full({}, 3.5, DType::Float64, vm)) == "3.5");
  CHECK(text(Array::full({}, 2.0, DType::Float64, vm)) == "2.0");
  CHECK(text(Array::full({}, 1e20, DType::Float64, vm)) == "1e+20");
  CHECK(text(Array::full({}, 7, DType::Int64, vm)) == "7");
  CHECK(text(Array::full({}, true, DType::Bool, vm)) == "True");
  CHECK(text(Array::zeros({2, 0}, DType::Float64, vm)) == "[]");
  CHECK(text(Array()) == "Array(empty handle)");
}

TEST_CASE("array_print: item<T>() converts like Python's int()/float()/bool() of NumPy's item()") {
  Vm vm = ref_vm();
  CHECK(Array::full({}, 2.7, DType::Float64, vm).item<int>() == 2);
  CHECK(Array::full({}, -2.7, DType::Float64, vm).item<int64_t>() == -2);
  CHECK(Array::full({}, 7, DType::Int32, vm).item<double>() == 7.0);
  CHECK(Array::full({}, 0.0, DType::Float64, vm).item<bool>() == false);
  CHECK(Array::full({}, 3, DType::Int8, vm).item<bool>() == true);
  CHECK(Array::full({}, true, DType::Bool, vm).item<int>() == 1);
  CHECK(Array::full({1}, 1.5f, DType::Float32, vm).item<double>() == 1.5);
  CHECK(Array::full({}, 300, DType::Int64, vm).item<int16_t>() == 300);
  CHECK_THROWS_AS(Array::full({}, 300, DType::Int64, vm).item<uint8_t>(), arrvm::Error);  // out of range
  CHECK_THROWS_AS(Array::full({}, -1, DType::Int64, vm).item<uint32_t>(), arrvm::Error);
  CHECK_THROWS_AS(Array::full({}, kNaN, DType::Float64, vm).item<int>(), arrvm::Error);
  CHECK_THROWS_AS(Array::full({}, kInf, DType::Float64, vm).item<int64_t>(), arrvm::Error);
  CHECK_THROWS_AS(Array::arange(2, DType::Int64, vm).item<int>(), arrvm::Error);  // 2 elements
}
