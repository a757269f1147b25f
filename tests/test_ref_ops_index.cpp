// gather and scatter on the `ref` backend: logical row-major indexing of
// strided sources/targets, every dtype, and out-of-range or negative indices
// (an Error naming the instruction and the index; nothing is written).
#include <doctest/doctest.h>

#include "tests/ref_test_util.hpp"

using namespace reftest;  // tests only

namespace {

using O = Opcode;

}  // namespace

TEST_SUITE("ref gather scatter") {
  TEST_CASE_TEMPLATE("gather and scatter on every dtype", T, REFTEST_ALL) {
    Vm vm;
    const BaseId src = vm.array<T>(vals<T>({0, 1, 1, 0, 1}));
    const BaseId idx = vm.array<int64_t>({4, 0, 3, 2});
    const BaseId o = vm.empty<T>(4);
    vm.issue(make(O::Gather, vec(o, 4), {in(vec(src, 5)), in(vec(idx, 4))}));
    check_same(vm.read<T>(o), vals<T>({1, 0, 0, 1}));
    const BaseId t = vm.empty<T>(5);
    vm.issue(make(O::Scatter, vec(t, 5), {in(vec(o, 4)), in(vec(idx, 4))}));
    check_same(vm.read<T>(t), vals<T>({0, 0, 1, 0, 1}));
    if constexpr (!std::is_same_v<T, bool>) {
      const BaseId big = vm.array<T>(Vec<T>{hi<T>(), lo<T>(), 5});
      const BaseId i2 = vm.array<int64_t>({1, 2, 0});
      vm.issue(make(O::Gather, view(o, 1, {3}, {1}), {in(vec(big, 3)), in(vec(i2, 3))}));
      check_same(vm.read<T>(o), Vec<T>{1, lo<T>(), 5, hi<T>()});
    }
  }

  TEST_CASE("gather indexes a strided source in its logical row-major order") {
    Vm vm;
    const BaseId a = vm.array<int32_t>({1, 2, 3, 4, 5, 6});  // 2x3
    const BaseId idx = vm.array<int64_t>({0, 1, 5, 2});
    const BaseId o = vm.empty<int32_t>(6);
    // The transpose [3,2] reads 1,4,2,5,3,6 in flat order; a 2-D index array and output.
    vm.issue(make(O::Gather, view(o, 0, {2, 2}, {2, 1}),
                  {in(view(a, 0, {3, 2}, {1, 3})), in(view(idx, 0, {2, 2}, {2, 1}))}));
    check_same(vm.read<int32_t>(o), Vec<int32_t>{1, 4, 6, 2, 0, 0});
    // A reversed source, a strided output and reversed indices.
    vm.issue(make(O::Gather, view(o, 1, {3}, {2}), {in(view(a, 5, {6}, {-1})), in(view(idx, 3, {3}, {-1}))}));
    // idx reversed: 2, 5, 1 -> reversed a (6,5,4,3,2,1): 4, 1, 5
    check_same(vm.read<int32_t>(o), Vec<int32_t>{1, 4, 6, 1, 0, 5});
    // A broadcast (stride 0) index and a 0-d output.
    vm.issue(make(O::Gather, view(o, 0, {2}, {1}), {in(vec(a, 6)), in(view(idx, 2, {2}, {0}))}));
    vm.issue(make(O::Gather, scalar_view(o, 5), {in(view(a, 1, {2, 2}, {3, 1})), in(scalar_view(idx, 3))}));
    // view [2,2] of a at offset 1 = {2,3,5,6}; idx[3] = 2 -> 5
    check_same(vm.read<int32_t>(o), Vec<int32_t>{6, 6, 6, 1, 0, 5});
    vm.issue(make(O::Gather, scalar_view(o, 5), {in(view(a, 1, {2, 2}, {3, 1})), in(scalar_view(idx, 0))}));
    check_same(vm.read<int32_t>(o), Vec<int32_t>{6, 6, 6, 1, 0, 2});
    // A 0-d source.
    vm.issue(make(O::Gather, view(o, 0, {3}, {1}), {in(scalar_view(a, 4)), in(view(idx, 0, {3}, {0}))}));
    check_same(vm.read<int32_t>(o), Vec<int32_t>{5, 5, 5, 1, 0, 2});
  }

  TEST_CASE("scatter indexes a strided target in its logical row-major order") {
    Vm vm;
    const BaseId t = vm.empty<double>(6);
    const BaseId v = vm.array<double>({7, 8});
    const BaseId idx = vm.array<int64_t>({1, 4});
    // Target: the transpose [3,2] of a 2x3 base: flat f -> offset (f / 2) + 3 (f % 2).
    vm.issue(make(O::Scatter, view(t, 0, {3, 2}, {1, 3}), {in(vec(v, 2)), in(vec(idx, 2))}));
    check_same(vm.read<double>(t), Vec<double>{0, 0, 8, 7, 0, 0});
    // Reversed target; 2-D values and indices; values broadcast from [1].
    const BaseId idx2 = vm.array<int64_t>({0, 5, 2, 3});
    vm.issue(make(O::Scatter, view(t, 5, {6}, {-1}),
                  {in(view(v, 1, {1}, {1})), in(view(idx2, 0, {2, 2}, {2, 1}))}));
    check_same(vm.read<double>(t), Vec<double>{8, 0, 8, 8, 0, 8});
    // A 0-d index into a 0-d target.
    const BaseId one = vm.array<int64_t>({0});
    vm.issue(make(O::Scatter, scalar_view(t, 1), {in(scalar_view(v, 0)), in(scalar_view(one, 0))}));
    check_same(vm.read<double>(t), Vec<double>{8, 7, 8, 8, 0, 8});
  }

  // A run-time index error poisons the output (docs/semantics.md): reading it
  // raises the error, every time, until the whole array is written again.
  TEST_CASE("gather with an out-of-range or negative index poisons its output") {
    Vm vm;
    const BaseId src = vm.array<int16_t>({10, 20, 30, 40, 50});
    const BaseId o = vm.array<int16_t>({9, 9, 9});
    const BaseId other = vm.array<int16_t>({1, 2, 3});
    const BaseId bad = vm.array<int64_t>({0, 1, 5});  // 5 is one past the end; 0 and 1 come first
    vm.issue(make(O::Gather, vec(o, 3), {in(vec(src, 5)), in(vec(bad, 3))}));
    // An unrelated array reads fine and first: the error is not raised there.
    check_same(vm.read<int16_t>(other), Vec<int16_t>{1, 2, 3});
    std::string msg = error_of([&] { vm.read<int16_t>(o); });
    INFO(msg);
    CHECK(msg.find("gather") != std::string::npos);
    CHECK(msg.find("index 5") != std::string::npos);
    CHECK(error_of([&] { vm.read<int16_t>(o); }) == msg);  // never silent zeros

    // Overwriting all of o cures it; the next failure poisons it again.
    const BaseId neg = vm.array<int64_t>({2, -1, 0});
    vm.issue(make(O::Gather, vec(o, 3), {in(vec(src, 5)), in(vec(neg, 3))}));
    msg = error_of([&] { vm.read<int16_t>(o); });
    CHECK(msg.find("index -1") != std::string::npos);

    // The limit is the source view's size, not its base's.
    const BaseId i3 = vm.array<int64_t>({3, 0, 0});
    vm.issue(make(O::Gather, vec(o, 3), {in(view(src, 1, {3}, {1})), in(vec(i3, 3))}));
    msg = error_of([&] { vm.read<int16_t>(o); });
    CHECK(msg.find("index 3") != std::string::npos);

    // What is computed from a poisoned array is poisoned with the same error.
    const BaseId d = vm.empty<int16_t>(3);
    vm.issue(make(O::Add, vec(d, 3), {in(vec(o, 3)), in(vec(other, 3))}));
    CHECK(error_of([&] { vm.read<int16_t>(d); }) == msg);

    // The VM stays usable: flush does not throw, a good gather cures o.
    vm.issue(make(O::Gather, vec(o, 3), {in(vec(src, 5)), in(vec(neg, 3))}));
    CHECK_NOTHROW(vm.rt().flush());
    const BaseId ok = vm.array<int64_t>({4, 4, 0});
    vm.issue(make(O::Gather, vec(o, 3), {in(vec(src, 5)), in(vec(ok, 3))}));
    check_same(vm.read<int16_t>(o), Vec<int16_t>{50, 50, 10});
    CHECK(vm.rt().profile().failed_batches == 4);
  }

  TEST_CASE("scatter with an out-of-range or negative index poisons its target") {
    Vm vm;
    const BaseId t = vm.array<uint32_t>({1, 1, 1});
    const BaseId v = vm.array<uint32_t>({5, 6, 7});
    const BaseId bad = vm.array<int64_t>({0, 2, 3});  // valid indices first, then one past the end
    const Vec<uint32_t> ones = {1, 1, 1};
    vm.issue(make(O::Scatter, vec(t, 3), {in(vec(v, 3)), in(vec(bad, 3))}));
    std::string msg = error_of([&] { vm.read<uint32_t>(t); });
    INFO(msg);
    CHECK(msg.find("scatter") != std::string::npos);
    CHECK(msg.find("index 3") != std::string::npos);
    // A scatter writes only some elements: a good one does not cure the target.
    const BaseId good = vm.array<int64_t>({0, 1, 2});
    vm.issue(make(O::Scatter, vec(t, 3), {in(vec(v, 3)), in(vec(good, 3))}));
    CHECK(error_of([&] { vm.read<uint32_t>(t); }) == msg);
    vm.rt().write(t, ones.data(), 3 * sizeof(uint32_t));  // writing all of it from the host does
    check_same(vm.read<uint32_t>(t), ones);

    const BaseId neg = vm.array<int64_t>({1, 0, -7});
    vm.issue(make(O::Scatter, vec(t, 3), {in(vec(v, 3)), in(vec(neg, 3))}));
    msg = error_of([&] { vm.read<uint32_t>(t); });
    CHECK(msg.find("index -7") != std::string::npos);
    vm.rt().write(t, ones.data(), 3 * sizeof(uint32_t));

    // The limit is the target view's size: a 2-element view of the 3-element base.
    const BaseId i2 = vm.array<int64_t>({0, 1, 2});
    vm.issue(make(O::Scatter, view(t, 1, {2}, {1}), {in(vec(v, 3)), in(vec(i2, 3))}));
    msg = error_of([&] { vm.read<uint32_t>(t); });
    CHECK(msg.find("index 2") != std::string::npos);

    // A never-written target is poisoned too, not read back as zeros.
    const BaseId fresh = vm.empty<uint32_t>(2);
    vm.issue(make(O::Scatter, vec(fresh, 2), {in(view(v, 0, {2}, {1})), in(view(bad, 1, {2}, {1}))}));
    CHECK_NOTHROW(vm.rt().flush());
    CHECK(vm.rt().is_poisoned(fresh));
    CHECK(error_of([&] { vm.read<uint32_t>(fresh); }).find("index 2 out of range [0, 2)") !=
          std::string::npos);
  }

}  // TEST_SUITE
