// Reductions and scans on the cpu backend (generated sweep kernels): hand-
// computed values on a large 2-D array (parallel outer loop), along either
// axis and through a transposed view, into a 0-d view, over an empty axis,
// and of a never-written base; each also equal to ref.
#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "backends/cpu/cpu_backend.hpp"
#include "engine/runtime.hpp"
#include "tests/cpu_test_util.hpp"
#include "tests/reduce_program.hpp"
#include "vm/error.hpp"

using namespace arrvm;  // tests only

namespace {

View view(BaseId b, DType t, int64_t off, Dims shape, Dims stride) {
  return reduceprog::typed_view(b, t, off, shape, stride);
}

Instruction make(Opcode op, const View& out, const View& in, int axis) {
  return reduceprog::unary(op, out, in, axis);
}

// reduceprog::run on `backend`; *launched: cpu kernels launched.
std::vector<std::vector<int64_t>> run(const std::string& backend, uint64_t* launched) {
  cputest::TempDir dir;
  Runtime rt(cputest::config(backend, dir.path()));
  std::vector<std::vector<int64_t>> r = reduceprog::run(rt);
  if (backend == "cpu") *launched = cpu_backend_stats(rt.backend()).kernels_launched;
  return r;
}

}  // namespace

TEST_CASE("cpu: reductions and scans equal hand-computed values and ref") {
  uint64_t launched = 0;
  const auto got = run("cpu", &launched);
  uint64_t unused = 0;
  CHECK(got == run("ref", &unused));
  // Seven reductions and scans in six kernels: the row sums and the row-wise
  // cumsum share x's iteration shape and axis 1, and greedy fuses them.
  CHECK(launched == 6);
  reduceprog::check_hand_values(got);
}

namespace {

// Full reduction of n elements of dtype t (data given as bytes) on `backend`.
std::vector<uint8_t> full_reduce(const std::string& backend, Opcode op, DType t,
                                 const std::vector<uint8_t>& data) {
  cputest::TempDir dir;
  Runtime rt(cputest::config(backend, dir.path()));
  const int64_t n = static_cast<int64_t>(data.size() / dtype_size(t));
  const BaseId x = rt.new_base(t, n);
  rt.write(x, data.data(), data.size());
  const BaseId o = rt.new_base(t, 1);
  rt.issue(make(op, view(o, t, 0, {}, {}), view(x, t, 0, {n}, {1}), 0));
  std::vector<uint8_t> r(dtype_size(t));
  rt.read(o, r.data(), r.size());
  return r;
}

template <typename T>
std::vector<uint8_t> bytes_of(const std::vector<T>& v) {
  std::vector<uint8_t> b(v.size() * sizeof(T));
  std::memcpy(b.data(), v.data(), b.size());
  return b;
}

template <typename T>
T value_of(const std::vector<uint8_t>& b) {
  T v;
  std::memcpy(&v, b.data(), sizeof(T));
  return v;
}

}  // namespace

TEST_CASE("cpu: parallel full reductions (OpenMP reduction clause)") {
  constexpr int64_t n = 100000;
  std::vector<double> d(n);
  std::vector<float> f(n);
  std::vector<int32_t> i32(n);
  std::vector<uint8_t> all_true(n, 1), one_false(n, 1);
  one_false[n - 7] = 0;
  for (int64_t k = 0; k < n; ++k) {
    d[k] = 1.0 / static_cast<double>(k + 1);
    f[k] = static_cast<float>(k % 17) * 0.25f;
    i32[k] = static_cast<int32_t>((k * 7919) % 100003) - 50000;
  }
  i32[n / 2] = -2000000000;
  i32[n / 3] = 2000000000;
  // Exact results by hand: the int sums wrap in 32 bits.
  int64_t s = 0;
  for (int32_t v : i32) s += v;
  SUBCASE("float64 sum within 1e-12") {
    const double got = value_of<double>(full_reduce("cpu", Opcode::AddReduce, DType::Float64, bytes_of(d)));
    const double want = value_of<double>(full_reduce("ref", Opcode::AddReduce, DType::Float64, bytes_of(d)));
    CHECK(std::abs(got - want) <= 1e-12 * std::abs(want));
    CHECK(std::abs(want - 12.090146129863428) < 1e-9);  // H(100000)
  }
  SUBCASE("float32 sum within 1e-5") {
    const float got = value_of<float>(full_reduce("cpu", Opcode::AddReduce, DType::Float32, bytes_of(f)));
    const float want = value_of<float>(full_reduce("ref", Opcode::AddReduce, DType::Float32, bytes_of(f)));
    CHECK(std::abs(got - want) <= 1e-5f * std::abs(want));
  }
  SUBCASE("int32 sum, min, max exact") {
    CHECK(value_of<int32_t>(full_reduce("cpu", Opcode::AddReduce, DType::Int32, bytes_of(i32))) ==
          static_cast<int32_t>(static_cast<uint32_t>(static_cast<uint64_t>(s))));
    CHECK(value_of<int32_t>(full_reduce("cpu", Opcode::MinimumReduce, DType::Int32, bytes_of(i32))) ==
          -2000000000);
    CHECK(value_of<int32_t>(full_reduce("cpu", Opcode::MaximumReduce, DType::Int32, bytes_of(i32))) ==
          2000000000);
  }
  SUBCASE("bool and/or exact") {
    CHECK(full_reduce("cpu", Opcode::LogicalAndReduce, DType::Bool, all_true)[0] == 1);
    CHECK(full_reduce("cpu", Opcode::LogicalAndReduce, DType::Bool, one_false)[0] == 0);
    std::vector<uint8_t> one_true(n, 0);
    one_true[12345] = 1;
    CHECK(full_reduce("cpu", Opcode::LogicalOrReduce, DType::Bool, one_true)[0] == 1);
    CHECK(full_reduce("cpu", Opcode::LogicalOrReduce, DType::Bool, std::vector<uint8_t>(n, 0))[0] == 0);
  }
  SUBCASE("float max propagates NaN (sequential sweep, exact)") {
    std::vector<double> v = d;
    v[n - 3] = std::numeric_limits<double>::quiet_NaN();
    CHECK(
        std::isnan(value_of<double>(full_reduce("cpu", Opcode::MaximumReduce, DType::Float64, bytes_of(v)))));
    CHECK(value_of<double>(full_reduce("cpu", Opcode::MaximumReduce, DType::Float64, bytes_of(d))) == 1.0);
  }
}
