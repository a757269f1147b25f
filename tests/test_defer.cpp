// Names alive at a sync (rewrite/defer.hpp): the loops NumPy programs write,
// with their temporaries in names, compute the same values with deferral on
// and off, on ref and cpu; the names that die unread are never stored; a
// name read later is recomputed once and its site is not deferred again; a
// name whose input is written after it is not deferred, unless a copy of
// the input costs at most an eighth of its store; and on random
// streams with reads between their instructions every value read is the one
// the run without deferral reads.
#include <doctest/doctest.h>

#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "arrvm/arrvm.hpp"
#include "engine/runtime.hpp"
#include "testing/random_program.hpp"
#include "tests/cpu_test_util.hpp"
#include "vm/error.hpp"

using arrvm::Array;
using arrvm::DType;
using arrvm::Slice;
using arrvm::Vm;

namespace {

Vm make_vm(const std::string& backend, const std::string& defer, const std::string& dir) {
  // (on: the default passes; off: no deferral, no dead writes dropped;
  // always: every legal site deferred, none needs evidence)
  return Vm({{"backend", backend},
             {"fuser", "greedy"},
             {"passes", defer == "off" ? "-defer,-dead-writes" : "default"},
             {"defer_every_site", defer == "always" ? "on" : "off"},
             {"cache_dir", dir}});
}

// rosenbrock's loop as NumPy writes it: t and u are alive at the sync and
// rebound, unread, by the next iteration.
double rosenbrock(Vm& vm, int64_t n, int iterations) {
  const Array x = Array::arange(n, DType::Int64, vm) / static_cast<double>(n);
  double total = 0;
  Array t, u;
  for (int i = 0; i < iterations; ++i) {
    const Array a = x(Slice({}, -1)), b = x(Slice(1, {}));
    Array t2 = 1.0 - a, u2 = b - a * a;
    t = t2, u = u2;  // (the names rebound after both are computed, as Python does)
    t2 = Array(), u2 = Array();
    const Array s = (t * t + 100.0 * (u * u)).sum();  // (the expression's temporaries die here)
    total += s.item<double>();
  }
  return total / iterations;
}

double rosenbrock_by_hand(int64_t n) {
  double s = 0;
  for (int64_t i = 0; i + 1 < n; ++i) {
    const double a = static_cast<double>(i) / n, b = static_cast<double>(i + 1) / n;
    s += (1 - a) * (1 - a) + 100.0 * ((b - a * a) * (b - a * a));
  }
  return s;
}

}  // namespace

TEST_CASE("defer: names that die unread are never stored (rosenbrock's loop, ref and cpu)") {
  const cputest::TempDir dir;
  const int64_t n = 100000;
  const double want = rosenbrock_by_hand(n);
  for (const char* backend : {"ref", "cpu"}) {
    CAPTURE(backend);
    uint64_t held[2] = {0, 0};
    for (bool defer : {false, true}) {
      Vm vm = make_vm(backend, defer ? "on" : "off", dir.path());
      const double got = rosenbrock(vm, n, 6);
      CHECK(std::fabs(got - want) <= 1e-9 * std::fabs(want));
      const arrvm::Profile& p = vm.runtime().profile();
      held[defer] = p.bytes_allocated;
      if (defer) {
        // t and u of iterations 2..6: the first iteration's die unread in
        // the second, which makes their sites good.
        CHECK(p.pass("defer") == 10);
        CHECK(p.deferrals_recomputed == 0);     // none was read again
        CHECK(p.pass("dead-writes") >= 4 * 3);  // t, u and a*a of iterations 2..5, dropped
      } else {
        CHECK(p.pass("defer") == 0);
        CHECK(p.pass("dead-writes") == 0);
      }
    }
    // After the loop t and u are alive: stored without deferral, pending
    // (never allocated) with it. Both hold x and the last sum (its free is
    // pending).
    if (std::string(backend) == "cpu") {
      CHECK(held[0] == 8 * n + 2 * 8 * (n - 1) + 8);
      CHECK(held[1] == 8 * n + 8);
    }
  }
}

TEST_CASE("defer: a name read after the sync is stored, and a deferred one read later is recomputed once") {
  const cputest::TempDir dir;
  for (const char* backend : {"ref", "cpu"}) {
    CAPTURE(backend);
    SUBCASE("heat_equation's work: read by the copy-back after the sync, never deferred") {
      Vm vm = make_vm(backend, "on", dir.path());
      Array grid = Array::arange(12, DType::Int64, vm).astype(DType::Float64);
      Array center = grid(Slice(1, -1));
      std::vector<double> g(12);
      for (int i = 0; i < 12; ++i) g[i] = i;
      for (int it = 0; it < 4; ++it) {
        const Array work = 0.5 * (grid(Slice({}, -2)) + grid(Slice(2, {})));
        const Array d_sum = (work - center).sum();
        const double delta = d_sum.item<double>();
        std::vector<double> w(10);
        double d = 0;
        for (int i = 0; i < 10; ++i) w[i] = 0.5 * (g[i] + g[i + 2]), d += w[i] - g[i + 1];
        CHECK(delta == doctest::Approx(d).epsilon(1e-12));
        center.assign(work);
        for (int i = 0; i < 10; ++i) g[i + 1] = w[i];
      }
      const std::vector<double> got = grid.to_vector<double>();
      for (int i = 0; i < 12; ++i) CHECK(got[i] == doctest::Approx(g[i]).epsilon(1e-12));
      CHECK(vm.runtime().profile().pass("defer") == 0);
    }
    SUBCASE("a site deferred while its names die unread, until one is read") {
      Vm vm = make_vm(backend, "on", dir.path());
      const Array a = Array::arange(6, DType::Int64, vm).astype(DType::Float64);
      for (int it = 0; it < 6; ++it) {
        const Array t = a * 2.0;
        const Array s = (t + 1.0).sum();
        CHECK(s.item<double>() == 36.0);
        if (it == 4) CHECK(t.to_vector<double>() == std::vector<double>{0, 2, 4, 6, 8, 10});
      }
      const arrvm::Profile& p = vm.runtime().profile();
      CHECK(p.pass("defer") == 4);         // t of iterations 1..4
      CHECK(p.deferrals_recomputed == 1);  // iteration 4's, then the site is refused
    }
  }
}

TEST_CASE(
    "defer: not when the name's input is written after it (the carried chain would read the new value)") {
  const cputest::TempDir dir;
  for (const char* backend : {"ref", "cpu"}) {
    CAPTURE(backend);
    Vm vm = make_vm(backend, "always", dir.path());  // (no evidence needed)
    std::vector<double> host(8);
    for (int i = 0; i < 8; ++i) host[i] = i;
    Array a = Array::from_host(host, vm);                   // written by the host, not the batch
    const Array t = a + 1.0;                                // alive at the sync below
    const Array s = (t * 2.0).sum();                        // reads t
    a.assign(Array::full({8}, 100.0, DType::Float64, vm));  // a written after t's writer
    CHECK(s.item<double>() == 2.0 * (28 + 8));
    // A copy of a for the carry would cost as much as t's store: not deferred.
    CHECK(vm.runtime().profile().pass("defer") == 0);
    std::vector<double> want(8);
    for (int i = 0; i < 8; ++i) want[i] = i + 1.0;
    CHECK(t.to_vector<double>() == want);
  }
}

TEST_CASE("defer: a small input written after the name is copied, and the carry reads the copy") {
  // nbody's dx = x[:, None] - x, with x updated later in the iteration:
  // t (64 elements) is deferred with a copy of a (8) taken before a's write,
  // so t read after the sync is recomputed from a's old values.
  const cputest::TempDir dir;
  for (const char* backend : {"ref", "cpu"}) {
    CAPTURE(backend);
    Vm vm = make_vm(backend, "always", dir.path());
    std::vector<double> host(8);
    for (int i = 0; i < 8; ++i) host[i] = i;
    Array a = Array::from_host(host, vm);
    const Array t = a.reshape({8, 1}) - a;  // t[i, j] = i - j, alive at the sync
    Array r = t * t;                        // r: written twice, then read
    r(Slice(0, 1)).assign(Array::full({1, 8}, -1.0, DType::Float64, vm));
    const Array s = (r * 2.0).sum();
    a.assign(Array::full({8}, 100.0, DType::Float64, vm));  // a written after t's writer
    double want_s = 0;
    for (int i = 0; i < 8; ++i) {
      for (int j = 0; j < 8; ++j) want_s += 2.0 * (i == 0 ? -1.0 : (i - j) * (i - j));
    }
    CHECK(s.item<double>() == want_s);
    CHECK(vm.runtime().profile().pass("defer") >= 2);  // t and r
    std::vector<double> want_t, want_r;
    for (int i = 0; i < 8; ++i) {
      for (int j = 0; j < 8; ++j) {
        want_t.push_back(i - j);
        want_r.push_back(i == 0 ? -1.0 : (i - j) * (i - j));
      }
    }
    CHECK(t.to_vector<double>() == want_t);  // recomputed in the next batch, from the copy of a
    CHECK(r.to_vector<double>() == want_r);
    CHECK(vm.runtime().profile().deferrals_recomputed >= 1);
    CHECK(a.to_vector<double>() == std::vector<double>(8, 100.0));
  }
}

namespace {

// A random stream of the random-program generator issued one instruction at
// a time, with a read of the written base after about every third
// instruction (each read a sync that leaves the other temporaries alive);
// every value read, then every live base, as bytes ("error: ..." for a
// poisoned one).
std::vector<std::string> run_stream(const arrvm::testing::RandomProgram& p, const std::string& backend,
                                    bool defer, uint64_t seed, const std::string& dir, uint64_t* deferred) {
  arrvm::Config cfg = cputest::config(backend, dir);
  if (defer) {
    cfg.defer_every_site = true;
  } else {
    cfg.passes = "-defer,-dead-writes";
  }
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
  *deferred = rt.profile().pass("defer");
  return seen;
}

}  // namespace

TEST_CASE("defer: random streams read the same values with deferral on and off (ref; cpu fused)") {
  const cputest::TempDir dir;
  const int programs = std::getenv("ARRVM_TEST_FULL") != nullptr ? 1500 : 300;
  uint64_t deferred_total = 0;
  for (int k = 0; k < programs; ++k) {
    const uint64_t seed = 91000 + static_cast<uint64_t>(k);
    arrvm::testing::RandomProgramOptions po;
    po.max_instructions = 24;
    po.p_free = 0.3;
    const arrvm::testing::RandomProgram p = arrvm::testing::random_program(seed, po);
    CAPTURE(seed);
    uint64_t d0 = 0, d1 = 0, d2 = 0;
    const std::vector<std::string> want = run_stream(p, "ref", false, seed, dir.path(), &d0);
    CHECK(d0 == 0);
    CHECK(run_stream(p, "ref", true, seed, dir.path(), &d1) == want);
    if (k % 3 == 0) CHECK(run_stream(p, "cpu", true, seed, dir.path(), &d2) == want);
    deferred_total += d1;
  }
  MESSAGE(deferred_total << " bases deferred over " << programs << " streams");
  CHECK(deferred_total >= static_cast<uint64_t>(programs) / 2);  // the property is exercised
}
