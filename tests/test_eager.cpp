// The eager path (ARRVM_EAGER, engine/runtime_eager.cpp): small work issued
// when nothing is pending runs at once, with the values, errors and poison
// of the batch path; larger work, and work issued while a batch is pending,
// is batched as before.
#include <doctest/doctest.h>

#include <arrvm/arrvm.hpp>
#include <chrono>
#include <cstdlib>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "engine/runtime.hpp"
#include "testing/random_program.hpp"
#include "tests/cpu_test_util.hpp"
#include "vm/error.hpp"

using arrvm::Array;
using arrvm::DType;

namespace {

arrvm::Vm make_vm(const std::string& backend, const std::string& eager, const std::string& dir) {
  return arrvm::Vm({{"backend", backend}, {"eager", eager}, {"cache_dir", dir}, {"log", "off"}});
}

// A random stream issued one instruction at a time, reading the written
// base after about every third instruction (a sync: the next instruction
// meets an empty batch); every value read, then every live base, as bytes
// ("error: ..." for a poisoned one).
std::vector<std::string> run_stream(const arrvm::testing::RandomProgram& p, const std::string& backend,
                                    int64_t eager, uint64_t seed, const std::string& dir, uint64_t* ran) {
  arrvm::Config cfg = cputest::config(backend, dir);
  cfg.eager = eager;
  arrvm::Runtime rt(cfg);
  for (const arrvm::testing::BaseSpec& b : p.bases) {
    REQUIRE(rt.new_base(b.dtype, b.nelem) == b.id);
    if (!b.data.empty()) rt.write(b.id, b.data.data(), b.data.size());
  }
  std::vector<std::string> seen;
  auto read = [&](arrvm::BaseId id) {
    const arrvm::BaseInfo* info = rt.bases().find(id);
    if (info == nullptr) return;
    std::string bytes(static_cast<std::size_t>(info->nelem) * arrvm::dtype_size(info->dtype), '\0');
    try {
      rt.read(id, bytes.data(), bytes.size());
      seen.push_back(bytes);
    } catch (const arrvm::Error& e) {
      seen.push_back(std::string("error: ") + e.what());
    }
  };
  std::mt19937_64 rng(seed);
  for (const arrvm::Instruction& in : p.batch) {
    if (in.op == arrvm::Opcode::Sync) {
      read(in.out.base);
      continue;
    }
    rt.issue(in);
    if (!arrvm::is_control(in.op) && rng() % 3 == 0) read(in.out.base);
  }
  for (const arrvm::testing::BaseSpec& b : p.bases) read(b.id);
  *ran = rt.profile().eager;
  return seen;
}

}  // namespace

TEST_CASE("eager: random streams read the same values, errors included, eager and batched (ref, cpu)") {
  const cputest::TempDir dir;
  const int programs = std::getenv("ARRVM_TEST_FULL") != nullptr ? 1500 : 300;
  uint64_t eager_total = 0;
  for (int k = 0; k < programs; ++k) {
    const uint64_t seed = 47000 + static_cast<uint64_t>(k);
    arrvm::testing::RandomProgramOptions po;
    po.max_instructions = 24;
    const arrvm::testing::RandomProgram p = arrvm::testing::random_program(seed, po);
    CAPTURE(seed);
    uint64_t e0 = 0, e1 = 0, e2 = 0;
    const std::vector<std::string> want = run_stream(p, "ref", 0, seed, dir.path(), &e0);
    CHECK(e0 == 0);
    CHECK(run_stream(p, "ref", 4096, seed, dir.path(), &e1) == want);
    if (k % 3 == 0) CHECK(run_stream(p, "cpu", 4096, seed, dir.path(), &e2) == want);
    eager_total += e1;
  }
  MESSAGE(eager_total << " instructions ran eagerly over " << programs << " streams");
  CHECK(eager_total >= static_cast<uint64_t>(programs));  // the path is exercised
}

TEST_CASE(
    "eager: small work runs at once and its reads flush nothing; large work and work behind a batch wait") {
  const cputest::TempDir dir;
  for (const char* backend : {"ref", "cpu"}) {
    CAPTURE(backend);
    const arrvm::Vm vm = make_vm(backend, "1000", dir.path());
    arrvm::Runtime& rt = vm.runtime();
    const Array a = Array::arange(0.0, 10.0, 1.0, DType::Float64, vm);
    const Array b = a * 2.0 + 1.0;
    CHECK(rt.pending() == 0);
    CHECK(rt.profile().eager == 3);  // arange, *, +
    CHECK(b.sum().item<double>() == 100.0);
    CHECK(rt.profile().batches == 0);
    // 1001 elements: over the limit, batched; then small work behind it waits too.
    const Array big = Array::arange(0.0, 1001.0, 1.0, DType::Float64, vm);
    const Array c = b + 1.0;
    CHECK(rt.pending() >= 2);
    CHECK(rt.profile().eager == 4);  // (the sum)
    CHECK(big.sum().item<double>() == 500500.0);
    CHECK(c.to_vector<double>()[9] == 20.0);
    CHECK(rt.profile().batches == 1);
  }
}

TEST_CASE("eager: ARRVM_EAGER=off and a backend whose memory is elsewhere batch everything") {
  const cputest::TempDir dir;
  const arrvm::Vm off = make_vm("cpu", "off", dir.path());
  const Array a = Array::arange(0.0, 10.0, 1.0, DType::Float64, off) * 3.0;
  CHECK(off.runtime().pending() >= 2);
  CHECK(a.sum().item<double>() == 135.0);
  CHECK(off.runtime().profile().eager == 0);
  arrvm::Config c;
  c.backend = "opencl";
  c.eager = 4096;
  c.cache_dir = dir.path();
  try {
    arrvm::Runtime rt(c);  // (where an OpenCL platform exists: PoCL on CI)
    const arrvm::BaseId id = rt.new_base(DType::Float64, 4);
    arrvm::Instruction in;
    in.op = arrvm::Opcode::Range;
    in.out = arrvm::contiguous_view(id, DType::Float64, {4});
    rt.issue(in);
    CHECK(rt.pending() == 1);
    std::vector<double> v(4);
    rt.read(id, v.data(), 32);
    CHECK(v == std::vector<double>{0, 1, 2, 3});
  } catch (const arrvm::BackendError& e) {
    MESSAGE("no OpenCL device here: " << e.what());
  }
}

TEST_CASE("eager: a failing instruction poisons what it writes, names itself, and the VM goes on") {
  const cputest::TempDir dir;
  for (const char* backend : {"ref", "cpu"}) {
    CAPTURE(backend);
    const arrvm::Vm vm = make_vm(backend, "on", dir.path());
    const Array data = Array::arange(0.0, 5.0, 1.0, DType::Float64, vm);
    const Array idx = Array::arange(0, 3, 1, DType::Int64, vm) * int64_t{4};  // 0, 4, 8: 8 is out of range
    const Array g = data.take(idx);
    const Array h = g + 1.0;  // computed from a poisoned array: poisoned too
    std::string what;
    try {
      (void)h.to_vector<double>();
    } catch (const arrvm::Error& e) {
      what = e.what();
    }
    CHECK(what.find("index 8 out of range") != std::string::npos);
    CHECK(what.find("instruction #") != std::string::npos);
    CHECK((data * 2.0).sum().item<double>() == 20.0);  // the rest is computed as usual
  }
}

TEST_CASE("eager: a long loop of small work runs in constant memory") {
  const cputest::TempDir dir;
  const arrvm::Vm vm = make_vm("cpu", "on", dir.path());
  Array x = Array::full({64}, 1.0, DType::Float64, vm);
  uint64_t held_after_100 = 0;
  for (int i = 0; i < 2000; ++i) {
    x = x * 0.5 + 0.5;
    if (i == 100) held_after_100 = vm.runtime().profile().bytes_allocated;
  }
  CHECK(x.sum().item<double>() == 64.0);
  CHECK(vm.runtime().profile().bytes_allocated <= held_after_100);
  CHECK(vm.runtime().profile().eager >= 4000);
}

TEST_CASE("eager: the option's values") {
  arrvm::Config c;
  CHECK(c.eager == 0);  // a Config built by hand batches everything
  c.set("eager", "on");
  CHECK(c.eager == arrvm::Config::kEagerDefault);
  c.set("eager", "100");
  CHECK(c.eager == 100);
  c.set("eager", "0");
  CHECK(c.eager == 0);
  c.set("eager", "off");
  CHECK(c.eager == 0);
  CHECK_THROWS_WITH_AS(c.set("eager", "-3"), doctest::Contains("not on, off or a number"), arrvm::Error);
  CHECK_THROWS_WITH_AS(c.set("eager", "lots"), doctest::Contains("eager='lots'"), arrvm::Error);
}

TEST_CASE("eager: a large enough elementwise instruction on cpu runs its compiled kernel, ref's values") {
  // Tiered: ref's loops until the kernel of `minimum` (int64, 5000
  // elements) is compiled in the background, then the kernel; the values
  // stay ref's (integers, exact) either way.
  const cputest::TempDir dir;
  auto make = [&](const char* backend, bool tiered) {
    arrvm::Config cfg = cputest::config(backend, dir.path());
    cfg.eager = 16384;
    cfg.tiered = tiered;
    return std::make_shared<arrvm::Runtime>(cfg);
  };
  auto rt = make("cpu", true);
  const arrvm::Vm vm = arrvm::Vm::from_runtime(rt);
  const arrvm::Vm ref = arrvm::Vm::from_runtime(make("ref", false));
  const int64_t n = 5000;
  auto compute = [&](const arrvm::Vm& v) {
    const Array a = Array::arange(n, DType::Int64, v) * int64_t{7} % int64_t{13};
    const Array b = Array::arange(n, DType::Int64, v) % int64_t{11};
    return arrvm::minimum(a, b).to_vector<int64_t>();
  };
  const std::vector<int64_t> want = compute(ref);
  bool launched = false;
  for (int tries = 0; tries < 600 && !launched; ++tries) {
    const uint64_t before = rt->profile().kernels_launched;
    CHECK(compute(vm) == want);
    launched = rt->profile().kernels_launched > before;
    if (!launched) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  CHECK(launched);
  CHECK(rt->profile().batches == 0);  // eager all along: no batch, no fusion
  // Below the size, ref's loops: no kernel.
  const uint64_t before = rt->profile().kernels_launched;
  const Array small = Array::arange(100, DType::Int64, vm) % int64_t{11};
  (void)small.to_vector<int64_t>();
  CHECK(rt->profile().kernels_launched == before);
}
