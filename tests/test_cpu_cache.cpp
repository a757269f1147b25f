// The cpu backend's compiled kernels: reuse at another size (sizes, offsets
// and strides are launch arguments), contraction of temporaries, the disk
// cache (reuse by a new process, corrupt entries recompiled), and compiler
// failures reported as BackendError with the compiler's output.
#include <doctest/doctest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "backends/cpu/cpu_backend.hpp"
#include "engine/runtime.hpp"
#include "tests/cpu_test_util.hpp"
#include "vm/error.hpp"

using namespace arrvm;  // tests only

namespace {

View vec(BaseId b, DType t, int64_t off, int64_t n, int64_t step) {
  View v;
  v.base = b;
  v.dtype = t;
  v.offset = off;
  v.shape = Dims{n};
  v.stride = Dims{step};
  return v;
}

Instruction make(Opcode op, const View& out, std::vector<Operand> ins) {
  Instruction i;
  i.op = op;
  i.out = out;
  for (const Operand& o : ins) i.add_input(o);
  return i;
}

// x = range(2n) as float64; t = x[off::2] * 3 (a temporary, freed);
// y = t + 0.5; returns y. Expected: y[i] = (off + 2i) * 3 + 0.5.
std::vector<double> program(Runtime& rt, int64_t n, int64_t off) {
  const DType f = DType::Float64;
  const BaseId x = rt.new_base(f, 2 * n + off);
  const BaseId t = rt.new_base(f, n);
  const BaseId y = rt.new_base(f, n);
  rt.issue(make(Opcode::Range, vec(x, f, 0, 2 * n + off, 1), {}));
  rt.issue(make(Opcode::Multiply, vec(t, f, 0, n, 1),
                {Operand::of(vec(x, f, off, n, 2)), Operand::of(Scalar::of_double(f, 3.0))}));
  rt.issue(make(Opcode::Add, vec(y, f, 0, n, 1),
                {Operand::of(vec(t, f, 0, n, 1)), Operand::of(Scalar::of_double(f, 0.5))}));
  rt.free_base(t);
  rt.free_base(x);
  std::vector<double> out(static_cast<std::size_t>(n));
  rt.read(y, out.data(), out.size() * sizeof(double));
  rt.free_base(y);
  return out;
}

void check_values(const std::vector<double>& y, int64_t off) {
  for (std::size_t i = 0; i < y.size(); ++i) {
    INFO("i = " << i);
    REQUIRE(y[i] == static_cast<double>(off + 2 * static_cast<int64_t>(i)) * 3 + 0.5);
  }
}

// The kernel entries (the merge cache keeps its own entries in merge/).
std::vector<std::filesystem::path> cache_files(const std::string& dir) {
  std::vector<std::filesystem::path> v;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    if (e.is_regular_file() && e.path().extension() == ".kernel") v.push_back(e.path());
  }
  return v;
}

}  // namespace

// A kernel has two compiled forms: with its OpenMP parallel regions, for
// launches at or above the parallel threshold (2^15 elements), and without,
// below it (CDialect::serial). Each is compiled once, at its first launch;
// a serial launch after the parallel form is compiled runs that form on one
// thread instead (the next test).
TEST_CASE("cpu: the same block at another size and offset compiles no kernel") {
  cputest::TempDir dir;
  Runtime rt(cputest::config("cpu", dir.path()));
  check_values(program(rt, 10, 1), 1);
  const CpuBackendStats first = cpu_backend_stats(rt.backend());
  CHECK(first.cache.compiled >= 1);
  CHECK(first.contracted >= 1);  // t lives only in its block: a scalar temporary
  check_values(program(rt, 1000, 2), 2);
  const CpuBackendStats second = cpu_backend_stats(rt.backend());
  CHECK(second.cache.compiled == first.cache.compiled);
  CHECK(second.cache.memory_hits > first.cache.memory_hits);
  CHECK(second.kernels_launched > first.kernels_launched);
  check_values(program(rt, 100000, 3), 3);  // large enough to run in parallel: the parallel form
  const CpuBackendStats third = cpu_backend_stats(rt.backend());
  CHECK(third.cache.compiled == 2 * first.cache.compiled);
  check_values(program(rt, 200000, 5), 5);
  const CpuBackendStats fourth = cpu_backend_stats(rt.backend());
  CHECK(fourth.cache.compiled == third.cache.compiled);
  CHECK(fourth.cache.memory_hits > third.cache.memory_hits);
  check_values(program(rt, 20, 7), 7);  // the serial form again
  CHECK(cpu_backend_stats(rt.backend()).cache.compiled == third.cache.compiled);
}

TEST_CASE("cpu: a small launch after a large one runs the parallel form, compiling nothing") {
  cputest::TempDir dir;
  Runtime rt(cputest::config("cpu", dir.path()));
  check_values(program(rt, 100000, 3), 3);  // the parallel form
  const CpuBackendStats first = cpu_backend_stats(rt.backend());
  CHECK(first.cache.compiled >= 1);
  check_values(program(rt, 20, 7), 7);  // below the threshold: the same kernel, on one thread
  check_values(program(rt, 1000, 2), 2);
  const CpuBackendStats second = cpu_backend_stats(rt.backend());
  CHECK(second.cache.compiled == first.cache.compiled);
  CHECK(second.kernels_launched > first.kernels_launched);
}

TEST_CASE("cpu: the disk cache serves a new process, and a corrupt entry is recompiled") {
  cputest::TempDir dir;
  {
    Runtime rt(cputest::config("cpu", dir.path()));
    check_values(program(rt, 50, 0), 0);
    CHECK(cpu_backend_stats(rt.backend()).cache.compiled >= 1);
  }
  const std::vector<std::filesystem::path> files = cache_files(dir.path());
  REQUIRE(!files.empty());
  {
    Runtime rt(cputest::config("cpu", dir.path()));
    check_values(program(rt, 70, 2), 2);
    const CpuBackendStats s = cpu_backend_stats(rt.backend());
    CHECK(s.cache.compiled == 0);
    CHECK(s.cache.disk_hits >= 1);
  }
  SUBCASE("truncated") {
    for (const auto& f : files) std::filesystem::resize_file(f, std::filesystem::file_size(f) / 2);
  }
  SUBCASE("overwritten") {
    for (const auto& f : files) {
      const auto size = std::filesystem::file_size(f);
      std::ofstream out(f, std::ios::binary | std::ios::in | std::ios::out);
      out.seekp(static_cast<std::streamoff>(size / 2));
      const std::string junk(64, 'x');
      out.write(junk.data(), static_cast<std::streamsize>(junk.size()));
    }
  }
  SUBCASE("emptied") {
    for (const auto& f : files) std::filesystem::resize_file(f, 0);
  }
  Runtime rt(cputest::config("cpu", dir.path()));
  check_values(program(rt, 30, 1), 1);
  const CpuBackendStats s = cpu_backend_stats(rt.backend());
  CHECK(s.cache.corrupt >= 1);
  CHECK(s.cache.compiled >= 1);
  CHECK(s.cache.disk_hits == 0);
  // The recompiled entries were written back and are good again.
  Runtime rt2(cputest::config("cpu", dir.path()));
  check_values(program(rt2, 30, 1), 1);
  CHECK(cpu_backend_stats(rt2.backend()).cache.compiled == 0);
}

TEST_CASE("cpu: cache modes memory and off write nothing to the cache directory") {
  for (const char* mode : {"memory", "off"}) {
    cputest::TempDir dir;
    Config c = cputest::config("cpu", dir.path());
    c.set("cache", mode);
    Runtime rt(c);
    check_values(program(rt, 20, 0), 0);
    check_values(program(rt, 40, 1), 1);
    const CpuBackendStats s = cpu_backend_stats(rt.backend());
    CHECK(cache_files(dir.path()).empty());
    if (std::string(mode) == "memory") {
      CHECK(s.cache.memory_hits >= 1);
    } else {
      CHECK(s.cache.memory_hits == 0);
      CHECK(s.cache.compiled == s.kernels_launched);
    }
  }
}

TEST_CASE("cpu: a failing compiler gives BackendError with its output; the process stays usable") {
  cputest::TempDir dir;
  {
    Config c = cputest::config("cpu", dir.path());
    c.cc = "false";
    Runtime rt(c);
    try {
      program(rt, 10, 0);
      FAIL("no error");
    } catch (const BackendError& e) {
      CHECK(std::string(e.what()).find("false") != std::string::npos);  // the command is named
    }
  }
  {
    // A "compiler" that prints and fails: its output is in the error. The
    // failed Runtime stays usable for what needs no kernel. (ARRVM_CC is
    // split at whitespace, never given to a shell: the program is a script.)
    const std::string fake = dir.file("fake-cc");
    std::ofstream(fake) << "#!/bin/sh\necho arrvm-fake-compiler-output\nexit 1\n";
    std::filesystem::permissions(fake, std::filesystem::perms::owner_all);
    Config c = cputest::config("cpu", dir.path());
    c.cc = fake;
    Runtime rt(c);
    try {
      program(rt, 10, 0);
      FAIL("no error");
    } catch (const BackendError& e) {
      CHECK(e.log().find("arrvm-fake-compiler-output") != std::string::npos);
      CHECK(std::string(e.what()).find("arrvm-fake-compiler-output") != std::string::npos);
    }
    const BaseId b = rt.new_base(DType::Float64, 3);
    const std::vector<double> in = {1.5, -2, 3};
    rt.write(b, in.data(), 24);
    std::vector<double> out(3);
    rt.read(b, out.data(), 24);
    CHECK(out == in);
  }
  {
    Config c = cputest::config("cpu", dir.path());
    c.cflags = "-Wnonexistent-flag -Werror";
    Runtime rt(c);
    try {
      program(rt, 10, 0);
      FAIL("no error");
    } catch (const BackendError& e) {
      INFO(e.what());
      CHECK(e.log().find("nonexistent-flag") != std::string::npos);  // the compiler's own message
      CHECK(std::string(e.what()).find(e.log()) != std::string::npos);
    }
  }
  CHECK(cache_files(dir.path()).empty());
  Runtime rt(cputest::config("cpu", dir.path()));
  check_values(program(rt, 10, 0), 0);
}
