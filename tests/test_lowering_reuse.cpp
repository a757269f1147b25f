// The cpu backend keeps each block's lowering by its structure
// (codegen::BlockKey) and re-binds it to later blocks of the same structure:
// new base ids, new constant values, new instruction positions. Checked by
// running random programs twice on one backend — the second time with
// every base renumbered and every constant changed — against ref, and by
// the unit tests of block_key / block_consts.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "arrvm/arrvm.hpp"
#include "backends/backend.hpp"
#include "backends/cpu/cpu_backend.hpp"
#include "backends/loop_ir.hpp"
#include "engine/runtime.hpp"
#include "fusion/fuse.hpp"
#include "testing/random_program.hpp"
#include "tests/cpu_test_util.hpp"

using namespace arrvm;  // tests only

namespace {

// `p` with base ids moved by `shift` and every constant changed (ints +1,
// floats scaled and moved, bools flipped); the structure stays the same.
testing::RandomProgram renumbered(testing::RandomProgram p, BaseId shift) {
  for (testing::BaseSpec& b : p.bases) b.id += shift;
  for (Instruction& in : p.batch) {
    in.out.base += shift;
    if (in.length_class >= 0) in.length_class += shift;
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
  // A lowering re-bound to the renumbered block equals that block's own
  // lowering: views, indexed views, contracted bases, constants, errors.
  int rebound = 0;
  for (uint64_t seed = 0; seed < 200; ++seed) {
    const testing::RandomProgram s1 = testing::random_program(seed);
    const testing::RandomProgram s2 = renumbered(s1, 500);
    std::vector<uint32_t> one{0};
    for (uint32_t i = 0; i < s1.batch.size(); ++i) {
      one[0] = i;
      // (An instruction of a length class alone runs over its compress's
      // length, which the backend resolves first.)
      if (!codegen::has_work(s1.batch, one) || s1.batch[i].length_class >= 0) continue;
      codegen::LoweredBlock b = codegen::lower(s1.batch, one, codegen::Target::Cpu);
      const codegen::Binding binding = codegen::binding_of(b, s1.batch, one);
      REQUIRE(codegen::rebind(&b, binding, s2.batch, one));
      const codegen::LoweredBlock want = codegen::lower(s2.batch, one, codegen::Target::Cpu);
      REQUIRE(b.views.size() == want.views.size());
      for (std::size_t v = 0; v < b.views.size(); ++v) CHECK(same_elements(b.views[v], want.views[v]));
      REQUIRE(b.indexed.size() == want.indexed.size());
      for (std::size_t v = 0; v < b.indexed.size(); ++v) CHECK(b.indexed[v].base == want.indexed[v].base);
      CHECK(b.contracted == want.contracted);
      CHECK(b.consts == want.consts);
      CHECK(b.error_instr == want.error_instr);
      CHECK(b.kept == want.kept);
      CHECK(b.kernel.signature() == want.kernel.signature());
      ++rebound;
    }
  }
  CHECK(rebound > 500);
}

// Through the VM: a loop flushes the same batch structure with new
// temporaries and new scalars every iteration; the cpu and opencl backends
// find the lowering by the merge cache's structure id and re-bind it. Values
// equal ref's (cpu bit for bit; opencl within rounding: its reductions are
// trees).
TEST_CASE("cpu, opencl: a loop re-binds kept lowerings by the partition's structure id and equals ref") {
  const cputest::TempDir dir;
  auto run = [&](const char* backend, uint64_t* reused) {
    Vm vm({{"backend", backend}, {"fuser", "greedy"}, {"cache_dir", dir.path()}, {"cache", "memory"}});
    // (200 elements: sums shorter than the cpu's SIMD sweeps, ref's order)
    Array a = Array::arange(200, DType::Float64, vm) * 0.005;
    Array b = Array::ones({200}, DType::Float64, vm);
    std::vector<double> out;
    for (int i = 0; i < 50; ++i) {
      const double s = 1.0 + 0.01 * i;  // a new scalar every iteration
      Array t = a * s + b(Slice(0, 200));
      a = (t - a.sum() * 1e-4) * 0.5;
      b(Slice(1, 200)) += a(Slice(0, 199)) * (i % 3);
      out.push_back(a.sum().item<double>());  // one flush per iteration
    }
    if (reused != nullptr) *reused = vm.runtime().backend().stats().count("lowerings_reused");
    return out;
  };
  uint64_t reused_cpu = 0, reused_opencl = 0;
  const std::vector<double> want = run("ref", nullptr);
  const std::vector<double> cpu = run("cpu", &reused_cpu);
  const std::vector<double> opencl = run("opencl", &reused_opencl);
  CHECK(cpu == want);
  REQUIRE(opencl.size() == want.size());
  for (std::size_t i = 0; i < want.size(); ++i) CHECK(opencl[i] == doctest::Approx(want[i]).epsilon(1e-12));
  MESSAGE("blocks re-bound a kept lowering: cpu " << reused_cpu << ", opencl " << reused_opencl);
  CHECK(reused_cpu >= 100);
  CHECK(reused_opencl >= 100);
}

TEST_CASE("cpu, opencl: a loop over the rows of a table re-binds kept lowerings at each row's offset") {
  // The merge key holds offsets relative to each base's first view, so row
  // t's batch shares row 0's structure id: a kept lowering must move its
  // views to row t (a lowering re-bound with row 0's offsets read row 0
  // again: lattice_boltzmann and an opencl element read went wrong so).
  const cputest::TempDir dir;
  auto run = [&](const char* backend, uint64_t* reused) {
    Vm vm({{"backend", backend},
           {"fuser", "greedy"},
           {"cache_dir", dir.path()},
           {"cache", "memory"},
           {"eager", "off"}});
    const Array table = Array::arange(0.0, 40 * 64.0, 1.0, DType::Float64, vm).reshape({40, 64}) * 0.5;
    Array acc = Array::zeros({64}, DType::Float64, vm);
    Array sums = Array::zeros({40}, DType::Float64, vm);
    std::vector<double> out;
    for (int64_t t = 0; t < 40; ++t) {
      acc = acc * 0.5 + table(t) * table(t);
      sums(Slice(t, t + 1)).assign((acc + table(t)).sum());
      out.push_back(acc(5).item<double>());  // one flush per row
    }
    for (double v : sums.to_vector<double>()) out.push_back(v);
    if (reused != nullptr) *reused = vm.runtime().backend().stats().count("lowerings_reused");
    return out;
  };
  uint64_t reused_cpu = 0, reused_opencl = 0;
  const std::vector<double> want = run("ref", nullptr);
  const std::vector<double> cpu = run("cpu", &reused_cpu);
  const std::vector<double> opencl = run("opencl", &reused_opencl);
  CHECK(cpu == want);
  REQUIRE(opencl.size() == want.size());
  for (std::size_t i = 0; i < want.size(); ++i) CHECK(opencl[i] == doctest::Approx(want[i]).epsilon(1e-12));
  MESSAGE("row blocks re-bound a kept lowering: cpu " << reused_cpu << ", opencl " << reused_opencl);
  CHECK(reused_cpu >= 30);
  CHECK(reused_opencl >= 30);
}

namespace {

Instruction binary(Opcode op, const View& out, const Operand& x, const Operand& y) {
  Instruction in;
  in.op = op;
  in.out = out;
  in.in[0] = x;
  in.in[1] = y;
  in.nin = 2;
  return in;
}

View vec(BaseId b, int64_t n, int64_t offset = 0) {
  return make_view(b, offset, Dims{n}, Dims{1});
}

Operand num(double v) {
  return Operand::of(Scalar::of_double(DType::Float64, v));
}

}  // namespace

TEST_CASE("lowering: a view read by several statements is one slot; equal constants share a slot") {
  // t = x * 1.5 + x * 1.5; u = t * x[1:] + 1.5 (x read three times as one
  // view, once shifted; 1.5 three times; base 2 contracted).
  const int64_t n = 100;
  const std::vector<Instruction> block = {
      binary(Opcode::Multiply, vec(2, n), Operand::of(vec(1, n)), num(1.5)),
      binary(Opcode::Multiply, vec(3, n), Operand::of(vec(1, n)), num(1.5)),
      binary(Opcode::Add, vec(4, n), Operand::of(vec(2, n)), Operand::of(vec(3, n))),
      binary(Opcode::Multiply, vec(5, n), Operand::of(vec(4, n)), Operand::of(vec(1, n, 1))),
      binary(Opcode::Add, vec(5, n), Operand::of(vec(5, n)), num(-1.5)),
  };
  std::vector<uint32_t> ids(block.size());
  for (uint32_t i = 0; i < ids.size(); ++i) ids[i] = i;
  const codegen::LoweredBlock b = codegen::lower(block, ids, codegen::Target::Cpu);
  // Slots (nothing contracted: no frees): x once; the stores of bases 2, 3,
  // 4 (their reads take the stored values); x[1:]; u's last store (the
  // in-place add reads the first one's value, which is never stored).
  // Written slots are never shared, and the reads forwarded from a store
  // have no slot.
  std::vector<BaseId> bases;
  for (const View& v : b.views) bases.push_back(v.base);
  CHECK(bases == std::vector<BaseId>{1, 2, 3, 4, 1, 5});
  CHECK(b.kernel.written == std::vector<bool>{false, true, true, true, false, true});
  CHECK(b.views[4].offset == 1);
  // 1.5 once, -1.5 its own slot.
  CHECK(b.consts.size() == 2);
  // The key tells the pattern of equal constants apart, not their values.
  codegen::BlockKey k1, k2, k3;
  codegen::block_key(block, ids, &k1);
  std::vector<Instruction> other = block;
  other[0].in[1] = num(2.5);
  other[1].in[1] = num(2.5);
  codegen::block_key(other, ids, &k2);
  CHECK(k1.words == k2.words);
  other[1].in[1] = num(3.5);
  codegen::block_key(other, ids, &k3);
  CHECK(k1.words != k3.words);
  // A lowering re-bound to a block whose equal constants differ does not fit.
  codegen::LoweredBlock c = b;
  const codegen::Binding binding = codegen::binding_of(c, block, ids);
  CHECK(codegen::rebind(&c, binding, other, ids) == false);
  other[1].in[1] = num(2.5);
  REQUIRE(codegen::rebind(&c, binding, other, ids));
  CHECK(c.consts == codegen::lower(other, ids, codegen::Target::Cpu).consts);
}

TEST_CASE("cpu, opencl: scalars equal in one iteration and different in the next re-bind correctly") {
  // The cpu backend finds a kept lowering by the partition's structure id,
  // which does not hold the scalars: one lowered while two scalars were
  // equal (one constant slot) must not serve an iteration where they differ.
  const cputest::TempDir dir;
  auto run = [&](const char* backend) {
    Vm vm({{"backend", backend}, {"fuser", "greedy"}, {"cache_dir", dir.path()}, {"cache", "memory"}});
    Array a = Array::arange(200, DType::Float64, vm) * 0.005;  // (ref's order of additions)
    std::vector<double> out;
    for (int i = 0; i < 12; ++i) {
      // Equal in iteration 1 (the first of the loop's steady batch, which
      // iteration 0's set-up does not share), different in 2 and 3, ...
      const double s = 0.5, r = i % 3 == 1 ? 0.5 : 0.25 * i;
      a = a * s + (a + 1.0) * r;
      out.push_back(a.sum().item<double>());
    }
    return out;
  };
  const std::vector<double> want = run("ref");
  CHECK(run("cpu") == want);
  const std::vector<double> opencl = run("opencl");
  REQUIRE(opencl.size() == want.size());
  for (std::size_t i = 0; i < want.size(); ++i) CHECK(opencl[i] == doctest::Approx(want[i]).epsilon(1e-12));
}
