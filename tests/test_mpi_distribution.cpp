// The mpi backend's index arithmetic (backends/mpi/distribution.hpp), against
// brute force: no MPI needed.
#include <doctest/doctest.h>

#include <map>
#include <random>
#include <set>

#include "backends/mpi/distribution.hpp"

using namespace arrvm;  // tests only
using namespace arrvm::mpi;

namespace {

// Every iteration point of v (as its row-major number) whose element is in [lo, hi).
std::set<int64_t> brute_force(const View& v, int64_t lo, int64_t hi) {
  std::set<int64_t> pts;
  int64_t j = 0;
  for_each_element(v, full_box(v.shape), [&](int64_t e) {
    if (lo <= e && e < hi) pts.insert(j);
    ++j;
  });
  return pts;
}

std::set<int64_t> from_boxes(const View& v, const std::vector<Box>& boxes, bool* disjoint) {
  std::set<int64_t> pts;
  const View index = make_view(0, 0, v.shape, row_major_strides(v.shape));
  *disjoint = true;
  for (const Box& b : boxes) {
    for_each_element(index, b, [&](int64_t j) { *disjoint = pts.insert(j).second && *disjoint; });
  }
  return pts;
}

}  // namespace

TEST_CASE("even distribution and owner") {
  const Distribution d = Distribution::even(10, 4);
  CHECK(d.bounds == std::vector<int64_t>{0, 2, 5, 7, 10});
  CHECK(d.owner(0) == 0);
  CHECK(d.owner(4) == 1);
  CHECK(d.owner(9) == 3);
  const Distribution e = Distribution::even(2, 4);  // ranks without elements
  CHECK(e.owner(0) == 1);
  CHECK(e.owner(1) == 3);
}

TEST_CASE("owned_boxes of a row-major interior view: at most three boxes") {
  // The interior of a 6x6 grid, rows 1..4, columns 1..4, owned elements
  // [14, 27): the end of row 1 (14..16), all of row 2 (19..22), the start of
  // row 3 (25, 26).
  const View v = make_view(0, 7, {4, 4}, {6, 1});
  const auto boxes = owned_boxes(v, 14, 27);
  CHECK(boxes.size() == 3);
  bool disjoint = false;
  CHECK(from_boxes(v, boxes, &disjoint) == brute_force(v, 14, 27));
  CHECK(disjoint);
}

TEST_CASE("owned_boxes equals brute force on random views (strides of any sign, transposes, broadcasts)") {
  std::mt19937_64 rng(7);
  auto pick = [&](int64_t a, int64_t b) { return std::uniform_int_distribution<int64_t>(a, b)(rng); };
  for (int iter = 0; iter < 3000; ++iter) {
    const int rank = static_cast<int>(pick(0, 3));
    Dims shape, stride;
    for (int k = 0; k < rank; ++k) {
      shape.push_back(pick(0, 5));
      stride.push_back(pick(-7, 7));
    }
    View v = make_view(0, pick(0, 60), shape, stride);
    int64_t lo = pick(-5, 70), hi = lo + pick(0, 40);
    bool disjoint = false;
    const auto boxes = owned_boxes(v, lo, hi);
    INFO(to_string(v), " [", lo, ", ", hi, ")");
    CHECK(from_boxes(v, boxes, &disjoint) == brute_force(v, lo, hi));
    // Broadcast views may map two points to one element, never one point twice.
    CHECK(disjoint);
  }
}

TEST_CASE("aligned: a monotone view's element j goes to the owner of its j-th element") {
  std::mt19937_64 rng(11);
  auto pick = [&](int64_t a, int64_t b) { return std::uniform_int_distribution<int64_t>(a, b)(rng); };
  int tried = 0;
  for (int iter = 0; iter < 2000; ++iter) {
    const int rank = static_cast<int>(pick(1, 3));
    Dims shape, stride;
    for (int k = 0; k < rank; ++k) {
      shape.push_back(pick(1, 5));
      stride.push_back(pick(0, 9));
    }
    const View v = make_view(0, pick(0, 10), shape, stride);
    if (!is_monotone(v)) continue;
    ++tried;
    int64_t lo, hi;
    REQUIRE(element_range(v, &lo, &hi));
    const int ranks = static_cast<int>(pick(1, 5));
    const Distribution d = Distribution::even(hi + 1 + pick(0, 5), ranks);
    const Distribution a = aligned(v, d);
    REQUIRE(a.nelem() == v.nelem());
    int64_t j = 0;
    for_each_element(v, full_box(v.shape), [&](int64_t e) {
      CHECK(a.owner(j) == d.owner(e));
      ++j;
    });
  }
  CHECK(tried > 100);
}

TEST_CASE("is_monotone") {
  CHECK(is_monotone(make_view(0, 7, {4, 4}, {6, 1})));
  CHECK(is_monotone(make_view(0, 0, {4, 4}, {1, 0})));        // a broadcast column
  CHECK_FALSE(is_monotone(make_view(0, 0, {4, 4}, {1, 4})));  // a transpose
  CHECK_FALSE(is_monotone(make_view(0, 9, {4}, {-1})));
}

TEST_CASE("row_bounds: each rank's rows are those whose first element it owns, else the even split") {
  // (9 x 13) row-major over 117 elements on 3 ranks: [0, 39), [39, 78), [78, 117).
  const Distribution d = Distribution::even(117, 3);
  const View a = make_view(0, 0, Dims{9, 13}, Dims{13, 1});
  const std::vector<int64_t> rows = row_bounds(a, d, 3);
  CHECK(rows == std::vector<int64_t>{0, 3, 6, 9});  // row 3 starts at 39, row 6 at 78
  for (int q = 0; q < 3; ++q) {
    for (int64_t r = rows[q]; r < rows[q + 1]; ++r) CHECK(d.owner(r * 13) == q);
  }
  // The interior rows of a (9 x 13) grid, from (1, 1): row r starts at 14 + 13 r.
  const View inner = make_view(0, 14, Dims{7, 11}, Dims{13, 1});
  const std::vector<int64_t> in = row_bounds(inner, d, 3);
  CHECK(in == std::vector<int64_t>{0, 2, 5, 7});  // starts 14 27 | 40 53 66 | 79 92
  // A column vector (m) of 4 over 3 ranks ([0, 1), [1, 2), [2, 4)), and one row.
  CHECK(row_bounds(make_view(0, 0, Dims{4}, Dims{1}), Distribution::even(4, 3), 3) ==
        std::vector<int64_t>{0, 1, 2, 4});
  CHECK(row_bounds(make_view(0, 0, Dims{1, 6}, Dims{6, 1}), Distribution::even(6, 3), 3) ==
        std::vector<int64_t>{0, 1, 1, 1});  // (rank 0 owns its first element)
  // Rows descending in memory: the even split.
  const View reversed = make_view(0, 104, Dims{9, 13}, Dims{-13, 1});
  CHECK(row_bounds(reversed, d, 3) == std::vector<int64_t>{0, 3, 6, 9});
  const View five = make_view(0, 0, Dims{5, 13}, Dims{-13, 1});
  CHECK(row_bounds(five, d, 3) == std::vector<int64_t>{0, 1, 3, 5});
  // row_box: rows [r0, r1) of any shape whose axis 0 has the rows.
  const Box b = row_box(Dims{9, 13}, 3, 6);
  CHECK(b.start == Dims{3, 0});
  CHECK(b.count == Dims{3, 13});
  CHECK(row_box(Dims{9}, 6, 9).count == Dims{3});
}
