// A float converted to an integer and back in one kernel (the integer a
// contracted temporary: `x.astype(np.int64).astype(np.float64)`) is +0
// for x in (-1, 0], as in NumPy and ref: gcc, under the kernels'
// -fno-trapping-math, folds `(double)(int64_t)x` into trunc(x), which is
// -0 there (found by the random converting copy-backs of
// test_copy_back_convert.cpp). Every float dtype through every integer
// dtype, on cpu and opencl against ref, bytes compared, and the sign of
// each zero checked by hand.
#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "arrvm/arrvm.hpp"
#include "tests/cpu_test_util.hpp"

using namespace arrvm;  // tests only

namespace {

std::vector<double> chain(const std::string& backend, DType f, DType i, const std::vector<double>& x,
                          const std::string& dir) {
  const Vm vm({{"backend", backend}, {"fuser", "greedy"}, {"cache_dir", dir}});
  const Array a = Array::from_host(x, vm).astype(f);
  return (a * 1.0).astype(i).astype(f).astype(DType::Float64).to_vector<double>();
}

}  // namespace

TEST_CASE("float -> integer -> float in one kernel keeps +0 for (-1, 0], on every backend") {
  const cputest::TempDir dir;
  // Long enough for vectorized loops; values the integer dtypes all hold.
  const double pattern[] = {-0.75, -0.25, -0.0, 0.0, 0.25, 1.5, -1.5, 2.75, -2.75, 100.5};
  std::vector<double> x;
  for (int k = 0; k < 400; ++k) x.push_back(pattern[k % 10]);
  for (DType f : {DType::Float64, DType::Float32}) {
    for (DType i : {DType::Int8, DType::Int16, DType::Int32, DType::Int64, DType::UInt8, DType::UInt32}) {
      const std::vector<double> want = chain("ref", f, i, x, dir.path());
      for (std::size_t k = 0; k < want.size(); ++k) {
        const double p = pattern[k % 10];
        if (p > -1 && p < 1) {  // truncates to 0: +0
          CAPTURE(k);
          CHECK(want[k] == 0.0);
          CHECK(!std::signbit(want[k]));
        }
      }
      for (const char* backend : {"cpu", "opencl"}) {
        CAPTURE(std::string(dtype_name(f)));
        CAPTURE(std::string(dtype_name(i)));
        CAPTURE(std::string(backend));
        const std::vector<double> got = chain(backend, f, i, x, dir.path());
        REQUIRE(got.size() == want.size());
        CHECK(std::memcmp(got.data(), want.data(), got.size() * sizeof(double)) == 0);
      }
    }
  }
}
