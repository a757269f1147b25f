// Internal to the ref backend: the loops its kernels iterate views with
// (backends/ref/ref_kernels.cpp): every index of a shape in row-major order
// with incremental offsets, the same in tiles for elementwise operands
// transposed within their last two axes, and the tests of a view's layout.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdlib>

#include "vm/view.hpp"

namespace arrvm::ref {

// Calls body(offsets) for every index of `shape` in row-major order, where
// offsets[k] = start[k] + sum_d index[d] * strides[k][d]. Nothing for a zero-size
// shape, once for rank 0. Offsets are updated incrementally (strides may be
// zero or negative).
template <std::size_t N, typename Body>
void for_each_index(const Dims& shape, std::array<int64_t, N> start,
                    const std::array<const Dims*, N>& strides, Body&& body) {
  const int rank = shape.size();
  for (int d = 0; d < rank; ++d) {
    if (shape[d] == 0) return;
  }
  if (rank == 0) {
    body(start);
    return;
  }
  const int last = rank - 1;
  const int64_t inner = shape[last];
  std::array<int64_t, N> inner_step;
  for (std::size_t k = 0; k < N; ++k) inner_step[k] = (*strides[k])[last];
  std::array<int64_t, kMaxRank> index{};
  // Offsets only ever step to an element the view has (never one past its
  // end): a stride of any size on an axis of length 1, which validation
  // allows, must not overflow.
  for (;;) {
    std::array<int64_t, N> off = start;
    for (int64_t i = 0;;) {
      body(off);
      if (++i == inner) break;
      for (std::size_t k = 0; k < N; ++k) off[k] += inner_step[k];
    }
    // Advance the outer axes like an odometer.
    int d = last - 1;
    for (; d >= 0; --d) {
      if (++index[d] < shape[d]) {
        for (std::size_t k = 0; k < N; ++k) start[k] += (*strides[k])[d];
        break;
      }
      for (std::size_t k = 0; k < N; ++k) start[k] -= (*strides[k])[d] * (shape[d] - 1);
      index[d] = 0;
    }
    if (d < 0) return;
  }
}

// for_each_index for an elementwise instruction, whose elements may run in
// any order (an input is either the output's very view or apart from it:
// docs/semantics.md). When an operand steps along the second-last axis by
// one element and along the last by more (a transposed matrix: `X.T * v`),
// row-major order reads it a column at a time, a cache line an element,
// and a large matrix is read again for every row of the output. Then tiles
// of kTile rows run a column at a time: both the transposed operand and
// the output use each line they load.
template <std::size_t N, typename Body>
void for_each_element(const Dims& shape, std::array<int64_t, N> start,
                      const std::array<const Dims*, N>& strides, Body&& body) {
  constexpr int64_t kTile = 16;
  const int rank = shape.size();
  bool transposed = false;
  for (std::size_t k = 0; rank >= 2 && k < N; ++k) {
    const int64_t row = std::abs((*strides[k])[rank - 2]), col = std::abs((*strides[k])[rank - 1]);
    transposed = transposed || (row == 1 && col > 1);
  }
  if (!transposed || shape[rank - 2] < 2 || shape[rank - 1] < 2) {
    for_each_index<N>(shape, start, strides, body);
    return;
  }
  const Dims outer = shape.without(rank - 1).without(rank - 2);
  std::array<Dims, N> outer_strides;
  std::array<const Dims*, N> outer_ptrs;
  for (std::size_t k = 0; k < N; ++k) {
    outer_strides[k] = strides[k]->without(rank - 1).without(rank - 2);
    outer_ptrs[k] = &outer_strides[k];
  }
  const int64_t rows = shape[rank - 2], cols = shape[rank - 1];
  for_each_index<N>(outer, start, outer_ptrs, [&](const std::array<int64_t, N>& base) {
    for (int64_t r0 = 0; r0 < rows; r0 += kTile) {
      const int64_t r1 = std::min(rows, r0 + kTile);
      for (int64_t c = 0; c < cols; ++c) {
        std::array<int64_t, N> off;
        for (std::size_t k = 0; k < N; ++k)
          off[k] = base[k] + r0 * (*strides[k])[rank - 2] + c * (*strides[k])[rank - 1];
        for (int64_t r = r0;;) {
          body(off);
          if (++r == r1) break;
          for (std::size_t k = 0; k < N; ++k) off[k] += (*strides[k])[rank - 2];
        }
      }
    }
  });
}

// Whether a view of `shape` with `stride` holds its elements in row-major
// order at consecutive addresses (axes of length 1 move nowhere).
inline bool dense(const Dims& shape, const Dims& stride) {
  int64_t expect = 1;
  for (int d = shape.size() - 1; d >= 0; --d) {
    if (shape[d] != 1 && stride[d] != expect) return false;
    expect *= shape[d];
  }
  return true;
}

// Whether every stride is 0 (a constant, or one element broadcast).
inline bool single(const Dims& stride) {
  for (int d = 0; d < stride.size(); ++d) {
    if (stride[d] != 0) return false;
  }
  return true;
}

// Element offset of the flat (row-major) index f of a view of `shape`.
inline int64_t flat_to_offset(int64_t f, int64_t offset, const Dims& shape, const Dims& stride) {
  for (int d = shape.size() - 1; d >= 0; --d) {
    offset += (f % shape[d]) * stride[d];
    f /= shape[d];
  }
  return offset;
}

}  // namespace arrvm::ref
