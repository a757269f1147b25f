// The cpu backend keeps each block's lowering by its structure
// (codegen::BlockKey) and re-binds it to later blocks of the same structure:
// new base ids, new constant values, new instruction positions. Checked by
// running random programs twice on one backend — the second time with
// every base renumbered and every constant changed — against ref, and by
// the unit tests of block_key / block_consts.
#include <doctest/doctest.h>

#include <cstdlib>
#include <cstring>
#include <vector>

#include "backends/backend.hpp"
#include "backends/cpu/cpu_backend.hpp"
#include "backends/loop_ir.hpp"
#include "fusion/fuse.hpp"
#include "tests/cpu_test_util.hpp"
#include "tests/random_program.hpp"

using namespace arrvm;  // tests only

namespace {

// `p` with base ids moved by `shift` and every constant changed (ints +1,
// floats scaled and moved, bools flipped); the structure stays the same.
testing::RandomProgram renumbered(testing::RandomProgram p, BaseId shift) {
  for (testing::BaseSpec& b : p.bases) b.id += shift;
  for (Instruction& in : p.batch) {
    in.out.base += shift;
    in.seed += 7;
    for (int j = 0; j < in.nin; ++j) {
      Operand& o = in.in[j];
      if (!o.is_const) {
        o.view.base += shift;
        continue;
      }
      Scalar& c = o.constant;
      if (c.dtype == DType::Bool) {
        c.u = c.u == 0 ? 1 : 0;
      } else if (c.dtype == DType::Float32 || c.dtype == DType::Float64) {
        c = Scalar::of_double(c.dtype, c.f * 1.5 + 0.25);
      } else {
        c.u += 1;  // wraps like the dtype's arithmetic; shifts stay below 64 in the generator
      }
    }
  }
  return p;
}

int test_scale() {
  const char* s = std::getenv("ARRVM_TEST_SCALE");
  const int k = s != nullptr ? std::atoi(s) : 1;
  return k > 0 ? k : 1;
}

}  // namespace

TEST_CASE("cpu: a kept lowering re-bound to new bases and constants equals ref") {
  // Compiled kernels shared between the seeds' backends through one disk cache.
  const cputest::TempDir dir;
  const Config cpu_config = cputest::config("cpu", dir.path()),
               ref_config = cputest::config("ref", dir.path());
  const int seeds = 60 * test_scale();  // ARRVM_TEST_SCALE=k: k times as many
  uint64_t reused = 0;
  int compared = 0;
  for (uint64_t seed = 0; seed < static_cast<uint64_t>(seeds); ++seed) {
    const testing::RandomProgram first = testing::random_program(seed);
    const testing::RandomProgram second = renumbered(first, 1000);
    const Partition partition = fuse_batch(first.batch, cpu_config);
    INFO("seed " << seed);
    const std::unique_ptr<Backend> cpu = make_backend(cpu_config);
    std::vector<std::vector<uint8_t>> got[2], want[2];
    std::string got_error[2], want_error[2];
    int k = 0;
    for (const testing::RandomProgram* p : {&first, &second}) {
      try {
        got[k] = testing::run_program(*cpu, *p, partition);
      } catch (const Error& e) {
        got_error[k] = e.what();
      }
      try {
        const std::unique_ptr<Backend> ref = make_backend(ref_config);
        want[k] = testing::run_program(*ref, *p, partition);
      } catch (const Error& e) {
        want_error[k] = e.what();
      }
      CHECK(got_error[k].empty() == want_error[k].empty());
      if (got_error[k].empty() && want_error[k].empty()) {
        CHECK(got[k] == want[k]);
        ++compared;
      }
      ++k;
    }
    reused += cpu_backend_stats(*cpu).lowerings_reused;
  }
  MESSAGE(compared << " runs compared, " << reused << " blocks re-bound a kept lowering");
  CHECK(compared >= seeds * 3 / 2);
  CHECK(reused >= static_cast<uint64_t>(seeds));
}

TEST_CASE("block_key: equal for renumbered bases and other constants, different for other structure") {
  const testing::RandomProgram p = testing::random_program(42);
  const testing::RandomProgram q = renumbered(p, 77);
  std::vector<uint32_t> all(p.batch.size());
  for (uint32_t i = 0; i < all.size(); ++i) all[i] = i;
  codegen::BlockKey a, b;
  codegen::block_key(p.batch, all, &a);
  codegen::block_key(q.batch, all, &b);
  CHECK(a.words == b.words);
  CHECK(a.hash == b.hash);
  REQUIRE(a.bases.size() == b.bases.size());
  for (std::size_t i = 0; i < a.bases.size(); ++i) CHECK(b.bases[i] == a.bases[i] + 77);
  // Another view offset is another structure.
  testing::RandomProgram r = p;
  r.batch[0].out.offset += 1;
  codegen::BlockKey c;
  codegen::block_key(r.batch, all, &c);
  CHECK(c.words != a.words);
  // block_consts gives what the lowering holds.
  std::vector<uint64_t> consts;
  for (uint64_t seed = 0; seed < 200; ++seed) {
    const testing::RandomProgram s = testing::random_program(seed);
    std::vector<uint32_t> one{0};
    for (uint32_t i = 0; i < s.batch.size(); ++i) {
      one[0] = i;
      if (!codegen::has_work(s.batch, one)) continue;
      codegen::block_consts(s.batch, one, &consts);
      CHECK(consts == codegen::build(s.batch, one).consts);
    }
  }
}
