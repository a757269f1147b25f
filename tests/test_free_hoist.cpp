// Frees right after their base's last use (rewrite/free_hoist.hpp): on
// batches built by hand, a free moves up to just after the last instruction
// touching its base, past others and not past that one, keeping its order
// with frees moved to the same point and the origins parallel; a free of a
// base not touched before it stays. Gauss elimination in Python's order
// (each step's factor freed after the next step's divide) gives the same
// bytes with the pass on and off, on cpu and ref, and with it on contracts
// the factors and launches fewer kernels.
#include <doctest/doctest.h>

#include <cstring>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "arrvm/arrvm.hpp"
#include "engine/runtime.hpp"
#include "rewrite/free_hoist.hpp"
#include "tests/ref_test_util.hpp"

using namespace arrvm;  // tests only
using reftest::free_of;
using reftest::in;
using reftest::make;
using reftest::num;
using reftest::vec;

namespace {

// The batch's opcodes and base ids ("add2 free1 ..."), and origin parallel to it.
std::string shape_of(const std::vector<Instruction>& b) {
  std::string s;
  for (const Instruction& in : b) {
    s += std::string(s.empty() ? "" : " ") +
         (in.op == Opcode::Free   ? "free"
          : in.op == Opcode::Sync ? "sync"
                                  : "op") +
         std::to_string(in.out.base);
  }
  return s;
}

std::size_t hoist(std::vector<Instruction>& b) {
  std::vector<uint64_t> origin(b.size());
  for (std::size_t i = 0; i < origin.size(); ++i) origin[i] = 100 + i;
  const std::vector<Instruction> before = b;
  const std::size_t n = hoist_frees(b, origin);
  REQUIRE(origin.size() == b.size());
  for (std::size_t i = 0; i < b.size(); ++i) {  // origin follows its instruction
    CHECK(shape_of({b[i]}) == shape_of({before[origin[i] - 100]}));
  }
  return n;
}

Instruction op(BaseId out, BaseId from) {
  return make(Opcode::Multiply, vec(out, 4), {in(vec(from, 4)), num(2.0)});
}

}  // namespace

TEST_CASE("early frees: a loop's temporary freed one step late moves up to its last use") {
  // f1 = a * 2; b = f1 * 2; f2 = a * 2; free f1 (Python: `f = ...` drops the old f here)
  std::vector<Instruction> b = {op(1, 0), op(3, 1), op(2, 0), free_of(1, 4), op(3, 2), free_of(2, 4)};
  CHECK(hoist(b) == 1);
  CHECK(shape_of(b) == "op1 op3 free1 op2 op3 free2");
}

TEST_CASE("early frees: what stays") {
  SUBCASE("already after its last use") {
    std::vector<Instruction> b = {op(1, 0), op(3, 1), free_of(1, 4), op(2, 0)};
    CHECK(hoist(b) == 0);
    CHECK(shape_of(b) == "op1 op3 free1 op2");
  }
  SUBCASE("a base the batch does not touch before its free") {
    std::vector<Instruction> b = {op(2, 0), op(3, 2), free_of(1, 4)};
    CHECK(hoist(b) == 0);
    CHECK(shape_of(b) == "op2 op3 free1");
  }
  SUBCASE("separated from its last use by frees only") {
    std::vector<Instruction> b = {op(1, 0), op(2, 1), free_of(2, 4), free_of(1, 4)};
    CHECK(hoist(b) == 0);
    CHECK(shape_of(b) == "op1 op2 free2 free1");
  }
  SUBCASE("a sync is a use") {
    std::vector<Instruction> b = {op(1, 0), make(Opcode::Sync, vec(1, 4)), op(2, 0), free_of(1, 4)};
    CHECK(hoist(b) == 1);
    CHECK(shape_of(b) == "op1 sync1 free1 op2");
  }
  SUBCASE("a read as an input is a use") {
    std::vector<Instruction> b = {op(1, 0), op(2, 0), op(3, 1), op(4, 2), free_of(1, 4)};
    CHECK(hoist(b) == 1);
    CHECK(shape_of(b) == "op1 op2 op3 free1 op4");
  }
}

TEST_CASE("early frees: frees moved to one point keep their order; an untouched free stays") {
  std::vector<Instruction> b = {op(1, 0),      op(2, 1),      free_of(7, 4), op(3, 0),
                                free_of(2, 4), free_of(1, 4), op(4, 3)};
  // 7 is untouched (stays); 2 and 1 both go behind op2, in their order.
  CHECK(hoist(b) == 2);
  CHECK(shape_of(b) == "op1 op2 free2 free1 free7 op3 op4");
}

TEST_CASE("early frees: within 32 instructions of the last use, not farther") {
  for (const BaseId between : {31, 32, 33}) {
    CAPTURE(between);
    std::vector<Instruction> b = {op(1, 0)};
    for (BaseId k = 0; k < between; ++k) b.push_back(op(10 + k, 0));
    b.push_back(free_of(1, 4));   // last use: position 0
    b.push_back(free_of(99, 4));  // never touched: stays
    b.push_back(op(2, 0));
    const bool near = between <= 31;  // (op1 among the 32 before the free)
    CHECK(hoist(b) == (near ? 1u : 0u));
    CHECK(shape_of({b[0], b[1]}) == (near ? "op1 free1" : "op1 op10"));
    CHECK(b[b.size() - 2].out.base == 99);
  }
}

TEST_CASE("early frees: random batches keep every other instruction's order and free after the last use") {
  std::mt19937 rng(7);
  for (int round = 0; round < 300; ++round) {
    // Bases 0..11; each freed at most once, at a random point after its uses so far.
    std::vector<Instruction> b;
    std::vector<char> freed(12, 0);
    const int n = 1 + static_cast<int>(rng() % 80);
    for (int k = 0; k < n; ++k) {
      const BaseId x = static_cast<BaseId>(rng() % 12), y = static_cast<BaseId>(rng() % 12);
      if (rng() % 3 == 0) {
        if (!freed[x]) b.push_back(free_of(x, 4));
        freed[x] = 1;
      } else if (!freed[x] && !freed[y]) {
        b.push_back(op(x, y));
      }
    }
    const std::vector<Instruction> before = b;
    hoist(b);
    REQUIRE(b.size() == before.size());
    // The instructions that are not frees, in their order.
    std::string ops_before, ops_after;
    for (const Instruction& in : before) ops_before += in.op == Opcode::Free ? "" : shape_of({in}) + " ";
    for (const Instruction& in : b) ops_after += in.op == Opcode::Free ? "" : shape_of({in}) + " ";
    CHECK(ops_after == ops_before);
    // Every free after its base's last use, and right after it (frees aside)
    // when that is within the look-back window.
    for (std::size_t i = 0; i < b.size(); ++i) {
      if (b[i].op != Opcode::Free) continue;
      const BaseId x = b[i].out.base;
      std::size_t last = b.size();
      for (std::size_t j = 0; j < b.size(); ++j) {
        if (b[j].op != Opcode::Free && (b[j].out.base == x || b[j].in[0].view.base == x)) last = j;
      }
      if (last == b.size()) continue;
      CHECK(last < i);
      std::size_t crossed = 0;
      for (std::size_t j = last + 1; j < i; ++j) crossed += b[j].op != Opcode::Free;
      CHECK((crossed == 0 || i - last > 32));  // (not moved: its last use out of the window)
    }
  }
}

TEST_CASE("early frees: Gauss in Python's order, the same bytes on, off and on ref; factors contracted") {
  struct Run {
    std::vector<double> bytes;
    uint64_t hoisted = 0, blocks = 0, launched = 0, contracted = 0;
  };
  auto run = [](const std::string& backend, bool on) {
    // (Scalar sin on cpu too: vector math's values are a few ulp from ref's.)
    const Vm vm({{"backend", backend},
                 {"passes", on ? "-vector-math" : "-vector-math,-early-frees"},
                 {"cache", "memory"},
                 {"eager", "off"},     // (batched, not run at once: small arrays)
                 {"tiered", "off"}});  // (compiled before they run: launches, contractions)
    const int64_t n = 24;
    Array a = Array::arange(n * n, DType::Float64, vm).reshape({n, n});
    a = arrvm::sin(a * 0.37);
    Array diagonal = a.reshape({n * n})(Slice(0, {}, n + 1));
    diagonal += static_cast<double>(n);
    std::optional<Array> factor;  // Python's name: the old factor dies when the new one is bound
    for (int64_t k = 0; k + 1 < n; ++k) {
      Array next = a(Slice(k + 1, {}), k) / a(k, k).copy();
      factor = next;
      a(Slice(k + 1, {}), Slice(k, {})) -= factor->reshape({n - k - 1, 1}) * a(k, Slice(k, {}));
    }
    factor.reset();
    const arrvm::Profile before = vm.runtime().profile();
    Run r;
    r.bytes = a.to_vector<double>();
    const arrvm::Profile& p = vm.runtime().profile();
    r.hoisted = p.pass("early-frees");
    r.blocks = p.blocks - before.blocks;
    r.launched = p.kernels_launched - before.kernels_launched;
    r.contracted = p.arrays_contracted - before.arrays_contracted;
    return r;
  };
  const Run on = run("cpu", true), off = run("cpu", false), ref = run("ref", true);
  CHECK(on.hoisted >= 22);  // every step's factor but the last one's
  CHECK(off.hoisted == 0);
  CHECK(on.contracted > off.contracted);
  CHECK(on.blocks < off.blocks);
  CHECK(on.launched < off.launched);
  MESSAGE("Gauss 24x24, Python's order: blocks ", on.blocks, " / ", off.blocks, ", launches ", on.launched,
          " / ", off.launched, ", arrays contracted ", on.contracted, " / ", off.contracted,
          " (early-frees on / off)");
  REQUIRE(on.bytes.size() == off.bytes.size());
  CHECK(std::memcmp(on.bytes.data(), off.bytes.data(), on.bytes.size() * sizeof(double)) == 0);
  CHECK(std::memcmp(on.bytes.data(), ref.bytes.data(), on.bytes.size() * sizeof(double)) == 0);
}
