// Runtime::read_now: an element read with no flush, only of a base nothing
// pending touches; and Runtime::version, which changes with every write. Its index of the pending batch's
// bases (pending_uses) follows the batch through appends, flushes, cuts (engine/batch_cut.hpp), deferral
// carries (rewrite/defer.hpp) and the eager path.
#include <doctest/doctest.h>

#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "engine/runtime.hpp"
#include "testing/random_program.hpp"
#include "tests/cpu_test_util.hpp"
#include "vm/dtype.hpp"
#include "vm/error.hpp"

namespace {

// A random stream with, after each instruction, a read_now of a random
// live base; every element read at once must be what a shadow run of the
// same stream that flushes after each instruction holds there. Returns how
// many reads went through at once (and counts the writes in *writes).
int check_stream(const arrvm::testing::RandomProgram& p, const std::string& backend, const std::string& defer,
                 int64_t batch, int64_t eager, uint64_t seed, const std::string& dir, int* writes) {
  arrvm::Config cfg = cputest::config(backend, dir);
  cfg.defer_every_site = defer == "always";
  cfg.batch = batch;
  cfg.eager = eager;
  arrvm::Runtime rt(cfg);
  arrvm::Config shadow_cfg = cputest::config("ref", dir);
  shadow_cfg.batch = 1;
  arrvm::Runtime shadow(shadow_cfg);
  for (const arrvm::testing::BaseSpec& b : p.bases) {
    REQUIRE(rt.new_base(b.dtype, b.nelem) == b.id);
    REQUIRE(shadow.new_base(b.dtype, b.nelem) == b.id);
    if (!b.data.empty()) {
      rt.write(b.id, b.data.data(), b.data.size());
      shadow.write(b.id, b.data.data(), b.data.size());
    }
  }
  std::mt19937_64 rng(seed);
  int direct = 0;
  for (const arrvm::Instruction& in : p.batch) {
    if (in.op == arrvm::Opcode::Sync) continue;  // (the stream's own syncs: none, so batches grow)
    rt.issue(in);
    shadow.issue(in);
    // Now and then an element stored at once (write_now), and in the shadow
    // by an instruction.
    if (rng() % 3 == 0) {
      const arrvm::BaseId w = p.bases[rng() % p.bases.size()].id;
      const arrvm::BaseInfo* info = rt.bases().find(w);
      if (info != nullptr && info->nelem > 0) {
        const int64_t at = static_cast<int64_t>(rng() % static_cast<uint64_t>(info->nelem));
        const arrvm::Scalar v = arrvm::Scalar::of_int(info->dtype, static_cast<int64_t>(rng() % 100));
        alignas(16) unsigned char bytes[16];
        arrvm::visit_dtype(info->dtype, [&](auto t) {
          using T = decltype(t);
          const T x = v.as<T>();
          std::memcpy(bytes, &x, sizeof x);
        });
        if (rt.write_now(w, at, 1, bytes)) {
          ++*writes;
          arrvm::Instruction set;
          set.op = arrvm::Opcode::Identity;
          set.out = arrvm::make_view(w, at, {}, {});
          set.add_input(arrvm::Operand::of(v));
          shadow.issue(set);
        }
      }
    }
    const arrvm::BaseId id = p.bases[rng() % p.bases.size()].id;
    const arrvm::BaseInfo* info = rt.bases().find(id);
    if (info == nullptr || info->nelem == 0 || shadow.is_poisoned(id)) continue;
    const std::size_t size = arrvm::dtype_size(info->dtype);
    const int64_t at = static_cast<int64_t>(rng() % static_cast<uint64_t>(info->nelem));
    std::vector<char> now(size), want(static_cast<std::size_t>(info->nelem) * size);
    if (!rt.read_now(id, at, 1, now.data())) continue;
    ++direct;
    shadow.read(id, want.data(), want.size());
    CHECK(std::memcmp(now.data(), want.data() + at * static_cast<int64_t>(size), size) == 0);
    // Elements every `stride` from `at` (a column; backwards too), and reads
    // that would leave the base, which do nothing.
    const int64_t stride = static_cast<int64_t>(rng() % 7) - 3;
    const int64_t room = stride > 0 ? (info->nelem - 1 - at) / stride : stride < 0 ? at / -stride : 0;
    const int64_t count = 1 + static_cast<int64_t>(rng() % static_cast<uint64_t>(room + 1));
    std::vector<char> run(static_cast<std::size_t>(room + 2) * size);
    CHECK_FALSE(rt.read_now(id, at, room + 2, run.data(), stride));  // one past the base (or a step of 0)
    if (stride == 0) continue;
    REQUIRE(rt.read_now(id, at, count, run.data(), stride));
    for (int64_t i = 0; i < count; ++i) {
      CHECK(std::memcmp(run.data() + i * static_cast<int64_t>(size),
                        want.data() + (at + i * stride) * static_cast<int64_t>(size), size) == 0);
    }
  }
  return direct;
}

}  // namespace

TEST_CASE(
    "read_now: an element read at once is the value a flush gives, through cuts, carries and eager work") {
  const cputest::TempDir dir;
  const int programs = std::getenv("ARRVM_TEST_FULL") != nullptr ? 800 : 150;
  int direct = 0, writes = 0;
  for (int k = 0; k < programs; ++k) {
    const uint64_t seed = 52000 + static_cast<uint64_t>(k);
    arrvm::testing::RandomProgramOptions po;
    po.max_instructions = 40;
    po.filters = false;
    const arrvm::testing::RandomProgram p = arrvm::testing::random_program(seed, po);
    CAPTURE(seed);
    direct += check_stream(p, "ref", "always", 4096, 0, seed, dir.path(), &writes);
    direct += check_stream(p, "ref", "always", 3, 0, seed, dir.path(), &writes);
    direct += check_stream(p, "ref", "on", 8, 4096, seed, dir.path(), &writes);
    if (k % 4 == 0) direct += check_stream(p, "cpu", "always", 8, 4096, seed, dir.path(), &writes);
  }
  MESSAGE(direct << " elements read and " << writes << " written at once");
  CHECK(direct >= programs);  // the property is exercised
  CHECK(writes >= programs);
}

TEST_CASE("version: a base's number changes with every write, and only then") {
  const cputest::TempDir dir;
  arrvm::Runtime rt(cputest::config("cpu", dir.path()));
  using arrvm::DType;
  const arrvm::BaseId a = rt.new_base(DType::Float64, 4), b = rt.new_base(DType::Float64, 4);
  std::vector<double> data{1, 2, 3, 4};
  uint64_t v = rt.version(a);
  auto changed = [&](const char* what) {
    CAPTURE(what);
    const uint64_t now = rt.version(a);
    CHECK(now != v);
    v = now;
  };
  rt.write(a, data.data(), 32);
  changed("write");
  // an instruction reading a: no change; one writing a: a change (pending or run)
  arrvm::Instruction copy;
  copy.op = arrvm::Opcode::Identity;
  copy.out = arrvm::contiguous_view(b, DType::Float64, arrvm::Dims{4});
  copy.add_input(arrvm::Operand::of(arrvm::contiguous_view(a, DType::Float64, arrvm::Dims{4})));
  rt.issue(copy);
  rt.flush();
  CHECK(rt.version(a) == v);
  arrvm::Instruction fill;
  fill.op = arrvm::Opcode::Identity;
  fill.out = arrvm::contiguous_view(a, DType::Float64, arrvm::Dims{2});
  fill.add_input(arrvm::Operand::of(arrvm::Scalar::of_double(DType::Float64, 7)));
  rt.issue(fill);
  changed("an instruction writing part of it");
  rt.flush();
  CHECK(rt.version(a) == v);  // (running it is not another write)
  const double x = 9;
  REQUIRE(rt.write_now(a, 3, 1, &x));
  changed("write_now");
  double got[4];
  rt.read(a, got, sizeof got);
  CHECK(rt.version(a) == v);
  CHECK(got[0] == 7);
  CHECK(got[3] == 9);
  // memory the program gave: a new number at every call
  std::vector<double>* mine = new std::vector<double>(4, 0.0);
  REQUIRE(rt.adopt(b, mine->data(), 32, [mine](void*) { delete mine; }));  // (cpu shares host memory)
  CHECK(rt.version(b) != rt.version(b));
}
