// A fill of a stack of planes split at the planes the next instructions
// update one at a time (rewrite/fill_split.hpp; lattice_boltzmann's
// `BB = zeros(F.shape); BB[OPP[q]] += T[q]`): the rewrite itself (pieces,
// their order, the folds into the claimers), that it happens where the
// header says and nowhere else, and that NumPy-style programs, written and
// drawn at random, compute what ref computes without the pass, byte for
// byte, on ref and cpu under greedy and ilp, in memory the pool hands back
// dirty.
#include <doctest/doctest.h>

#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "arrvm/arrvm.hpp"
#include "engine/runtime.hpp"
#include "rewrite/fill_split.hpp"
#include "tests/cpu_test_util.hpp"
#include "tests/ref_test_util.hpp"

using namespace arrvm;  // tests only

namespace {

using reftest::free_of;
using reftest::num;
using reftest::same_view;
using reftest::whole;

// Plane j of the (3, 4, 5) stack W (base 1), and rows [a, b) of it.
View plane(int64_t j) {
  return make_view(1, j * 20, Dims{4, 5}, Dims{5, 1});
}
View rows(int64_t a, int64_t b) {
  return make_view(1, a * 20, Dims{b - a, 4, 5}, Dims{20, 5, 1});
}

// `unfilled` receives the bases left unfilled; base 1 is the VM's with
// `live` elements, or (-1) one the batch frees.
std::size_t split(std::vector<Instruction>& batch, std::vector<BaseId>* unfilled = nullptr,
                  int64_t live = -1) {
  std::vector<uint64_t> origin(batch.size(), 0);
  FillSplitEnv env;
  env.live_nelem = [&](BaseId b) { return b == 1 ? live : int64_t{-1}; };
  env.leave_unfilled = [&](BaseId b) {
    REQUIRE(unfilled != nullptr);
    unfilled->push_back(b);
  };
  const std::size_t n = split_fills(batch, origin, env);
  CHECK(origin.size() == batch.size());
  return n;
}

const Dims kStack{3, 4, 5};

Instruction fill(double c) {
  return reftest::make(Opcode::Identity, whole(1, kStack), {num(c)});
}

}  // namespace

TEST_CASE("split_fills: claimed planes fold or stay as plane pieces, the rest as runs of rows") {
  const View X = whole(2, Dims{4, 5}), Y = whole(3, Dims{4, 5}), Z = whole(4, kStack);
  std::vector<Instruction> batch = {
      fill(0.0),
      // claims plane 1 and writes all of it: folds (reads 0.0 in its place)
      reftest::make(Opcode::Add, plane(1), {Operand::of(plane(1)), Operand::of(X)}),
      // claims plane 0 but only reads it: the plane's piece stays
      reftest::make(Opcode::Multiply, Y, {Operand::of(plane(0)), num(2.0)}),
      // reads W whole: the walk stops, plane 2 is a run of one row
      reftest::make(Opcode::Add, Z, {Operand::of(whole(1, kStack)), num(1.0)}),
      free_of(1, 60),
  };
  std::vector<BaseId> unfilled;
  REQUIRE(split(batch, &unfilled) == 1);
  REQUIRE(batch.size() == 6);
  CHECK(batch[0].op == Opcode::Identity);
  CHECK(same_view(batch[0].out, plane(0)));
  CHECK(batch[1].op == Opcode::Identity);
  CHECK(same_view(batch[1].out, rows(2, 3)));
  CHECK(batch[2].op == Opcode::Add);
  CHECK(same_view(batch[2].out, plane(1)));
  REQUIRE(batch[2].in[0].is_const);
  CHECK(batch[2].in[0].constant.f == 0.0);
  CHECK(same_view(batch[2].in[1].view, X));
  CHECK(same_view(batch[3].in[0].view, plane(0)));
  CHECK(same_view(batch[4].in[0].view, whole(1, kStack)));
  CHECK(batch[5].op == Opcode::Free);
  // The batch's first touch of base 1, writing all 60 elements (its free's).
  CHECK(unfilled == std::vector<BaseId>{1});
}

TEST_CASE("split_fills: every plane claimed and folded leaves no piece; a later fill is not fresh") {
  const View X = whole(2, Dims{4, 5});
  std::vector<Instruction> batch = {reftest::make(Opcode::Add, X, {Operand::of(plane(2)), num(1.0)}),
                                    fill(3.0)};
  for (int64_t j = 0; j < 3; ++j)
    batch.push_back(reftest::make(Opcode::Subtract, plane(j), {Operand::of(X), Operand::of(plane(j))}));
  std::vector<BaseId> unfilled;
  REQUIRE(split(batch, &unfilled, 60) == 1);
  REQUIRE(batch.size() == 4);
  for (int64_t j = 0; j < 3; ++j) {
    const Instruction& in = batch[1 + j];
    CHECK(in.op == Opcode::Subtract);
    CHECK(same_view(in.out, plane(j)));
    CHECK(same_view(in.in[0].view, X));
    REQUIRE(in.in[1].is_const);
    CHECK(in.in[1].constant.f == 3.0);
  }
  CHECK(unfilled.empty());  // the add read base 1 before the fill
}

TEST_CASE("split_fills: a base is left unfilled only when the fill is its first touch and covers all of it") {
  const View X = whole(2, Dims{4, 5});
  auto batch = [&] {
    return std::vector<Instruction>{
        fill(0.0), reftest::make(Opcode::Add, plane(1), {Operand::of(plane(1)), Operand::of(X)})};
  };
  std::vector<Instruction> b = batch();
  std::vector<BaseId> unfilled;
  REQUIRE(split(b, &unfilled, 60) == 1);
  CHECK(unfilled == std::vector<BaseId>{1});
  unfilled.clear();
  b = batch();
  REQUIRE(split(b, &unfilled, 80) == 1);  // a stack inside a larger base
  CHECK(unfilled.empty());
  b = batch();
  REQUIRE(split(b, &unfilled, -1) == 1);  // neither the VM's nor freed here: size unknown
  CHECK(unfilled.empty());
}

TEST_CASE("split_fills: what must not split or fold stays as it was") {
  const View X = whole(2, Dims{4, 5});
  auto unchanged = [](std::vector<Instruction> batch) {
    const std::vector<Instruction> before = batch;
    CHECK(split(batch) == 0);
    REQUIRE(batch.size() == before.size());
    for (std::size_t i = 0; i < batch.size(); ++i) {
      CHECK(batch[i].op == before[i].op);
      CHECK(same_view(batch[i].out, before[i].out));
    }
  };
  SUBCASE("a whole read first") {
    unchanged({fill(0.0), reftest::make(Opcode::Add, X, {Operand::of(rows(0, 1)), num(1.0)}),
               reftest::make(Opcode::Add, plane(1), {Operand::of(plane(1)), Operand::of(X)})});
  }
  SUBCASE("a free first") {
    unchanged({fill(0.0), free_of(1, 60)});
  }
  SUBCASE("a claimer that also reads part of another plane") {
    const View part = make_view(1, 40, Dims{4, 5}, Dims{5, 0});  // not a plane: a stride of 0
    unchanged({fill(0.0), reftest::make(Opcode::Add, plane(1), {Operand::of(plane(1)), Operand::of(part)})});
  }
  SUBCASE("a 1-D fill, a stack of one plane, a fill of a view") {
    const View head = make_view(1, 0, Dims{5}, Dims{1});
    unchanged({reftest::make(Opcode::Identity, whole(1, Dims{60}), {num(0.0)}),
               reftest::make(Opcode::Add, head, {Operand::of(head), num(2.0)})});
    unchanged({reftest::make(Opcode::Identity, whole(1, Dims{1, 4, 5}), {num(0.0)}),
               reftest::make(Opcode::Add, plane(0), {Operand::of(plane(0)), Operand::of(X)})});
    unchanged({reftest::make(Opcode::Identity, whole(1, kStack), {Operand::of(whole(5, kStack))}),
               reftest::make(Opcode::Add, plane(0), {Operand::of(plane(0)), Operand::of(X)})});
  }
  SUBCASE("claimers that may not fold keep their plane's piece") {
    std::vector<Instruction> batch = {
        fill(0.0),
        // would read constants only
        reftest::make(Opcode::Multiply, plane(0), {Operand::of(plane(0)), num(2.0)}),
        // reads its plane and writes another array
        reftest::make(Opcode::Add, X, {Operand::of(plane(1)), num(2.0)}),
        // a reduction writing a plane
        reftest::make(Opcode::AddReduce, make_view(1, 40, Dims{4}, Dims{5}), {Operand::of(X)}, 1),
    };
    REQUIRE(split(batch) == 1);
    REQUIRE(batch.size() == 6);
    CHECK(same_view(batch[0].out, plane(0)));
    CHECK(same_view(batch[1].out, plane(1)));
    CHECK(same_view(batch[2].out, rows(2, 3)));
    CHECK(!batch[3].in[0].is_const);
  }
}

namespace {

struct Run {
  std::vector<uint8_t> bytes;
  uint64_t split = 0;
};

std::vector<uint8_t> bytes_of(const std::vector<Array>& arrays) {
  std::vector<double> all;
  for (const Array& a : arrays) {
    const std::vector<double> v = a.astype(DType::Float64).to_vector<double>();
    all.insert(all.end(), v.begin(), v.end());
  }
  std::vector<uint8_t> out(all.size() * sizeof(double));
  std::memcpy(out.data(), all.data(), out.size());
  return out;
}

// A draw: a stack of k planes (each r x c) filled with `value`, then ops
// per plane as NumPy code writes them, in a loop of `steps`.
struct Draw {
  int64_t k = 3, r = 8, c = 9;
  double value = 0.0;
  int steps = 2;
  std::vector<int> ops;  // per step, one op per plane in order: see run_draw
  bool whole_read_first = false;
  bool dirty_pool = true;
};

Draw draw(std::mt19937_64& rng) {
  Draw d;
  d.k = 2 + static_cast<int64_t>(rng() % 5);
  d.r = 1 + static_cast<int64_t>(rng() % 70);
  d.c = 1 + static_cast<int64_t>(rng() % 90);
  d.value = (rng() % 3 == 0) ? 1.5 : 0.0;
  d.steps = 1 + static_cast<int>(rng() % 3);
  for (int64_t j = 0; j < d.k; ++j) d.ops.push_back(static_cast<int>(rng() % 6));
  d.whole_read_first = rng() % 5 == 0;
  d.dirty_pool = rng() % 2 == 0;
  return d;
}

Run run_draw(const Draw& d, const std::string& backend, const std::string& fuser, bool on,
             const std::string& dir) {
  const Vm vm({{"backend", backend},
               {"fuser", fuser},
               {"passes", on ? "default" : "-split-fills"},
               {"cache_dir", dir}});
  std::vector<double> tv(static_cast<std::size_t>(d.k * d.r * d.c));
  for (std::size_t i = 0; i < tv.size(); ++i) tv[i] = 0.25 * static_cast<double>(i % 13) - 1.0;
  const Array T = Array::from_host(tv, {d.k, d.r, d.c}, vm);
  const Array B =
      Array::from_host(std::vector<double>(static_cast<std::size_t>(d.r * d.c), 0.5), {d.r, d.c}, vm);
  Array acc = Array::zeros({d.r, d.c}, DType::Float64, vm);
  std::vector<Array> kept;
  for (int s = 0; s < d.steps; ++s) {
    if (d.dirty_pool) {  // a freed buffer of the stack's size, for the pool to hand back
      {
        const Array junk = Array::full({d.k, d.r, d.c}, 7.0 + s, DType::Float64, vm);
        acc += junk.sum(0);  // (a whole read: junk's own fill does not split)
      }
      vm.flush();
    }
    Array BB = d.value == 0.0 ? Array::zeros({d.k, d.r, d.c}, DType::Float64, vm)
                              : Array::full({d.k, d.r, d.c}, d.value, DType::Float64, vm);
    if (d.whole_read_first) acc += BB.sum(0);
    for (int64_t j = 0; j < d.k; ++j) {
      const int64_t o = d.k - 1 - j;  // the opposite plane, as lattice_boltzmann's
      switch (d.ops[static_cast<std::size_t>(j)]) {
        case 0:
          BB(o) += T(j);  // folds
          break;
        case 1:
          BB(o) += T(j) * B;  // folds, a product in its block
          break;
        case 2:
          acc += BB(o) * 2.0;  // reads its plane: the plane's piece stays
          break;
        case 3:
          BB(o).assign(T(j));  // writes it unread: folds (the piece goes)
          break;
        case 4:
          break;  // an untouched plane: a run of rows
        default:
          BB(o) *= 3.0;  // constants only: the piece stays
          break;
      }
    }
    acc += BB.sum(0);
    kept.push_back(BB);
    if (kept.size() > 1) kept.erase(kept.begin());  // the last step's stack stays alive
  }
  kept.push_back(acc);
  Run run;
  run.bytes = bytes_of(kept);
  run.split = vm.runtime().profile().pass("split-fills");
  return run;
}

}  // namespace

TEST_CASE("split_fills: lattice_boltzmann's bounce-back accumulation equals ref byte for byte") {
  const cputest::TempDir dir;
  Draw d;
  d.k = 19;
  d.r = 12;
  d.c = 40;  // a plane over the pool's smallest buffer, the stack well over it
  d.steps = 3;
  d.ops.assign(19, 0);
  d.ops[0] = 4;  // plane 18 untouched, as lattice_boltzmann's plane 0
  const Run want = run_draw(d, "ref", "singleton", false, dir.path());
  for (const char* backend : {"ref", "cpu"}) {
    for (const char* fuser : {"greedy", "ilp"}) {
      CAPTURE(std::string(backend));
      CAPTURE(std::string(fuser));
      const Run off = run_draw(d, backend, fuser, false, dir.path());
      const Run on = run_draw(d, backend, fuser, true, dir.path());
      CHECK(off.bytes == want.bytes);
      CHECK(on.bytes == want.bytes);
      CHECK(off.split == 0);
      CHECK(on.split == 3);
    }
  }
}

TEST_CASE("split_fills: random stacks and per-plane updates compute what ref computes without the pass") {
  const cputest::TempDir dir;
  const int draws = std::getenv("ARRVM_TEST_FULL") != nullptr ? 300 : 40;
  int split_draws = 0;
  for (int seed = 0; seed < draws; ++seed) {
    std::mt19937_64 rng(static_cast<uint64_t>(seed) * 104729 + 5);
    const Draw d = draw(rng);
    CAPTURE(seed);
    CAPTURE(d.k);
    CAPTURE(d.r);
    CAPTURE(d.c);
    CAPTURE(d.whole_read_first);
    const Run want = run_draw(d, "ref", "singleton", false, dir.path());
    const std::string backend = seed % 2 == 0 ? "cpu" : "ref";
    const std::string fuser = seed % 4 < 2 ? "greedy" : "ilp";
    CAPTURE(backend);
    CAPTURE(fuser);
    const Run got = run_draw(d, backend, fuser, true, dir.path());
    CHECK(got.bytes == want.bytes);
    // Split in every step where a plane is touched before the whole stack.
    bool claims = false;
    for (int op : d.ops) claims = claims || op != 4;
    const bool expect = claims && !d.whole_read_first;
    CHECK(got.split == (expect ? static_cast<uint64_t>(d.steps) : 0u));
    split_draws += expect ? 1 : 0;
  }
  CHECK(split_draws >= draws / 2);
}
