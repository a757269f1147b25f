// Stores forwarded to their readers and dead stores dropped
// (rewrite/store_forward.hpp; lattice_boltzmann's `T[:] = F;
// T[1:] *= BOUND; BB[OPP[q]] += T[q]`, then the next step's `T[:] = F`):
// the rewrite itself, each condition that keeps a chain, and NumPy-style
// programs equal to ref byte for byte with the pass on and off, under
// greedy and ilp, with T's last value (no cover after it) kept.
#include <doctest/doctest.h>

#include <cstring>
#include <string>
#include <vector>

#include "arrvm/arrvm.hpp"
#include "engine/runtime.hpp"
#include "rewrite/store_forward.hpp"
#include "tests/cpu_test_util.hpp"
#include "tests/ref_test_util.hpp"

using namespace arrvm;  // tests only

namespace {

using reftest::free_of;
using reftest::make;
using reftest::num;
using reftest::same_view;
using reftest::whole;

const Dims kShape{4, 3, 5};

// Plane q of a (4, 3, 5) view.
View plane(const View& v, int64_t q) {
  return make_view(v.base, v.offset + q * v.stride[0], Dims{3, 5}, Dims{v.stride[1], v.stride[2]});
}

std::size_t forward(std::vector<Instruction>& batch, BaseId* next) {
  std::vector<uint64_t> origin(batch.size(), 0);
  return forward_stores(batch, origin, [&](DType, int64_t) { return (*next)++; });
}

// T (1) = F (2); T *= B (3, (3, 5) broadcast); BB (4) planes 3, 2 += T
// planes 0, 1; then `extra`; then the cover T = F.
std::vector<Instruction> bounce(const std::vector<Instruction>& extra = {}) {
  const View T = whole(1, kShape), F = whole(2, kShape), BB = whole(4, kShape);
  const View B = make_view(3, 0, kShape, Dims{0, 5, 1});
  std::vector<Instruction> b = {
      make(Opcode::Identity, T, {Operand::of(F)}),
      make(Opcode::Multiply, T, {Operand::of(T), Operand::of(B)}),
      make(Opcode::Add, plane(BB, 3), {Operand::of(plane(BB, 3)), Operand::of(plane(T, 0))}),
      make(Opcode::Add, plane(BB, 2), {Operand::of(plane(BB, 2)), Operand::of(plane(T, 1))}),
  };
  b.insert(b.end(), extra.begin(), extra.end());
  b.push_back(make(Opcode::Identity, T, {Operand::of(F)}));
  return b;
}

}  // namespace

TEST_CASE("forward_stores: each plane read is computed from F and B, the chain goes") {
  std::vector<Instruction> b = bounce();
  BaseId next = 100;
  CHECK(forward(b, &next) == 2);  // T = F and T *= B
  REQUIRE(b.size() == 9);
  const View F = whole(2, kShape);
  // u (100) = F[0]; u *= B[0]; BB[3] += u; free u; the same with v (101) for plane 1; the cover.
  CHECK(b[0].op == Opcode::Identity);
  CHECK(same_view(b[0].out, whole(100, Dims{3, 5})));
  CHECK(same_view(b[0].in[0].view, plane(F, 0)));
  CHECK(b[1].op == Opcode::Multiply);
  CHECK(same_view(b[1].out, whole(100, Dims{3, 5})));
  CHECK(same_view(b[1].in[0].view, whole(100, Dims{3, 5})));
  CHECK(same_view(b[1].in[1].view, make_view(3, 0, Dims{3, 5}, Dims{5, 1})));
  CHECK(same_view(b[2].in[1].view, whole(100, Dims{3, 5})));
  CHECK(b[3].op == Opcode::Free);
  CHECK(same_view(b[3].out, whole(100, Dims{15})));
  CHECK(same_view(b[4].in[0].view, plane(F, 1)));
  CHECK(same_view(b[6].in[1].view, whole(101, Dims{3, 5})));
  CHECK(b[7].op == Opcode::Free);
  CHECK(same_view(b[8].out, whole(1, kShape)));  // the cover stays
}

TEST_CASE("forward_stores: a store nothing reads before it is overwritten is dropped") {
  std::vector<Instruction> b = {
      make(Opcode::Identity, whole(1, kShape), {Operand::of(whole(2, kShape))}),
      make(Opcode::Add, plane(whole(4, kShape), 0), {Operand::of(plane(whole(1, kShape), 0)), num(1)}),
      make(Opcode::Identity, whole(1, kShape), {num(0.0)}),
      make(Opcode::Identity, whole(1, kShape), {num(1.0)})};
  BaseId next = 100;
  // The first is read (forwarded); the fill of 0.0 is overwritten unread (dropped).
  CHECK(forward(b, &next) == 2);
  REQUIRE(b.size() == 4);
  CHECK(b[0].out.base == 100);
  CHECK(b[1].in[0].view.base == 100);
  CHECK(b[2].op == Opcode::Free);
  CHECK(b[3].in[0].is_const);
}

TEST_CASE("forward_stores: what keeps a chain") {
  const View T = whole(1, kShape), F = whole(2, kShape);
  auto unchanged = [](std::vector<Instruction> b) {
    const std::size_t size = b.size();
    BaseId next = 100;
    CHECK(forward(b, &next) == 0);
    CHECK(b.size() == size);
  };
  {  // No cover: T's values are what the batch leaves.
    std::vector<Instruction> b = bounce();
    b.pop_back();
    unchanged(b);
  }
  // T synced (read whole by the host) before the cover.
  unchanged(bounce({make(Opcode::Sync, T, {})}));
  // F written between the chain and a reader: the reader would see the new F.
  {
    std::vector<Instruction> b = bounce();
    b.insert(b.begin() + 3, make(Opcode::Add, F, {Operand::of(F), num(1)}));
    unchanged(b);
  }
  // Another read of T that is no plane or rows of W (a shifted view).
  unchanged(bounce({make(Opcode::Identity, whole(5, Dims{3, 5}),
                         {Operand::of(make_view(1, 1, Dims{3, 5}, Dims{5, 1}))})}));
  // A write into W that is not the chain's (plane 2 of T updated).
  unchanged(bounce({make(Opcode::Add, plane(T, 2), {Operand::of(plane(T, 2)), num(1)})}));
  // A reduction reads T: not elementwise.
  {
    Instruction sum = make(Opcode::AddReduce, whole(6, Dims{3, 5}), {Operand::of(T)});
    sum.axis = 0;
    unchanged(bounce({sum}));
  }
}

namespace {

struct Run {
  std::vector<uint8_t> result;
  uint64_t dropped = 0, kernels = 0;
};

// lattice_boltzmann's bounce-back and streaming over a small lattice, the
// way the NumPy original writes it: T is the program's own array.
Run bounce_back(const std::string& backend, const std::string& fuser, bool on, const std::string& dir) {
  const Vm vm({{"backend", backend},
               {"fuser", fuser},
               {"passes", on ? "default" : "-forward-stores"},
               {"cache_dir", dir}});
  const int64_t q = 7, n = 6;
  const int opposite[7] = {0, 2, 1, 4, 3, 6, 5};
  std::vector<double> fv(q * n * n), bv(n * n);
  for (std::size_t i = 0; i < fv.size(); ++i) fv[i] = 1.0 / static_cast<double>(i + 2);
  for (std::size_t i = 0; i < bv.size(); ++i) bv[i] = i % n == 0 ? 1.0 : 0.0;
  Array F = Array::from_host(fv, {q, n, n}, vm);
  const Array bound = Array::from_host(bv, {n, n}, vm);
  Array T = Array::zeros({q, n, n}, DType::Float64, vm);
  vm.flush();
  const uint64_t k0 = vm.runtime().profile().kernels_launched,
                 d0 = vm.runtime().profile().pass("forward-stores");
  for (int step = 0; step < 4; ++step) {
    T.assign(F);
    for (int p = 1; p < q; ++p) F(p).assign(T(p) * 0.5 + T(p - 1) * 0.25);  // a stand-in for streaming
    const Array BB = Array::zeros({q, n, n}, DType::Float64, vm);
    T.assign(F);
    T(Slice(1, {})) *= bound;
    for (int p = 1; p < q; ++p) BB(opposite[p]) += T(p);
    F *= 0.5;
    F(Slice(1, {})) += BB(Slice(1, {}));
  }
  Run r;
  r.result = cputest::float64_bytes(F);
  const std::vector<uint8_t> t = cputest::float64_bytes(T);  // T's last value: no cover after it
  r.result.insert(r.result.end(), t.begin(), t.end());
  const Profile& p = vm.runtime().profile();
  r.dropped = p.pass("forward-stores") - d0;
  r.kernels = p.kernels_launched - k0;
  return r;
}

}  // namespace

TEST_CASE("lattice_boltzmann's bounce-back with T forwarded equals ref byte for byte, T's last value kept") {
  const cputest::TempDir dir;
  const Run want = bounce_back("ref", "singleton", false, dir.path());
  CHECK(bounce_back("ref", "singleton", true, dir.path()).result == want.result);
  for (const char* fuser : {"greedy", "ilp"}) {
    CAPTURE(std::string(fuser));
    const Run off = bounce_back("cpu", fuser, false, dir.path());
    const Run on = bounce_back("cpu", fuser, true, dir.path());
    CHECK(off.result == want.result);
    CHECK(on.result == want.result);
    CHECK(on.dropped > off.dropped);
    CHECK(on.kernels < off.kernels);
  }
}
