// Floating-point exception flags (vm/fp_flags.hpp, Vm::take_fp_flags): the
// work a VM runs reports divide by zero, overflow, underflow and invalid as
// NumPy's errstate names them, on ref and cpu (one thread and a team of
// two, small and large arrays), with the operations that may have raised
// them; a NaN compared raises nothing (NumPy's comparisons clear it), and
// flags raised outside the VM are not its.
#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "include/arrvm/arrvm.hpp"
#include "tests/cpu_test_util.hpp"
#include "vm/fp_flags.hpp"

using arrvm::Array;
using arrvm::DType;
using arrvm::Vm;

namespace {

struct Taken {
  uint32_t flags;
  std::vector<std::string> ops;
};

Taken take(const Vm& vm) {
  Taken t;
  t.flags = vm.take_fp_flags(&t.ops);
  return t;
}

bool has(const std::vector<std::string>& ops, const std::string& name) {
  for (const std::string& o : ops) {
    if (o == name) return true;
  }
  return false;
}

}  // namespace

TEST_CASE("fp flags: divide, overflow, invalid and integer division on ref and cpu, eager and fused") {
  const cputest::TempDir dir;
  const double nan = std::numeric_limits<double>::quiet_NaN();
  for (const char* backend : {"ref", "cpu"}) {
    for (int64_t n : {int64_t{7}, int64_t{200000}}) {
      for (const char* eager : {"on", "off"}) {
        INFO(std::string(backend) << " n=" << n << " eager=" << std::string(eager));
        Vm vm({{"backend", backend}, {"eager", eager}, {"cache_dir", dir.path()}});
        take(vm);
        // log(0): divide by zero, named log.
        (void)arrvm::ufunc("log", {Array::zeros({n}, DType::Float64, vm)}).sum().item<double>();
        Taken t = take(vm);
        CHECK(t.flags == arrvm::kFpDivide);
        CHECK(has(t.ops, "log"));
        // exp(1000): overflow.
        (void)arrvm::ufunc("exp", {Array::full({n}, 1000.0, DType::Float64, vm)}).sum().item<double>();
        CHECK(take(vm).flags == arrvm::kFpOverflow);
        // sqrt(-1): invalid.
        (void)arrvm::ufunc("sqrt", {Array::full({n}, -1.0, DType::Float64, vm)}).sum().item<double>();
        CHECK(take(vm).flags == arrvm::kFpInvalid);
        // An integer division by zero: divide by zero (software), named floor_divide.
        (void)arrvm::ufunc("floor_divide",
                           {Array::arange(n, DType::Int64, vm), Array::zeros({n}, DType::Int64, vm)})
            .sum()
            .item<int64_t>();
        t = take(vm);
        CHECK(t.flags == arrvm::kFpDivide);
        CHECK(has(t.ops, "floor_divide"));
        // Nothing to report: ordinary arithmetic; NaN summed, compared, maxed.
        (void)(Array::arange(n, DType::Float64, vm) * 0.5).sum().item<double>();
        CHECK(take(vm).flags == 0);
        const Array x = Array::full({n}, nan, DType::Float64, vm);
        (void)x.sum().item<double>();
        (void)arrvm::ufunc("less", {x, 1.0}).sum().item<int64_t>();
        (void)x.max().item<double>();
        CHECK(take(vm).flags == 0);
        // Taken once: the flags are cleared.
        CHECK(take(vm).flags == 0);
      }
    }
  }
}

TEST_CASE("fp flags: the threads of a cpu team report theirs; the caller's own arithmetic is not the VM's") {
  const cputest::TempDir dir;
  Vm vm({{"backend", "cpu"}, {"eager", "off"}, {"cache_dir", dir.path()}});
  // Only the last element divides by zero: with a team of two, another
  // thread than the caller's computes it (without the team's flags taken,
  // this fails under OMP_NUM_THREADS=2 on a quiet machine).
  const int64_t n = 1 << 20;
  Array d = Array::ones({n}, DType::Float64, vm);
  d(n - 1) = 0.0;
  (void)(Array::ones({n}, DType::Float64, vm) / d).sum().item<double>();
  CHECK(take(vm).flags == arrvm::kFpDivide);
  // A flag the program raised itself before the VM ran anything.
  volatile double zero = 0.0;
  volatile double r = 1.0 / zero;
  (void)r;
  (void)(Array::arange(100, DType::Float64, vm) + 1.0).sum().item<double>();
  CHECK(take(vm).flags == 0);
}
