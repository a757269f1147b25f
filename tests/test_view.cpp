// Views, broadcasting, overlap and dtype promotion.
#include <doctest/doctest.h>

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
  CHECK(may_overlap(view(0, 6, {4}, {-2}), view(0, 0, {4}, {2})));        // reversed, same elements
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
  CHECK_FALSE(dtype_from_name("complex64").has_value());
  CHECK(dtype_size(DType::Float64) == 8);
}
