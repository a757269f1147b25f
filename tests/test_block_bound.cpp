// Bounded kernels (engine/block_bound.hpp): a fused block with more views
// of surviving arrays than kMaxBlockViews is split, in program order, into
// parts under the limit, with the values of the whole.
#include <doctest/doctest.h>

#include <arrvm/arrvm.hpp>
#include <set>
#include <string>
#include <vector>

#include "engine/block_bound.hpp"
#include "engine/runtime.hpp"
#include "tests/cpu_test_util.hpp"

using arrvm::Array;
using arrvm::DType;
using arrvm::Slice;

namespace {

// out[o] += w[k] * x[k:k + 64] for every k: a convolution's loops, each
// update a view of its own. `chained`: out = out + ..., a new array each
// step, so that the steps are not independent lanes (rewrite/block_lanes.hpp
// cuts those into chunks of 8 before the bound is reached).
std::vector<double> conv(const std::string& backend, int taps, const std::string& dir,
                         arrvm::Profile* profile, bool chained = true) {
  arrvm::Vm vm(
      {{"backend", backend}, {"eager", "off"}, {"tiered", "off"}, {"cache_dir", dir}, {"log", "off"}});
  const Array x = Array::arange(0.0, taps + 64.0, 1.0, DType::Float64, vm) * 0.01;
  const Array w = Array::arange(0.0, static_cast<double>(taps), 1.0, DType::Float64, vm) * 0.5;
  Array out = Array::zeros({64}, DType::Float64, vm);
  for (int k = 0; k < taps; ++k) {
    if (chained) {
      out = out + w(Slice(k, k + 1)) * x(Slice(k, k + 64));
    } else {
      out += w(Slice(k, k + 1)) * x(Slice(k, k + 64));
    }
  }
  std::vector<double> v = out.to_vector<double>();
  *profile = vm.runtime().profile();
  return v;
}

}  // namespace

TEST_CASE("block bound: a 2000-instruction block splits into parts under the view limit, in program order") {
  using arrvm::Instruction;
  using arrvm::Opcode;
  std::vector<Instruction> batch;
  arrvm::Partition p;
  p.blocks.emplace_back();
  for (int k = 0; k < 2000; ++k) {  // out += x[k:k + 8] (a view of its own each)
    Instruction s;
    s.op = Opcode::Add;
    s.out = arrvm::contiguous_view(0, DType::Float64, {8});
    s.add_input(arrvm::Operand::of(arrvm::contiguous_view(0, DType::Float64, {8})));
    s.add_input(arrvm::Operand::of(arrvm::make_view(1, k, {8}, {1})));
    batch.push_back(s);
    p.blocks[0].push_back(static_cast<uint32_t>(1999 - k));  // (a block's order is not the batch's)
  }
  CHECK(arrvm::bound_blocks(batch, &p, arrvm::kMaxBlockViews) == 1);
  REQUIRE(p.blocks.size() > 1);
  uint32_t next = 0;
  for (const arrvm::Block& b : p.blocks) {
    std::set<int64_t> views;
    for (uint32_t i : b) {
      CHECK(i == next++);  // consecutive, in batch order
      views.insert(batch[i].in[1].view.offset);
    }
    CHECK(views.size() + 1 <= arrvm::kMaxBlockViews);  // (+ out's view)
  }
  CHECK(next == 2000);
  // A block under the limit is left alone.
  arrvm::Partition q;
  q.blocks.push_back({0, 1, 2});
  CHECK(arrvm::bound_blocks(batch, &q, arrvm::kMaxBlockViews) == 0);
  CHECK(q.blocks.size() == 1);
}

TEST_CASE("block bound: a convolution's loop of updates, split, has ref's values") {
  const cputest::TempDir dir;
  arrvm::Profile ref_p, cpu_p;
  const std::vector<double> want = conv("ref", 200, dir.path(), &ref_p);
  const std::vector<double> got = conv("cpu", 200, dir.path(), &cpu_p);
  CHECK(got == want);
  CHECK(cpu_p.blocks_bounded >= 1);
  CHECK(cpu_p.kernels_compiled >= 3);
  // In place, the taps are independent lanes: chunks of 8 of them, under
  // the bound, and the same values.
  arrvm::Profile ref_q, cpu_q;
  const std::vector<double> want_q = conv("ref", 200, dir.path(), &ref_q, false);
  const std::vector<double> got_q = conv("cpu", 200, dir.path(), &cpu_q, false);
  CHECK(got_q == want_q);
  CHECK(got_q == want);
  CHECK(cpu_q.pass("lanes") >= 1);
}
