// Row nests as a fusion decision (vm/row_nest.hpp, fusion/row_nests.hpp):
// on the batch of one Gauss elimination step (factor over (m), update over
// (m, n)), with FusionRules::row_nests every fuser but singleton runs the
// factor in its update's kernel (one kernel fewer), and check_partition
// accepts it; without the rule, or when the update's rows are shifted
// against the factor's, that block is refused and no fuser makes it.
#include <doctest/doctest.h>

#include <algorithm>
#include <string>
#include <string_view>

#include "fusion/algorithms.hpp"
#include "fusion/block_set.hpp"
#include "fusion/cost.hpp"
#include "fusion/graph.hpp"
#include "fusion/row_nests.hpp"
#include "tests/fusion_test_util.hpp"
#include "vm/row_nest.hpp"

using namespace fusion_test;
using arrvm::fusion::Graph;

namespace {

View box(BaseId b, int64_t n, int64_t r0, int64_t rows, int64_t c0, int64_t cols, int64_t row_stride) {
  View w;
  w.base = b;
  w.offset = r0 * n + c0;
  w.shape = Dims{rows, cols};
  w.stride = Dims{row_stride, 1};
  return w;
}

// a (m x n), f (m - 1): f = a[1:, 0] / a[0, 0]; a[1 + shift:, 0:] -= f[:, None] * a[0, 0:], with
// the update's rows `shift` below the factor's (0: Gauss; 1 reads rows the
// update wrote: no nest). Then frees f and the product.
Batch gauss_step(int64_t m, int64_t n, int64_t shift) {
  Batch b;
  const BaseId a = b.base(DType::Float64, m * n);
  const BaseId f = b.base(DType::Float64, m - 1 - shift);
  const BaseId t = b.base(DType::Float64, (m - 1 - shift) * n);
  const int64_t rows = m - 1 - shift;
  b.add(make(Opcode::Divide, view1(f, 0, rows), {v(view1(a, n, rows, n)), v(view1(a, 0, rows, 0))}));
  View fw;
  fw.base = f;
  fw.shape = Dims{rows, n};
  fw.stride = Dims{1, 0};
  b.add(make(Opcode::Multiply, box(t, n, 0, rows, 0, n, n), {v(fw), v(box(a, n, 0, rows, 0, n, 0))}));
  const View upd = box(a, n, 1 + shift, rows, 0, n, n);
  b.add(make(Opcode::Subtract, upd, {v(upd), v(box(t, n, 0, rows, 0, n, n))}));
  b.add(control(Opcode::Free, f));
  b.add(control(Opcode::Free, t));
  return b;
}

}  // namespace

TEST_CASE(
    "row nests: a Gauss step is one block under every fuser but singleton, only where the rules allow") {
  const auto cost = arrvm::fusion::make_cost_model("bohrium");
  arrvm::fusion::Options options;
  for (int64_t shift : {0, 1}) {
    const Batch batch = gauss_step(6, 5, shift);
    for (const arrvm::fusion::Algorithm& a : arrvm::fusion::algorithms()) {
      CAPTURE(shift);
      CAPTURE(std::string(a.name));
      int work_blocks[2] = {0, 0};
      for (bool allow : {false, true}) {
        CAPTURE(allow);
        const Graph g(batch.instrs, FusionRules{.row_nests = allow});
        const Partition p = arrvm::fusion::run_algorithm(a, g, *cost, options);
        CHECK(arrvm::fusion::check_partition(g, p) == "");
        for (const Block& blk : p.blocks) {
          bool work = false;
          for (uint32_t i : blk) work = work || !is_control(batch.instrs[i].op);
          work_blocks[allow] += work;
          // The factor (0) and the update (2) share a block only as a
          // legal nest (a fuser that keeps the product (1) apart from the
          // update may nest the factor with the product alone: legal
          // shifted too, the product reads row 0 only).
          const bool both = std::find(blk.begin(), blk.end(), 0u) != blk.end() &&
                            std::find(blk.begin(), blk.end(), 2u) != blk.end();
          if (both) CHECK((allow && shift == 0));
        }
      }
      if (shift == 0) {
        const bool nest = std::string_view(a.name) != "singleton";
        CHECK(work_blocks[1] == work_blocks[0] - (nest ? 1 : 0));
      } else {
        CHECK(work_blocks[1] <= work_blocks[0]);
      }
    }
    // The one-block partition itself: legal only for the unshifted step under the rule.
    for (bool allow : {false, true}) {
      const Graph g(batch.instrs, FusionRules{.row_nests = allow});
      const Partition one{{{0, 1, 2, 3, 4}}};
      CHECK((arrvm::fusion::check_partition(g, one) == "") == (allow && shift == 0));
    }
  }
}

TEST_CASE("row nests: the split puts the rows first and refuses other shapes") {
  const Batch batch = gauss_step(6, 5, 0);
  std::vector<uint32_t> rows, rest;
  const std::vector<uint32_t> all{0, 1, 2, 3, 4};
  REQUIRE(row_nest_split(batch.instrs, all, &rows, &rest));
  CHECK(rows == std::vector<uint32_t>{0});
  CHECK(rest == std::vector<uint32_t>{1, 2, 3, 4});
  CHECK(row_nest_legal(batch.instrs, rows, rest));
  // The rows alone, or the nest alone, are not nests.
  CHECK_FALSE(row_nest_split(batch.instrs, std::vector<uint32_t>{0, 3}, &rows, &rest));
  CHECK_FALSE(row_nest_split(batch.instrs, std::vector<uint32_t>{1, 2}, &rows, &rest));
  // Shifted: the same shapes, but illegal.
  const Batch shifted = gauss_step(6, 5, 1);
  REQUIRE(row_nest_split(shifted.instrs, all, &rows, &rest));
  CHECK_FALSE(row_nest_legal(shifted.instrs, rows, rest));
}
