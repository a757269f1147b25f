// Full batches cut at a repeat of their start (engine/batch_cut.hpp): a loop
// that never syncs fills batches that repeat, so they hit the merge cache
// and reuse their kernels, with the values of one flush at the end.
#include <doctest/doctest.h>

#include <arrvm/arrvm.hpp>
#include <string>
#include <vector>

#include "engine/batch_cut.hpp"
#include "engine/runtime.hpp"
#include "tests/cpu_test_util.hpp"

using arrvm::Array;
using arrvm::DType;

namespace {

// One step of an RK4-like update (several instructions of the same shape,
// so that a short window could match at the wrong phase).
void step(Array& x, const Array& a, double h) {
  const Array k1 = a * x - x * x;
  const Array k2 = a * (x + h / 2 * k1) - (x + h / 2 * k1) * (x + h / 2 * k1);
  const Array k3 = a * (x + h / 2 * k2) - (x + h / 2 * k2) * (x + h / 2 * k2);
  x = x + h / 6 * (k1 + 2.0 * k2 + 2.0 * k3);
}

std::vector<double> run(const std::string& backend, int64_t batch, const std::string& dir,
                        arrvm::Profile* profile) {
  arrvm::Vm vm({{"backend", backend},
                {"batch", std::to_string(batch)},
                {"eager", "off"},  // (64 elements: batched, as large work is)
                {"cache_dir", dir},
                {"log", "off"}});
  const Array a = Array::arange(0.0, 1.0, 1.0 / 64, DType::Float64, vm);  // (64 elements)
  Array x = Array::full({64}, 0.1, DType::Float64, vm);
  for (int i = 0; i < 300; ++i) step(x, a, 0.01);
  std::vector<double> v = x.to_vector<double>();
  *profile = vm.runtime().profile();
  return v;
}

}  // namespace

TEST_CASE("batch cut: the cut is where the rest starts as the batch started, past the setup") {
  using arrvm::Instruction;
  using arrvm::Opcode;
  // A setup of 5 instructions, then a body of 7 repeated; temporaries are
  // new bases each time (the merge key's renaming makes them alike).
  std::vector<Instruction> batch;
  arrvm::BaseId next = 100;
  auto add = [&](Opcode op, int64_t n, arrvm::BaseId in) {
    Instruction s;
    s.op = op;
    s.out = arrvm::contiguous_view(next++, DType::Float64, {n});
    if (in >= 0) s.add_input(arrvm::Operand::of(arrvm::contiguous_view(in, DType::Float64, {n})));
    batch.push_back(s);
  };
  for (int i = 0; i < 5; ++i) add(Opcode::Range, 10 + i, -1);
  for (int it = 0; it < 40; ++it) {
    const arrvm::BaseId x = next;
    add(Opcode::Range, 64, -1);
    add(Opcode::Sqrt, 64, x);
    add(Opcode::Exp, 64, x + 1);
    add(Opcode::Sqrt, 64, x + 2);
    add(Opcode::Exp, 64, x + 3);
    add(Opcode::Negative, 64, x + 4);
    add(Opcode::Sqrt, 64, x + 5);
  }
  // From the setup: no repeat of its first 24 instructions.
  CHECK(arrvm::periodic_cut(batch, batch.size() / 2) == 0);
  // From phase 3 of the body (the batch after a cut elsewhere): the largest
  // k with the same phase, leaving at least a window.
  const std::span<const Instruction> from(batch.data() + 5 + 3, batch.size() - 5 - 3);
  const std::size_t k = arrvm::periodic_cut(from, from.size() / 2);
  REQUIRE(k > 0);
  CHECK(k % 7 == 0);
  CHECK(k + arrvm::kCutWindow <= from.size());
  CHECK(k + arrvm::kCutWindow + 7 > from.size());
}

TEST_CASE(
    "batch cut: a loop that never syncs repeats its batches (merge cache hits), with one flush's values") {
  const cputest::TempDir dir;
  for (const char* backend : {"ref", "cpu"}) {
    CAPTURE(backend);
    arrvm::Profile whole, cut;
    const std::vector<double> want = run(backend, 1 << 20, dir.path(), &whole);
    const std::vector<double> got = run(backend, 500, dir.path(), &cut);
    CHECK(got == want);
    CHECK(whole.batches == 1);
    CHECK(cut.batches >= 10);
    CHECK(cut.batches_cut >= cut.batches - 2);
    // The first batch (with the setup) and the last differ; the others are alike.
    CHECK(cut.merge_cache_hits + 3 >= cut.batches);
  }
}
