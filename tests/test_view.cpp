// Views, broadcasting, overlap and dtype promotion.
#include <doctest/doctest.h>

#include <algorithm>
#include <iterator>
#include <random>
#include <vector>

#include "vm/dtype.hpp"
#include "vm/view.hpp"

using namespace arrvm;  // tests only

namespace {
View view(BaseId b, int64_t off, Dims shape, Dims stride) {
  return arrvm::make_view(b, off, shape, stride);
}
}  // namespace

TEST_CASE("may_overlap is exact for disjoint ranges and interleaving, conservative otherwise") {
  CHECK_FALSE(may_overlap(view(0, 0, {4}, {1}), view(1, 0, {4}, {1})));  // different bases
  CHECK_FALSE(may_overlap(view(0, 0, {4}, {1}), view(0, 4, {4}, {1})));  // disjoint ranges
  CHECK(may_overlap(view(0, 0, {4}, {1}), view(0, 3, {4}, {1})));
  CHECK_FALSE(may_overlap(view(0, 0, {4}, {2}), view(0, 1, {4}, {2})));  // x[0::2] vs x[1::2]
  CHECK_FALSE(may_overlap(view(0, 0, {3}, {4}), view(0, 1, {3}, {4})));  // columns 0 and 1 of a 3x4
  CHECK(may_overlap(view(0, 6, {4}, {-2}), view(0, 0, {4}, {2})));       // reversed, same elements
  CHECK_FALSE(may_overlap(view(0, 0, {0}, {1}), view(0, 0, {4}, {1})));  // empty
  CHECK(may_overlap(view(0, 2, {}, {}), view(0, 2, {}, {})));            // same scalar
  CHECK_FALSE(may_overlap(view(0, 2, {}, {}), view(0, 3, {}, {})));
}

TEST_CASE("broadcast_to follows NumPy's rules") {
  View out;
  REQUIRE(broadcast_to(view(0, 5, {4}, {1}), Dims{3, 4}, &out));
  CHECK(out.shape == Dims{3, 4});
  CHECK(out.stride == Dims{0, 1});
  CHECK(out.offset == 5);
  REQUIRE(broadcast_to(view(0, 0, {3, 1}, {2, 7}), Dims{3, 4}, &out));
  CHECK(out.stride == Dims{2, 0});
  CHECK_FALSE(broadcast_to(view(0, 0, {3}, {1}), Dims{3, 4}, &out));
  CHECK_FALSE(broadcast_to(view(0, 0, {2, 4}, {4, 1}), Dims{4}, &out));
  REQUIRE(broadcast_to(view(0, 0, {}, {}), Dims{2, 2}, &out));
  CHECK(out.stride == Dims{0, 0});
}

TEST_CASE("is_injective and same_elements") {
  CHECK(is_injective(view(0, 0, {3, 4}, {4, 1})));
  CHECK(is_injective(view(0, 11, {3, 4}, {-4, -1})));
  CHECK_FALSE(is_injective(view(0, 0, {3, 4}, {0, 1})));
  CHECK(is_injective(view(0, 0, {1, 4}, {0, 1})));  // stride 0 on a length-1 axis is fine
  CHECK_FALSE(is_injective(view(0, 0, {2, 2}, {1, 1})));
  CHECK(same_elements(view(0, 0, {1, 4}, {9, 1}), view(0, 0, {1, 4}, {0, 1})));
  CHECK_FALSE(same_elements(view(0, 0, {4}, {1}), view(0, 0, {4}, {2})));
}

TEST_CASE("dtype promotion matches NumPy's result_type") {
  CHECK(promote(DType::Int32, DType::Float32) == DType::Float64);
  CHECK(promote(DType::Int16, DType::Float32) == DType::Float32);
  CHECK(promote(DType::UInt8, DType::Int8) == DType::Int16);
  CHECK(promote(DType::UInt32, DType::Int32) == DType::Int64);
  CHECK(promote(DType::UInt64, DType::Int64) == DType::Float64);
  CHECK(promote(DType::UInt16, DType::Int64) == DType::Int64);
  CHECK(promote(DType::Bool, DType::UInt8) == DType::UInt8);
  CHECK(promote(DType::Float32, DType::Float64) == DType::Float64);
  CHECK(promote(DType::Int8, DType::Int64) == DType::Int64);
  CHECK(accumulation_dtype(DType::Int8) == DType::Int64);
  CHECK(accumulation_dtype(DType::Bool) == DType::Int64);
  CHECK(accumulation_dtype(DType::UInt16) == DType::UInt64);
  CHECK(accumulation_dtype(DType::Float32) == DType::Float32);
  CHECK(dtype_from_name("uint16") == DType::UInt16);
  CHECK(dtype_from_name("complex64") == DType::Complex64);
  CHECK(dtype_size(DType::Complex128) == 16);
  CHECK_FALSE(dtype_from_name("float16").has_value());
  CHECK(dtype_size(DType::Float64) == 8);
}

namespace {

// Every element offset a view touches (brute force).
std::vector<int64_t> elements_of(const View& v) {
  std::vector<int64_t> out;
  if (v.nelem() == 0) return out;
  Dims idx = Dims::filled(v.rank(), 0);
  for (;;) {
    int64_t off = v.offset;
    for (int k = 0; k < v.rank(); ++k) off += idx[k] * v.stride[k];
    out.push_back(off);
    int k = v.rank() - 1;
    while (k >= 0 && ++idx[k] == v.shape[k]) idx[k--] = 0;
    if (k < 0) return out;
  }
}

View random_view(std::mt19937_64& rng, BaseId base) {
  std::uniform_int_distribution<int> rank_d(0, 4), ext_d(0, 4), stride_d(-7, 7), off_d(0, 40);
  Dims shape, stride;
  const int rank = rank_d(rng);
  for (int k = 0; k < rank; ++k) {
    shape.push_back(ext_d(rng) == 0 ? 1 + ext_d(rng) % 2 : ext_d(rng));
    stride.push_back(stride_d(rng) % 4 == 0 ? 0 : stride_d(rng));
  }
  return make_view(base, off_d(rng), shape, stride);
}

}  // namespace

TEST_CASE("may_overlap and is_injective equal brute-force enumeration on 100000 random view pairs") {
  std::mt19937_64 rng(20261124);
  int shared = 0, disjoint = 0, injective = 0, not_injective = 0;
  for (int n = 0; n < 100000; ++n) {
    const View a = random_view(rng, 0);
    const View b = random_view(rng, 0);
    std::vector<int64_t> ea = elements_of(a), eb = elements_of(b);
    std::sort(ea.begin(), ea.end());
    std::sort(eb.begin(), eb.end());
    std::vector<int64_t> common;
    std::set_intersection(ea.begin(), ea.end(), eb.begin(), eb.end(), std::back_inserter(common));
    const bool truth = !common.empty();
    if (may_overlap(a, b) != truth) FAIL_CHECK("overlap of " << to_string(a) << " and " << to_string(b));
    (truth ? shared : disjoint)++;
    const bool inj = std::adjacent_find(ea.begin(), ea.end()) == ea.end();
    if (is_injective(a) != inj) FAIL_CHECK("injectivity of " << to_string(a));
    (inj ? injective : not_injective)++;
  }
  // The generator covers both answers of both questions in quantity.
  CHECK(shared > 5000);
  CHECK(disjoint > 10000);
  CHECK(injective > 10000);
  CHECK(not_injective > 10000);
}

TEST_CASE("overlap: the view patterns of once-rejected traces share no element") {
  // sin: transposed output vs strided input of one base
  CHECK_FALSE(may_overlap(view(0, 18, {3, 2}, {1, 36}), view(0, 26, {3, 2}, {36, 2})));
  // identity: broadcast input vs interleaved output rows
  CHECK_FALSE(may_overlap(view(1, 0, {6, 2}, {4, 1}), view(1, 3, {6, 2}, {4, 0})));
  // absolute: broadcast input between strided output elements
  CHECK_FALSE(may_overlap(view(0, 0, {3, 1, 7}, {13, 13, 2}), view(0, 3, {3, 1, 7}, {0, 13, 0})));
  // a[::2] = a[1::2] and a column of a matrix against another column
  CHECK_FALSE(may_overlap(view(0, 0, {5}, {2}), view(0, 1, {5}, {2})));
  CHECK(may_overlap(view(0, 0, {4, 4}, {4, 1}), view(0, 0, {4, 4}, {1, 4})));  // a vs a.T
  CHECK(is_injective(view(0, 0, {6, 2}, {4, 1})));
  CHECK(is_injective(view(0, 0, {3, 3}, {2, 7})));        // no sorted-stride proof, still injective
  CHECK(is_injective(view(0, 0, {3, 3}, {2, 3})));        // 0 2 4 3 5 7 6 8 10
  CHECK_FALSE(is_injective(view(0, 0, {3, 3}, {2, 4})));  // 2*2 == 4*1
}

TEST_CASE("may_overlap equals a brute-force search on random views of small bases") {
  // Views as NumPy's slicing makes them (steps, reversals, transposes,
  // broadcasts, rows and columns of 2-D and 3-D bases) and a few that wrap
  // rows: may_overlap, with its grid and exact tests, against the sets of
  // positions each view touches.
  std::mt19937_64 rng(2026);
  auto pick = [&](int64_t lo, int64_t hi) { return std::uniform_int_distribution<int64_t>(lo, hi)(rng); };
  auto positions = [](const View& v) {
    std::vector<int64_t> p{v.offset};
    for (int k = 0; k < v.rank(); ++k) {
      std::vector<int64_t> next;
      for (int64_t x : p) {
        for (int64_t i = 0; i < v.shape[k]; ++i) next.push_back(x + i * v.stride[k]);
      }
      p = std::move(next);
    }
    std::sort(p.begin(), p.end());
    return p;
  };
  int decided_disjoint = 0, decided_meeting = 0;
  for (int trial = 0; trial < 20000; ++trial) {
    const Dims base = trial % 2 ? Dims{pick(1, 7), pick(1, 9)} : Dims{pick(1, 4), pick(1, 5), pick(1, 6)};
    const Dims full = row_major_strides(base);
    auto random_view = [&] {
      View v;
      v.base = 0;
      v.offset = 0;
      std::vector<int> axes(static_cast<std::size_t>(base.size()));
      for (int k = 0; k < base.size(); ++k) axes[static_cast<std::size_t>(k)] = k;
      std::shuffle(axes.begin(), axes.end(), rng);
      for (int k : axes) {
        const int64_t n = base[k];
        switch (pick(0, 5)) {
          case 0: {  // one index: the axis goes
            v.offset += pick(0, n - 1) * full[k];
            break;
          }
          case 1: {  // broadcast of one index
            v.offset += pick(0, n - 1) * full[k];
            v.shape.push_back(pick(1, 3));
            v.stride.push_back(0);
            break;
          }
          default: {  // a slice start:stop:step, step possibly negative
            const int64_t step = pick(1, 3) * (pick(0, 3) == 0 ? -1 : 1);
            const int64_t start = pick(0, n - 1);
            const int64_t room = step > 0 ? (n - 1 - start) / step : start / -step;
            v.offset += start * full[k];
            v.shape.push_back(pick(1, room + 1));
            v.stride.push_back(step * full[k]);
          }
        }
      }
      if (pick(0, 9) == 0 && v.rank() > 0) {  // a flat run that wraps past a row
        v.shape[v.rank() - 1] = pick(1, base.product() - v.offset);
        v.stride[v.rank() - 1] = 1;
        if (v.offset + (v.shape[v.rank() - 1] - 1) > base.product() - 1) v.shape[v.rank() - 1] = 1;
      }
      return v;
    };
    const View a = random_view(), b = random_view();
    int64_t lo = 0, hi = 0;
    if (element_range(a, &lo, &hi) && (lo < 0 || hi >= base.product())) continue;
    if (element_range(b, &lo, &hi) && (lo < 0 || hi >= base.product())) continue;
    const std::vector<int64_t> pa = positions(a), pb = positions(b);
    std::vector<int64_t> both;
    std::set_intersection(pa.begin(), pa.end(), pb.begin(), pb.end(), std::back_inserter(both));
    const bool want = !both.empty() && a.nelem() > 0 && b.nelem() > 0;
    INFO(to_string(a), " ", to_string(b));
    REQUIRE(may_overlap(a, b) == want);
    (want ? decided_meeting : decided_disjoint)++;
  }
  CHECK(decided_disjoint > 2000);
  CHECK(decided_meeting > 2000);
}
