// Array::adopt and Array::view_of: arrays on the caller's memory, not
// copied, on the host backends (ref and cpu); values checked by hand.
#include <doctest/doctest.h>

#include <cstdint>
#include <vector>

#include "tests/array_api_util.hpp"

using namespace apitest;

namespace {
Vm host_vm(const char* backend) {
  return Vm({{"backend", backend}, {"fuser", "greedy"}, {"cache", "memory"}});
}
}  // namespace

TEST_CASE("array_adopt: a view of user memory reads it and writes back into it") {
  for (const char* backend : {"ref", "cpu"}) {
    CAPTURE(backend);
    Vm vm = host_vm(backend);
    double buf[6] = {0, 1, 2, 3, 4, 5};
    {
      Array a = Array::view_of(buf, {2, 3}, vm);
      CHECK(a.shape() == Shape{2, 3});
      CHECK((a * 2.0).sum().item<double>() == 30.0);  // reads the caller's numbers
      a += 1.0;                                       // in place: into buf
      a(1, 0) = Array::full({}, -7.0, DType::Float64, vm);
      vm.flush();
      CHECK(buf[0] == 1.0);
      CHECK(buf[2] == 3.0);
      CHECK(buf[3] == -7.0);
      CHECK(buf[5] == 6.0);
      // The caller's writes (with nothing pending) are seen by what follows.
      buf[5] = 100.0;
      CHECK(a.max().item<double>() == 100.0);
    }
    vm.flush();
    CHECK(buf[5] == 100.0);  // no deleter: the memory stays the caller's
  }
}

TEST_CASE("array_adopt: the deleter runs once, when the last array on the memory is freed") {
  for (const char* backend : {"ref", "cpu"}) {
    CAPTURE(backend);
    Vm vm = host_vm(backend);
    int deleted = 0;
    auto* p = new int32_t[4]{1, 2, 3, 4};
    {
      const Array a = Array::adopt(
          p, {4}, DType::Int32,
          [&](void* q) {
            ++deleted;
            delete[] static_cast<int32_t*>(q);
          },
          vm);
      const Array b = a(Slice(1, {}));  // a view shares the base
      CHECK(b.sum().item<int64_t>() == 9);
      CHECK(deleted == 0);
    }
    vm.flush();  // runs the free
    CHECK(deleted == 1);
  }
}

TEST_CASE("array_adopt: bools are normalized, sizes and null data are checked") {
  Vm vm = host_vm("ref");
  uint8_t flags[3] = {0, 7, 1};
  const Array f = Array::adopt(flags, {3}, DType::Bool, nullptr, vm);
  CHECK(f.sum().item<int64_t>() == 2);
  CHECK(flags[1] == 1);
  CHECK_THROWS_AS(Array::adopt(nullptr, {3}, DType::Float64, nullptr, vm), arrvm::Error);
  CHECK(Array::adopt(nullptr, {0}, DType::Float64, nullptr, vm).size() == 0);
}

TEST_CASE("array_adopt: move_base_to_host moves a computed base into the caller's memory") {
  for (const char* backend : {"ref", "cpu", "opencl"}) {
    CAPTURE(backend);
    const bool host = std::string(backend) != "opencl";
    Vm vm = host_vm(backend);
    auto* mem = new double[4];
    int deleted = 0;
    {
      Array a = Array::arange(4, DType::Float64, vm) * 2.0;  // pending
      Array row = a(Slice(1, 3));
      CHECK(a.move_base_to_host(mem, [&](void* p) {
        ++deleted;
        delete[] static_cast<double*>(p);
      }) == host);
      if (host) {
        CHECK(mem[3] == 6.0);  // the contents, computed and copied
        CHECK(deleted == 0);
        row += 100.0;  // the VM now computes in mem
        row.sync();
        CHECK(mem[1] == 102.0);
        CHECK(mem[2] == 104.0);
        mem[0] = -1.0;  // nothing pending: the VM sees the caller's write
        CHECK(a.sum().item<double>() == -1.0 + 102.0 + 104.0 + 6.0);
      } else {
        CHECK(deleted == 1);  // a snapshot: the device kept its memory
        row += 100.0;
        CHECK(a.sum().item<double>() == 0.0 + 102.0 + 104.0 + 6.0);
      }
    }
    vm.flush();  // frees the base: the deleter runs (once)
    CHECK(deleted == 1);
  }
}

TEST_CASE("array_adopt: sync raises a poisoned base's error") {
  Vm vm = host_vm("ref");
  Array a = Array::arange(4, DType::Float64, vm);
  Array g = a.take(Array::from_host(std::vector<int64_t>{0, 9}, vm));
  CHECK_THROWS_AS(g.sync(), arrvm::Error);
  a.sync();  // a is fine
}
