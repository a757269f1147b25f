// Copies read in place of their source (rewrite/copy_forward.hpp): on
// batches built by hand, the copy goes exactly when nothing writes or frees
// its source before the temporary's last read and the temporary is a
// whole, freed, unsynced base read through its own view or a broadcast of
// its one element; and Gauss's loop written with `a(k, k).copy()` (what the
// Python binding issues for `a[k, k]`) gives the same bytes with the pass
// on and off, and on ref.
#include <doctest/doctest.h>

#include <cstring>
#include <string>
#include <vector>

#include "arrvm/arrvm.hpp"
#include "engine/runtime.hpp"
#include "rewrite/copy_forward.hpp"
#include "tests/ref_test_util.hpp"

using namespace arrvm;  // tests only
using reftest::free_of;
using reftest::in;
using reftest::make;
using reftest::num;
using reftest::same_view;
using reftest::whole;

namespace {

std::size_t forward(std::vector<Instruction>& batch) {
  std::vector<uint64_t> origin(batch.size());
  for (std::size_t i = 0; i < origin.size(); ++i) origin[i] = i;
  const std::size_t n = forward_copies(batch, origin);
  REQUIRE(origin.size() == batch.size());
  return n;
}

// a (base 1, 4x4); t (base 2) = a[1, 1], one element; f (base 3) = a[2:, 1] / t broadcast.
View a_elem() {
  return reftest::view(1, 5, {}, {});
}
View t_view() {
  return whole(2, Dims{});
}
View column() {
  return reftest::view(1, 9, {2}, {4});
}
// a[0, :] += 1: a write to a's base.
Instruction write_a() {
  return make(Opcode::Add, reftest::view(1, 0, {4}, {1}), {in(reftest::view(1, 0, {4}, {1})), num(1.0)});
}
std::vector<Instruction> factor_batch() {
  return {make(Opcode::Identity, t_view(), {in(a_elem())}),
          make(Opcode::Divide, whole(3, Dims{2}), {in(column()), in(reftest::view(2, 0, {2}, {0}))}),
          free_of(2, 1)};
}

}  // namespace

TEST_CASE("copy forward: a one-element copy read as a broadcast reads its source") {
  std::vector<Instruction> b = factor_batch();
  REQUIRE(forward(b) == 1);
  REQUIRE(b.size() == 2);
  CHECK(b[0].op == Opcode::Divide);
  CHECK(same_view(b[0].in[1].view, reftest::view(1, 5, {2}, {0})));  // a's element, zero strides
  CHECK(b[1].op == Opcode::Free);                                    // t's free stays: it was never written
}

TEST_CASE("copy forward: not when the source changes before the last read, or t is synced or kept") {
  SUBCASE("a written between") {
    std::vector<Instruction> b = factor_batch();
    b.insert(b.begin() + 1, write_a());
    CHECK(forward(b) == 0);
  }
  SUBCASE("a freed between") {
    std::vector<Instruction> b = factor_batch();
    b.insert(b.begin() + 1, free_of(1, 16));
    CHECK(forward(b) == 0);
  }
  SUBCASE("t synced") {
    std::vector<Instruction> b = factor_batch();
    b.insert(b.begin() + 2, make(Opcode::Sync, t_view()));
    CHECK(forward(b) == 0);
  }
  SUBCASE("t alive after the batch") {
    std::vector<Instruction> b = factor_batch();
    b.pop_back();
    CHECK(forward(b) == 0);
  }
  SUBCASE("t written again") {
    std::vector<Instruction> b = factor_batch();
    b.insert(b.begin() + 1, make(Opcode::Multiply, t_view(), {in(t_view()), num(2.0)}));
    CHECK(forward(b) == 0);
  }
  SUBCASE("a written after the last read: forwarded") {
    std::vector<Instruction> b = factor_batch();
    b.insert(b.begin() + 2, write_a());
    CHECK(forward(b) == 1);
  }
}

TEST_CASE("copy forward: a whole copy read through its own view reads the source's view") {
  const View src = reftest::view(1, 1, {3}, {4});  // a column of a
  std::vector<Instruction> b = {make(Opcode::Identity, whole(2, Dims{3}), {in(src)}),
                                make(Opcode::Multiply, whole(3, Dims{3}), {in(whole(2, Dims{3})), num(2.0)}),
                                free_of(2, 3)};
  REQUIRE(forward(b) == 1);
  CHECK(same_view(b[0].in[0].view, src));
  // Read through another view of t (its first two elements): kept.
  std::vector<Instruction> c = {
      make(Opcode::Identity, whole(2, Dims{3}), {in(src)}),
      make(Opcode::Multiply, whole(3, Dims{2}), {in(reftest::view(2, 0, {2}, {1})), num(2.0)}),
      free_of(2, 3)};
  CHECK(forward(c) == 0);
}

TEST_CASE("copy forward: Gauss with a(k, k).copy(), the same bytes on, off and on ref") {
  auto run = [](const std::string& backend, bool on, uint64_t* forwarded) {
    // (Scalar sin on cpu too: vector math's values are a few ulp from ref's.)
    const Vm vm({{"backend", backend},
                 {"passes", on ? "-vector-math" : "-vector-math,-forward-copies"},
                 {"cache", "memory"}});
    const int64_t n = 24;
    Array a = Array::arange(n * n, DType::Float64, vm).reshape({n, n});
    a = arrvm::sin(a * 0.37);
    Array diagonal = a.reshape({n * n})(Slice(0, {}, n + 1));
    diagonal += static_cast<double>(n);
    for (int64_t k = 0; k + 1 < n; ++k) {
      const Array pivot = a(k, k).copy();
      const Array factor = a(Slice(k + 1, {}), k) / pivot;
      a(Slice(k + 1, {}), Slice(k, {})) -= factor.reshape({n - k - 1, 1}) * a(k, Slice(k, {}));
    }
    const std::vector<double> v = a.to_vector<double>();
    *forwarded = vm.runtime().profile().pass("forward-copies");
    return v;
  };
  uint64_t on_n = 0, off_n = 0, ref_n = 0;
  const std::vector<double> on = run("cpu", true, &on_n), off = run("cpu", false, &off_n),
                            ref = run("ref", true, &ref_n);
  CHECK(on_n > 0);
  CHECK(off_n == 0);
  CHECK(std::memcmp(on.data(), off.data(), on.size() * sizeof(double)) == 0);
  CHECK(std::memcmp(on.data(), ref.data(), on.size() * sizeof(double)) == 0);
}
