// The reduction-and-scan program that every backend test runs against
// hand-computed values and ref (tests/test_cpu_reduce.cpp,
// tests/test_opencl_reduce.cpp), and the small view/instruction builders the
// backend tests share.
#pragma once

#include <doctest/doctest.h>

#include <cstdint>
#include <vector>

#include "engine/runtime.hpp"
#include "vm/view.hpp"

namespace reduceprog {

inline arrvm::View typed_view(arrvm::BaseId b, arrvm::DType t, int64_t off, arrvm::Dims shape,
                              arrvm::Dims stride) {
  arrvm::View v = arrvm::make_view(b, off, shape, stride);
  v.dtype = t;
  return v;
}

inline arrvm::Instruction unary(arrvm::Opcode op, const arrvm::View& out, const arrvm::View& in,
                                int axis = 0) {
  arrvm::Instruction i;
  i.op = op;
  i.out = out;
  i.add_input(arrvm::Operand::of(in));
  i.axis = axis;
  return i;
}

inline constexpr int64_t kRows = 300, kCols = 200;  // 60000 elements: parallel on every backend

// x[r][c] = r * kCols + c as int64; returns, in order: row sums (axis 1),
// column sums (axis 0), column sums via the transposed view, total (0-d),
// cumulative sum along rows (flattened), sum over an empty axis (3 zeros),
// multiply-reduce of a never-written base (4 zeros).
inline std::vector<std::vector<int64_t>> run(arrvm::Runtime& rt) {
  using namespace arrvm;
  const DType t = DType::Int64;
  const BaseId x = rt.new_base(t, kRows * kCols);
  std::vector<int64_t> data(kRows * kCols);
  for (int64_t i = 0; i < kRows * kCols; ++i) data[i] = i;
  rt.write(x, data.data(), data.size() * 8);
  const View xv = typed_view(x, t, 0, {kRows, kCols}, {kCols, 1});
  const View xt = typed_view(x, t, 0, {kCols, kRows}, {1, kCols});
  std::vector<BaseId> outs;
  auto out = [&](int64_t n) {
    outs.push_back(rt.new_base(t, n));
    return outs.back();
  };
  BaseId o = out(kRows);
  rt.issue(unary(Opcode::AddReduce, typed_view(o, t, 0, {kRows}, {1}), xv, 1));
  o = out(kCols);
  rt.issue(unary(Opcode::AddReduce, typed_view(o, t, 0, {kCols}, {1}), xv, 0));
  o = out(kCols);
  rt.issue(unary(Opcode::AddReduce, typed_view(o, t, 0, {kCols}, {1}), xt, 1));
  o = out(1);
  rt.issue(
      unary(Opcode::AddReduce, typed_view(o, t, 0, {}, {}), typed_view(x, t, 0, {kRows * kCols}, {1}), 0));
  o = out(kRows * kCols);
  rt.issue(unary(Opcode::AddAccumulate, typed_view(o, t, 0, {kRows, kCols}, {kCols, 1}), xv, 1));
  o = out(3);
  rt.issue(unary(Opcode::AddReduce, typed_view(o, t, 0, {3}, {1}), typed_view(x, t, 0, {3, 0}, {1, 1}), 1));
  const BaseId unwritten = rt.new_base(t, 8);
  o = out(4);
  rt.issue(unary(Opcode::MultiplyReduce, typed_view(o, t, 0, {4}, {1}),
                 typed_view(unwritten, t, 0, {4, 2}, {2, 1}), 1));
  std::vector<std::vector<int64_t>> r;
  for (BaseId b : outs) {
    std::vector<int64_t> v(static_cast<std::size_t>(rt.bases().find(b)->nelem));
    rt.read(b, v.data(), v.size() * 8);
    r.push_back(std::move(v));
  }
  return r;
}

// Checks run()'s results against their closed forms.
inline void check_hand_values(const std::vector<std::vector<int64_t>>& got) {
  REQUIRE(got.size() == 7);
  for (int64_t r = 0; r < kRows; ++r) CHECK(got[0][r] == r * kCols * kCols + kCols * (kCols - 1) / 2);
  for (int64_t c = 0; c < kCols; ++c) {
    CHECK(got[1][c] == kCols * kRows * (kRows - 1) / 2 + c * kRows);
    CHECK(got[2][c] == got[1][c]);
  }
  const int64_t n = kRows * kCols;
  CHECK(got[3][0] == n * (n - 1) / 2);
  for (int64_t r = 0; r < kRows; r += 37) {
    for (int64_t c = 0; c < kCols; c += 13) {
      const int64_t base = r * kCols;  // sum of base + 0 .. base + c
      CHECK(got[4][r * kCols + c] == (c + 1) * base + c * (c + 1) / 2);
    }
  }
  CHECK(got[5] == std::vector<int64_t>{0, 0, 0});
  CHECK(got[6] == std::vector<int64_t>{0, 0, 0, 0});
}

}  // namespace reduceprog
