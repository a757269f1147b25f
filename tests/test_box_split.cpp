// Whole-array updates split at the box the next update writes
// (rewrite/box_split.hpp; lattice_boltzmann's `F *= 1 - omega;
// F += omega * FEQ; F[1:] *= BOUNDi; F[1:] += BB[1:]`): the rewrite itself
// (pieces, their order, the temporary renamed per piece), that it happens
// where the header says and nowhere else, and that every program computes
// what ref computes without the pass, byte for byte, on cpu under greedy
// and ilp, with the box chain fused and the temporary contracted.
#include <doctest/doctest.h>

#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "arrvm/arrvm.hpp"
#include "engine/runtime.hpp"
#include "rewrite/box_split.hpp"
#include "tests/cpu_test_util.hpp"
#include "tests/ref_test_util.hpp"

using namespace arrvm;  // tests only

namespace {

using reftest::free_of;
using reftest::num;
using reftest::same_view;
using reftest::whole;

// Rows [a, b) of view v.
View rows(View v, int64_t a, int64_t b) {
  v.offset += a * v.stride[0];
  v.shape[0] = b - a;
  return v;
}

std::size_t split(std::vector<Instruction>& batch, BaseId* next_base) {
  std::vector<uint64_t> origin(batch.size(), 0);
  return split_boxes(batch, origin, [&](DType, int64_t) { return (*next_base)++; });
}

// The lattice chain over (4, 3, 5) arrays: F (1), FEQ (2), BOUNDi (3, (3, 5)
// broadcast), BB (4), the temporary 0.5 * FEQ (5).
std::vector<Instruction> chain() {
  const Dims s{4, 3, 5};
  const View F = whole(1, s), FEQ = whole(2, s), T = whole(5, s);
  View bound = make_view(3, 0, Dims{3, 3, 5}, Dims{0, 5, 1});
  return {
      reftest::make(Opcode::Multiply, F, {Operand::of(F), num(0.5)}),
      reftest::make(Opcode::Multiply, T, {Operand::of(FEQ), num(0.5)}),
      reftest::make(Opcode::Add, F, {Operand::of(F), Operand::of(T)}),
      free_of(5, 60),
      reftest::make(Opcode::Multiply, rows(F, 1, 4), {Operand::of(rows(F, 1, 4)), Operand::of(bound)}),
      reftest::make(Opcode::Add, rows(F, 1, 4),
                    {Operand::of(rows(F, 1, 4)), Operand::of(rows(whole(4, s), 1, 4))}),
  };
}

}  // namespace

TEST_CASE("split_boxes: the chain splits at F[1:], box pieces first, the temporary renamed per piece") {
  std::vector<Instruction> b = chain();
  BaseId next = 100;
  CHECK(split(b, &next) == 3);  // F *= 0.5, T = 0.5 * FEQ, F += T
  REQUIRE(b.size() == 11);
  const Dims s{4, 3, 5};
  const View F = whole(1, s);
  // F *= 0.5 over rows 1:4, then row 0.
  CHECK(same_view(b[0].out, rows(F, 1, 4)));
  CHECK(same_view(b[0].in[0].view, rows(F, 1, 4)));
  CHECK(same_view(b[1].out, rows(F, 0, 1)));
  // T's pieces are new bases 100 (rows 1:4, 45 elements) and 101 (row 0).
  CHECK(same_view(b[2].out, whole(100, Dims{3, 3, 5})));
  CHECK(same_view(b[2].in[0].view, rows(whole(2, s), 1, 4)));
  CHECK(same_view(b[3].out, whole(101, Dims{1, 3, 5})));
  CHECK(same_view(b[4].out, rows(F, 1, 4)));
  CHECK(same_view(b[4].in[1].view, whole(100, Dims{3, 3, 5})));
  CHECK(same_view(b[5].out, rows(F, 0, 1)));
  CHECK(same_view(b[5].in[1].view, whole(101, Dims{1, 3, 5})));
  CHECK(b[6].op == Opcode::Free);  // the temporary's own, then its pieces'
  CHECK(same_view(b[6].out, whole(5, Dims{60})));
  CHECK(b[7].op == Opcode::Free);
  CHECK(same_view(b[7].out, whole(100, Dims{45})));
  CHECK(same_view(b[8].out, whole(101, Dims{15})));
  CHECK(same_view(b[9].out, rows(F, 1, 4)));  // the box updates, unchanged
  CHECK(same_view(b[10].out, rows(F, 1, 4)));
}

TEST_CASE("split_boxes: a middle box gives three pieces; what must not split stays whole") {
  const Dims s{6, 4};
  const View a = whole(1, s);
  {  // a *= 2 then a[2:4] += 1: box 2:4, then rows 0:2 and 4:6.
    std::vector<Instruction> b = {
        reftest::make(Opcode::Multiply, a, {Operand::of(a), num(2)}),
        reftest::make(Opcode::Add, rows(a, 2, 4), {Operand::of(rows(a, 2, 4)), num(1)})};
    BaseId next = 100;
    CHECK(split(b, &next) == 1);
    REQUIRE(b.size() == 4);
    CHECK(same_view(b[0].out, rows(a, 2, 4)));
    CHECK(same_view(b[1].out, rows(a, 0, 2)));
    CHECK(same_view(b[2].out, rows(a, 4, 6)));
  }
  auto unchanged = [](std::vector<Instruction> b) {
    const std::vector<Instruction> before = b;
    BaseId next = 100;
    const std::size_t n = split(b, &next);
    CHECK(n == 0);
    REQUIRE(b.size() == before.size());
    for (std::size_t i = 0; i < b.size(); ++i) CHECK(same_view(b[i].out, before[i].out));
  };
  const Instruction box_update =
      reftest::make(Opcode::Add, rows(a, 1, 6), {Operand::of(rows(a, 1, 6)), num(1)});
  // A generator: its values follow the flat index of its whole output.
  Instruction random = reftest::make(Opcode::Random, a, {});
  random.seed = 7;
  unchanged({random, box_update});
  // Reads its own base through another view (a shifted copy).
  unchanged({reftest::make(Opcode::Add, a, {Operand::of(a), Operand::of(make_view(1, 0, s, Dims{0, 1}))}),
             box_update});
  // The next update writes columns, not rows.
  unchanged({reftest::make(Opcode::Multiply, a, {Operand::of(a), num(2)}),
             reftest::make(Opcode::Add, make_view(1, 1, Dims{6, 3}, Dims{4, 1}),
                           {Operand::of(make_view(1, 1, Dims{6, 3}, Dims{4, 1})), num(1)})});
  // Something reads the whole array between the two.
  unchanged({reftest::make(Opcode::Multiply, a, {Operand::of(a), num(2)}),
             reftest::make(Opcode::Add, whole(2, s), {Operand::of(a), num(1)}), box_update});
  // A temporary with another reader stays whole, and so does its reader.
  const View t = whole(5, s);
  unchanged({reftest::make(Opcode::Multiply, t, {Operand::of(whole(2, s)), num(0.5)}),
             reftest::make(Opcode::Add, a, {Operand::of(a), Operand::of(t)}),
             reftest::make(Opcode::Add, whole(3, s), {Operand::of(t), num(1)}), free_of(5, 24), box_update});
}

TEST_CASE("split_boxes: a reader of a whole array right after a box update splits at the box") {
  const Dims s{5, 4};
  const View F = whole(1, s), T = whole(2, s);
  const Instruction box_update =
      reftest::make(Opcode::Add, rows(F, 1, 5), {Operand::of(rows(F, 1, 5)), num(1)});
  {  // F[1:] += 1; T = F (lattice_boltzmann's `T[:] = F` after `F[1:] += BB[1:]`): T[1:], then T[0].
    std::vector<Instruction> b = {box_update, reftest::make(Opcode::Identity, T, {Operand::of(F)})};
    BaseId next = 100;
    CHECK(split(b, &next) == 1);
    REQUIRE(b.size() == 3);
    CHECK(same_view(b[1].out, rows(T, 1, 5)));
    CHECK(same_view(b[1].in[0].view, rows(F, 1, 5)));
    CHECK(same_view(b[2].out, rows(T, 0, 1)));
    CHECK(same_view(b[2].in[0].view, rows(F, 0, 1)));
  }
  auto unchanged = [](std::vector<Instruction> b) {
    const std::size_t size = b.size();
    BaseId next = 100;
    CHECK(split(b, &next) == 0);
    CHECK(b.size() == size);
  };
  // The previous instruction touching F wrote all of it.
  unchanged({reftest::make(Opcode::Add, F, {Operand::of(F), num(1)}),
             reftest::make(Opcode::Identity, T, {Operand::of(F)})});
  // Something read F in between (rows 0:4, not the box): the box writer is not the last to touch it.
  unchanged({box_update,
             reftest::make(Opcode::Multiply, whole(3, Dims{4, 4}), {Operand::of(rows(F, 0, 4)), num(2)}),
             reftest::make(Opcode::Identity, T, {Operand::of(F)})});
  // The reader reads F through a shifted view (not a box of the update's rows).
  unchanged({box_update, reftest::make(Opcode::Identity, make_view(2, 0, Dims{4, 4}, Dims{4, 1}),
                                       {Operand::of(rows(F, 1, 5))})});
  // The reader reads a temporary the batch frees (its producer would have to split too).
  unchanged({reftest::make(Opcode::Add, rows(whole(6, s), 1, 5), {Operand::of(rows(F, 1, 5)), num(1)}),
             reftest::make(Opcode::Identity, T, {Operand::of(whole(6, s))}), free_of(6, 20)});
  // The reader writes a temporary the batch frees (finite_volume's `0.5 * u[:-1]` after
  // `u[1:-1] = ...`): its row-0 piece would allocate all of T wherever a fuser ran it.
  unchanged({box_update, reftest::make(Opcode::Identity, T, {Operand::of(F)}), free_of(2, 20)});
}

namespace {

struct Run {
  std::vector<uint8_t> result;
  uint64_t split = 0, kernels = 0, contracted = 0;
};

Run lattice_chain(const std::string& backend, const std::string& fuser, bool on, const std::string& dir,
                  int box, bool copy = false) {
  const Vm vm({{"backend", backend},
               {"fuser", fuser},
               {"passes", on ? "default" : "-split-boxes"},
               {"cache_dir", dir}});
  const int64_t q = 7, n = 9;
  std::vector<double> fv(q * n * n), ev(q * n * n), bv(n * n);
  for (std::size_t i = 0; i < fv.size(); ++i) fv[i] = 1.0 / (i + 3), ev[i] = 0.1 * (i % 17) - 0.7;
  for (std::size_t i = 0; i < bv.size(); ++i) bv[i] = i % 5 == 0 ? 0.0 : 1.0;
  Array F = Array::from_host(fv, {q, n, n}, vm);
  const Array FEQ = Array::from_host(ev, {q, n, n}, vm);
  const Array B = Array::from_host(bv, {n, n}, vm);
  const Array BB = FEQ * 0.25;
  vm.flush();
  const uint64_t k0 = vm.runtime().profile().kernels_launched, c0 = vm.runtime().profile().arrays_contracted;
  const Slice rows = box == 0 ? Slice(1, {}) : box == 1 ? Slice({}, -1) : Slice(2, 5);
  Array T = Array::zeros({q, n, n}, DType::Float64, vm);
  for (int step = 0; step < 3; ++step) {
    F *= 1.0 - 0.6;
    F += 0.6 * FEQ;
    F(rows) *= B;
    F(rows) += BB(rows);
    if (copy) T.assign(F);  // (lattice_boltzmann's streaming starts with T[:] = F)
  }
  Run r;
  r.result = cputest::float64_bytes(F);
  if (copy) {
    const std::vector<uint8_t> t = cputest::float64_bytes(T);
    r.result.insert(r.result.end(), t.begin(), t.end());
  }
  const Profile& p = vm.runtime().profile();
  r.split = p.pass("split-boxes");
  r.kernels = p.kernels_launched - k0;
  r.contracted = p.arrays_contracted - c0;
  return r;
}

}  // namespace

TEST_CASE("lattice_boltzmann's update chain split at F[1:], F[:-1], F[2:5] equals ref byte for byte") {
  const cputest::TempDir dir;
  for (int box = 0; box < 3; ++box) {
    CAPTURE(box);
    const Run want = lattice_chain("ref", "singleton", false, dir.path(), box);
    for (const char* fuser : {"greedy", "ilp"}) {
      CAPTURE(std::string(fuser));
      const Run off = lattice_chain("cpu", fuser, false, dir.path(), box);
      const Run on = lattice_chain("cpu", fuser, true, dir.path(), box);
      CHECK(off.result == want.result);
      CHECK(on.result == want.result);
      CHECK(off.split == 0);
      CHECK(on.split > 0);
      // 0.6 * FEQ becomes one temporary per piece, each contracted in its piece's kernel.
      CHECK(on.contracted > off.contracted);
    }
    CHECK(lattice_chain("ref", "singleton", true, dir.path(), box).result == want.result);
  }
}

TEST_CASE("the chain followed by T = F: the copy splits at the box too, equals ref byte for byte") {
  const cputest::TempDir dir;
  for (int box = 0; box < 3; ++box) {
    CAPTURE(box);
    const Run want = lattice_chain("ref", "singleton", false, dir.path(), box, true);
    for (const char* fuser : {"greedy", "ilp"}) {
      CAPTURE(std::string(fuser));
      const Run off = lattice_chain("cpu", fuser, false, dir.path(), box, true);
      const Run on = lattice_chain("cpu", fuser, true, dir.path(), box, true);
      CHECK(off.result == want.result);
      CHECK(on.result == want.result);
      // The copy splits once a step, at its rows.
      CHECK(on.split == lattice_chain("cpu", fuser, true, dir.path(), box, false).split + 3);
    }
  }
}
