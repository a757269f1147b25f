// The C++ array API: reductions, scans, take/put, where, astype and copy.
// Expected values are computed by hand (NumPy semantics).
#include <doctest/doctest.h>

#include "tests/array_api_util.hpp"

using namespace apitest;

namespace {

template <typename T>
Array host(std::vector<T> v, const Vm& vm) {
  return Array::from_host(v, vm);
}

}  // namespace

TEST_CASE("array_api: reductions over one axis and all") {
  Vm vm = ref_vm();
  const Array m = Array::arange(6, DType::Int64, vm).reshape({2, 3});  // [[0,1,2],[3,4,5]]
  check_values<int64_t>(m.sum(0), {3, 5, 7});
  check_values<int64_t>(m.sum(1), {3, 12});
  check_values<int64_t>(m.sum(-1), {3, 12});
  check_values<int64_t>(arrvm::sum(m, -2), {3, 5, 7});
  const Array total = m.sum();
  CHECK(total.ndim() == 0);
  CHECK(total.dtype() == DType::Int64);
  CHECK(total.item<int64_t>() == 15);
  check_values<int64_t>(m.prod(1), {0, 60});
  check_values<int64_t>(arrvm::prod(m + 1, 0), {4, 10, 18});
  CHECK((m + 1).prod().item<int64_t>() == 720);
  check_values<int64_t>(m.min(0), {0, 1, 2});
  check_values<int64_t>(m.max(1), {2, 5});
  CHECK(m.max().item<int64_t>() == 5);
  CHECK(m.min().item<int64_t>() == 0);
  CHECK_THROWS_AS(m.sum(2), arrvm::Error);
  CHECK_THROWS_AS(m.sum(-3), arrvm::Error);

  // Non-contiguous views reduce axis by axis.
  const Array v = m(Slice(), Slice({}, {}, -2));  // [[2,0],[5,3]]
  CHECK(v.sum().item<int64_t>() == 10);
  CHECK(v.max().item<int64_t>() == 5);
  CHECK(v.min().item<int64_t>() == 0);
  check_values<int64_t>(v.sum(0), {7, 3});
  CHECK(m.transpose().sum().item<int64_t>() == 15);
  check_values<int64_t>(m.transpose().max(1), {3, 4, 5});

  // 3-D.
  const Array c = Array::arange(24, DType::Int32, vm).reshape({2, 3, 4});
  check_values<int64_t>(c.sum(1), {12, 15, 18, 21, 48, 51, 54, 57});
  check_values<int32_t>(c.max(0), {12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23});
  CHECK(c(Slice(), Slice({}, {}, 2), Slice(1, {})).sum().item<int64_t>() == 144);
}

TEST_CASE("array_api: reduction dtypes (NumPy accumulation)") {
  Vm vm = ref_vm();
  const Array i8 = host<int8_t>({100, 100, 100}, vm);
  const Array s = i8.sum();
  CHECK(s.dtype() == DType::Int64);
  CHECK(s.item<int64_t>() == 300);  // no int8 wrap
  CHECK(host<uint8_t>({200, 100}, vm).sum().dtype() == DType::UInt64);
  CHECK(host<uint8_t>({200, 100}, vm).sum().item<uint64_t>() == 300);
  CHECK(host<bool>({true, false, true}, vm).sum().item<int64_t>() == 2);
  CHECK(host<float>({0.5f, 0.25f}, vm).sum().dtype() == DType::Float32);
  CHECK(host<float>({0.5f, 0.25f}, vm).sum().item<float>() == 0.75f);
  CHECK(host<int16_t>({300, 300}, vm).prod().item<int64_t>() == 90000);
  CHECK(host<int8_t>({-5, 3}, vm).min().dtype() == DType::Int8);
  CHECK(host<int8_t>({-5, 3}, vm).min().item<int8_t>() == -5);
  CHECK(host<bool>({true, false}, vm).min().item<bool>() == false);
  CHECK(host<bool>({true, false}, vm).max().item<bool>() == true);
  CHECK(std::isnan(host<double>({1.0, kNaN, 0.0}, vm).max().item<double>()));

  // Empty axes: identities for sum/prod, an error for min/max.
  const Array e = Array::zeros({0}, DType::Float64, vm);
  CHECK(e.sum().item<double>() == 0.0);
  CHECK(e.prod().item<double>() == 1.0);
  CHECK_THROWS_AS(e.min(), arrvm::Error);
  CHECK_THROWS_AS(e.max(), arrvm::Error);
  check_values<double>(Array::zeros({2, 0}, DType::Float64, vm).sum(1), {0.0, 0.0});

  // 0-d arrays: the element itself (cast to the accumulation dtype).
  const Array z = Array::full({}, 7, DType::Int32, vm);
  CHECK(z.sum().dtype() == DType::Int64);
  CHECK(z.sum().item<int64_t>() == 7);
  CHECK(z.max().item<int32_t>() == 7);
  CHECK_THROWS_AS(z.sum(0), arrvm::Error);
}

TEST_CASE("array_api: all, any, mean") {
  Vm vm = ref_vm();
  const Array m = host<int32_t>({1, 0, 1, 1, 1, 1}, vm).reshape({2, 3});
  CHECK(m.all(1).dtype() == DType::Bool);
  check_values<bool>(m.all(1), {false, true});
  check_values<bool>(m.any(0), {true, true, true});
  check_values<bool>(m.all(0), {true, false, true});
  CHECK(m.all().item<bool>() == false);
  CHECK(m.any().item<bool>() == true);
  CHECK(Array::zeros({3}, DType::Float64, vm).any().item<bool>() == false);
  CHECK(Array::zeros({0}, DType::Float64, vm).all().item<bool>() == true);

  const Array a = Array::arange(4, DType::Int64, vm);
  CHECK(a.mean().dtype() == DType::Float64);
  CHECK(a.mean().item<double>() == 1.5);
  check_values<double>(a.reshape({2, 2}).mean(0), {1.0, 2.0});
  check_values<double>(Array::arange(6, DType::Int64, vm).reshape({2, 3}).mean(-1), {1.0, 4.0});
  const Array f = host<float>({1.0f, 2.0f}, vm);
  CHECK(f.mean().dtype() == DType::Float32);
  CHECK(f.mean().item<float>() == 1.5f);
}

// A reduction over an empty axis reads nothing of its input but names its
// base: with the base freed in the same batch (a temporary), the free must
// not leave the reduction a base that is gone ("unknown base" before the
// VM wrote such a reduction as a fill of its identity).
TEST_CASE("array_api: reductions over an empty axis of a temporary, base freed before the flush") {
  for (const char* backend : {"ref", "cpu"}) {
    CAPTURE(backend);
    Vm vm({{"backend", backend}, {"fuser", "greedy"}, {"eager", "off"}, {"tiered", "off"}});
    Array sum, prod, all, any, rows, cols;
    {
      const Array x = Array::arange(40, DType::Float64, vm) + 1.0;  // pending, freed at the end of the scope
      const Array none = x(Slice(0, 0));
      sum = none.sum();
      prod = none.prod();
      all = greater(none, 0.0).all();
      any = greater(none, 0.0).any();
      const Array m = x.reshape({8, 5});
      rows = m(Slice(0, 0)).sum(0);            // (0, 5) summed over axis 0: five zeros
      cols = m(Slice(), Slice(0, 0)).prod(1);  // (8, 0) multiplied over axis 1: eight ones
    }
    vm.flush();
    CHECK(sum.item<double>() == 0.0);
    CHECK(prod.item<double>() == 1.0);
    CHECK(all.item<bool>() == true);
    CHECK(any.item<bool>() == false);
    check_values<double>(rows, {0, 0, 0, 0, 0});
    check_values<double>(cols, {1, 1, 1, 1, 1, 1, 1, 1});
    CHECK_THROWS_AS(Array::arange(4, DType::Float64, vm)(Slice(0, 0)).max(), arrvm::Error);
  }
}

TEST_CASE("array_api: cumsum and cumprod") {
  Vm vm = ref_vm();
  const Array a = host<int32_t>({1, 2, 3, 4}, vm);
  CHECK(a.cumsum().dtype() == DType::Int64);
  check_values<int64_t>(a.cumsum(), {1, 3, 6, 10});
  check_values<int64_t>(a.cumprod(), {1, 2, 6, 24});
  check_values<int64_t>(host<int8_t>({100, 100}, vm).cumsum(), {100, 200});
  check_values<int64_t>(host<bool>({true, true, false}, vm).cumsum(), {1, 2, 2});
  check_values<double>(host<double>({0.5, 2.0, 4.0}, vm).cumprod(), {0.5, 1.0, 4.0});

  const Array m = Array::arange(6, DType::Int64, vm).reshape({2, 3});
  const Array c0 = m.cumsum(0);
  CHECK(c0.shape() == Shape{2, 3});
  check_values<int64_t>(c0, {0, 1, 2, 3, 5, 7});
  check_values<int64_t>(m.cumsum(1), {0, 1, 3, 3, 7, 12});
  check_values<int64_t>(m.cumsum(-1), {0, 1, 3, 3, 7, 12});
  const Array flat = m.cumsum();
  CHECK(flat.shape() == Shape{6});
  check_values<int64_t>(flat, {0, 1, 3, 6, 10, 15});
  check_values<int64_t>(arrvm::cumprod(m + 1, 1), {1, 2, 6, 4, 20, 120});
  // Non-contiguous input, flattened in its logical order: [0,3,1,4,2,5].
  check_values<int64_t>(m.transpose().cumsum(), {0, 3, 4, 8, 10, 15});
  check_values<int64_t>(arrvm::cumsum(m(Slice({}, {}, -1)), 0), {3, 4, 5, 3, 5, 7});
  CHECK(Array::full({}, 3, DType::Int64, vm).cumsum().shape() == Shape{1});
  CHECK_THROWS_AS(m.cumsum(2), arrvm::Error);
}

TEST_CASE("array_api: take and put") {
  Vm vm = ref_vm();
  const Array a = Array::arange(10, DType::Int64, vm) * 10;
  const Array t = a.take(host<int32_t>({3, -1, 0}, vm));
  CHECK(t.dtype() == DType::Int64);
  check_values<int64_t>(t, {30, 90, 0});
  const Array t2 = arrvm::take(a, host<uint8_t>({1, 2, 3, 4}, vm).reshape({2, 2}));
  CHECK(t2.shape() == Shape{2, 2});
  check_values<int64_t>(t2, {10, 20, 30, 40});
  check_values<int64_t>(a(Slice({}, {}, -1)).take(host<int64_t>({0, 1}, vm)), {90, 80});
  const Array m = Array::arange(6, DType::Int64, vm).reshape({2, 3});
  check_values<int64_t>(m.transpose().take(host<int64_t>({1, 2}, vm)), {3, 1});
  // Out of range: an Error when the batch runs; the VM stays usable.
  const Array bad = a.take(host<int64_t>({10}, vm));
  CHECK_THROWS_AS(bad.to_vector<int64_t>(), arrvm::Error);
  check_values<int64_t>(a.take(host<int64_t>({-10}, vm)), {0});
  // take_in_range: the same values for indices in [0, size()); it cannot
  // fail (the clip gather): an index the caller did not check is clamped.
  check_values<int64_t>(a.take_in_range(host<int32_t>({3, 9, 0}, vm)), {30, 90, 0});
  check_values<int64_t>(a.take_in_range(host<int64_t>({-1, 10}, vm)), {0, 90});
  // NumPy's take modes: clip clamps (no negative counting), wrap is modulo
  // the size; neither takes from an empty array.
  using Mode = Array::TakeMode;
  check_values<int64_t>(a.take(host<int64_t>({-1, 4, 10, 99}, vm), Mode::Clip), {0, 40, 90, 90});
  check_values<int64_t>(a.take(host<int32_t>({-1, 4, 10, 23}, vm), Mode::Wrap), {90, 40, 0, 30});
  check_values<int64_t>(take(a, host<int64_t>({-11}, vm), Mode::Wrap), {90});
  CHECK_THROWS_AS(Array::zeros({0}, DType::Int64, vm).take(host<int64_t>({0}, vm), Mode::Clip), arrvm::Error);
  CHECK_THROWS_AS(a.take(Array::ones({2}, DType::Float64, vm), Mode::Wrap), arrvm::Error);
  CHECK(Array::zeros({0}, DType::Int64, vm).take(Array::zeros({0}, DType::Int64, vm), Mode::Wrap).size() ==
        0);

  Array z = Array::zeros({5}, DType::Int32, vm);
  z.put(host<int64_t>({1, 3}, vm), host<int64_t>({7, 9}, vm));  // values cast to int32
  check_values<int32_t>(z, {0, 7, 0, 9, 0});
  z.put(host<int64_t>({0, -1}, vm), -1);
  check_values<int32_t>(z, {-1, 7, 0, 9, -1});
  z.put(host<int64_t>({2, 4}, vm), Array::full({}, 5.9, DType::Float64, vm));  // broadcast 0-d, truncated
  check_values<int32_t>(z, {-1, 7, 5, 9, 5});
  z.put(host<int64_t>({0, 1}, vm), z(Slice(3, {})));  // values overlap the target: copied first
  check_values<int32_t>(z, {9, 5, 5, 9, 5});
  Array mm = Array::arange(6, DType::Int64, vm).reshape({2, 3});
  mm(Slice(), 1).put(host<int64_t>({1}, vm), 100);  // into a strided view
  check_values<int64_t>(mm, {0, 1, 2, 3, 100, 5});
  Array w = Array::zeros({3}, DType::Int64, vm);
  w.put(host<int64_t>({5}, vm), 1);
  CHECK_THROWS_AS(w.to_vector<int64_t>(), arrvm::Error);
}

TEST_CASE("array_api: where") {
  Vm vm = ref_vm();
  const Array a = Array::arange(5, DType::Int32, vm);
  const Array r = arrvm::where(a > 2, a, 0);
  CHECK(r.dtype() == DType::Int32);
  check_values<int32_t>(r, {0, 0, 0, 3, 4});
  const Array f =
      arrvm::where(host<int64_t>({0, 2}, vm), host<int32_t>({1, 2}, vm), host<float>({0.5f, 0.25f}, vm));
  CHECK(f.dtype() == DType::Float64);
  check_values<double>(f, {0.5, 2.0});
  const Array s = arrvm::where(a < 2, 1, 0);
  CHECK(s.dtype() == DType::Int64);
  check_values<int64_t>(s, {1, 1, 0, 0, 0});
  CHECK(arrvm::where(a < 2, 1.0, 0).dtype() == DType::Float64);
  CHECK(arrvm::where(a < 2, true, false).dtype() == DType::Bool);
  check_values<double>(arrvm::where(a < 2, 1.5, a), {1.5, 1.5, 2.0, 3.0, 4.0});
  const Array cond = host<bool>({true, false}, vm).reshape({2, 1});
  const Array b = arrvm::where(cond, Array::arange(3, DType::Int64, vm), -1);
  CHECK(b.shape() == Shape{2, 3});
  check_values<int64_t>(b, {0, 1, 2, -1, -1, -1});
}

TEST_CASE("array_api: astype and copy") {
  Vm vm = ref_vm();
  const Array x = host<double>({1.7, -1.7, kNaN, 1e20}, vm);
  const Array i = x.astype(DType::Int32);
  CHECK(i.dtype() == DType::Int32);
  check_values<int32_t>(i, {1, -1, -2147483647 - 1, -2147483647 - 1});  // NaN, 1e20: NumPy's INT32_MIN
  check_values<bool>(host<int64_t>({0, 2, -1}, vm).astype(DType::Bool), {false, true, true});
  check_values<float>(host<int64_t>({16777217}, vm).astype(DType::Float32), {16777216.0f});
  check_values<uint8_t>(host<int32_t>({257, -1}, vm).astype(DType::UInt8), {1, 255});
  const Array a = Array::arange(3, DType::Int64, vm);
  Array c = a.copy();
  CHECK(c.base_id() != a.base_id());
  c += 1;
  check_values<int64_t>(a, {0, 1, 2});
  check_values<int64_t>(c, {1, 2, 3});
  const Array rc = a(Slice({}, {}, -1)).copy();
  CHECK(rc.strides() == Shape{1});
  check_values<int64_t>(rc, {2, 1, 0});
}
