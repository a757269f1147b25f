// The C++ array API: factories, views and slicing, assignment into views,
// handle lifetime. Expected values are computed by hand (NumPy semantics).
#include <doctest/doctest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "engine/runtime.hpp"
#include "tests/array_api_util.hpp"

using namespace apitest;

TEST_CASE("array_api: factories") {
  Vm vm = ref_vm();
  SUBCASE("zeros, ones, full, empty") {
    const Array z = Array::zeros({2, 3}, DType::Float64, vm);
    CHECK(z.shape() == Shape{2, 3});
    CHECK(z.strides() == Shape{3, 1});
    CHECK(z.ndim() == 2);
    CHECK(z.size() == 6);
    CHECK(z.dtype() == DType::Float64);
    check_values<double>(z, {0, 0, 0, 0, 0, 0});
    check_values<int32_t>(Array::ones({3}, DType::Int32, vm), {1, 1, 1});
    check_values<float>(Array::full({2}, 7.5, DType::Float32, vm), {7.5f, 7.5f});
    check_values<uint8_t>(Array::full({2}, 300, DType::UInt8, vm), {44, 44});  // 300 wraps
    check_values<int16_t>(Array::empty({4}, DType::Int16, vm), {0, 0, 0, 0});
    const Array s = Array::full({}, 3, DType::Int64, vm);
    CHECK(s.ndim() == 0);
    CHECK(s.size() == 1);
    CHECK(s.item<int64_t>() == 3);
    check_values<bool>(Array::full({3}, true, DType::Bool, vm), {true, true, true});
  }
  SUBCASE("arange") {
    const Array a = Array::arange(5, DType::Int64, vm);
    CHECK(a.dtype() == DType::Int64);
    check_values<int64_t>(a, {0, 1, 2, 3, 4});
    check_values<float>(Array::arange(4, DType::Float32, vm), {0, 1, 2, 3});
    check_values<int64_t>(Array::arange(2, 11, 3, DType::Int64, vm), {2, 5, 8});
    check_values<int64_t>(Array::arange(10, 0, -3, DType::Int64, vm), {10, 7, 4, 1});
    check_values<int32_t>(Array::arange(-2, 2, 1, DType::Int32, vm), {-2, -1, 0, 1});
    check_values<double>(Array::arange(0.0, 1.0, 0.25, DType::Float64, vm), {0, 0.25, 0.5, 0.75});
    check_close<double>(Array::arange(1.0, 2.0, 0.3, DType::Float64, vm), {1.0, 1.3, 1.6, 1.9});
    CHECK(Array::arange(0, 6, 2, std::nullopt, vm).dtype() == DType::Int64);
    check_values<int16_t>(Array::arange(-1, 2, DType::Int16, vm), {-1, 0, 1});
    check_values<double>(Array::arange(0.5, 2.0, std::nullopt, vm), {0.5, 1.5});
    check_values<double>(Array::arange(0, 1.0, 0.5, std::nullopt, vm), {0.0, 0.5});  // float64
    CHECK(Array::arange(5, 5, 1, DType::Int64, vm).size() == 0);
    CHECK(Array::arange(5, 1, 1, DType::Int64, vm).size() == 0);
    CHECK(Array::arange(0, DType::Int64, vm).size() == 0);
    CHECK_THROWS_AS(Array::arange(0, 5, 0, DType::Int64, vm), arrvm::Error);
  }
  SUBCASE("random_uniform") {
    const Array r = Array::random_uniform({1000}, 42, vm);
    CHECK(r.dtype() == DType::Float64);
    const std::vector<double> v = r.to_vector<double>();
    double sum = 0;
    for (double x : v) {
      CHECK(x >= 0.0);
      CHECK(x < 1.0);
      sum += x;
    }
    CHECK(sum / 1000 == doctest::Approx(0.5).epsilon(0.1));
    CHECK(Array::random_uniform({1000}, 42, vm).to_vector<double>() == v);
    CHECK(Array::random_uniform({1000}, 43, vm).to_vector<double>() != v);
    // Philox-4x32-10 known answer (Random123): counter 0, key 0 gives
    // r0 = 0x6627e8d5, r1 = 0xe169c58d; ((r1 << 32 | r0) >> 11) * 2^-53.
    CHECK(Array::random_uniform({1}, 0, vm).item<double>() == 7931020870206717.0 * 0x1p-53);
  }
  SUBCASE("from_host and reading back") {
    const Array a = Array::from_host(std::vector<int32_t>{1, 2, 3, 4}, {2, 2}, vm);
    CHECK(a.dtype() == DType::Int32);
    CHECK(a.shape() == Shape{2, 2});
    check_values<int32_t>(a, {1, 2, 3, 4});
    const double raw[3] = {0.5, -1.5, 2.25};
    check_values<double>(Array::from_host(raw, {3}, vm), {0.5, -1.5, 2.25});
    check_values<bool>(Array::from_host(std::vector<bool>{true, false, true}, vm), {true, false, true});
    check_values<uint16_t>(Array::from_host(std::vector<uint16_t>{65535}, vm), {65535});
    CHECK_THROWS_AS(Array::from_host(std::vector<int32_t>{1, 2, 3}, {2, 2}, vm), arrvm::Error);
    CHECK_THROWS_AS(a.to_vector<int64_t>(), arrvm::Error);  // wrong element type
    CHECK_THROWS_AS(a.item<int32_t>(), arrvm::Error);       // 4 elements
    CHECK(a(1, 0).item<int32_t>() == 3);
  }
  SUBCASE("empty handle") {
    Array e;
    CHECK_FALSE(e.valid());
    CHECK_THROWS_AS(e.dtype(), arrvm::Error);
    CHECK_THROWS_AS(e + 1, arrvm::Error);
    e = Array::ones({1}, DType::Int8, vm);
    CHECK(e.valid());
  }
}

TEST_CASE("array_api: slicing 1-D") {
  Vm vm = ref_vm();
  const Array a = Array::arange(10, DType::Int64, vm);
  const Array s = a(Slice(2, 8, 2));
  CHECK(s.shape() == Shape{3});
  CHECK(s.strides() == Shape{2});
  CHECK(s.offset() == 2);
  CHECK(s.base_id() == a.base_id());
  check_values<int64_t>(s, {2, 4, 6});
  check_values<int64_t>(a(Slice({}, {}, -1)), {9, 8, 7, 6, 5, 4, 3, 2, 1, 0});
  check_values<int64_t>(a(Slice(-3, {})), {7, 8, 9});
  check_values<int64_t>(a(Slice({}, -7)), {0, 1, 2});
  check_values<int64_t>(a(Slice(8, 2, -2)), {8, 6, 4});
  check_values<int64_t>(a(Slice(-1, -4, -1)), {9, 8, 7});
  check_values<int64_t>(a(Slice({}, 6, -3)), {9});
  check_values<int64_t>(a(Slice(100, {}, -4)), {9, 5, 1});
  check_values<int64_t>(a(Slice(-100, 100)), {0, 1, 2, 3, 4, 5, 6, 7, 8, 9});
  check_values<int64_t>(a.slice({Slice(1, 3)}), {1, 2});
  CHECK(a(Slice(5, 2)).size() == 0);
  CHECK(a(Slice(2, 5, -1)).size() == 0);
  CHECK(a(Slice(20, 30)).size() == 0);
  // Slicing a slice.
  check_values<int64_t>(a(Slice({}, {}, -1))(Slice(1, {}, 3)), {8, 5, 2});
  CHECK(a(-1).ndim() == 0);
  CHECK(a(-1).item<int64_t>() == 9);
  CHECK_THROWS_AS(a(Slice({}, {}, 0)), arrvm::Error);
  CHECK_THROWS_AS(a(10), arrvm::Error);
  CHECK_THROWS_AS(a(-11), arrvm::Error);
  CHECK_THROWS_AS(a(0, 0), arrvm::Error);
}

TEST_CASE("array_api: slicing 2-D, reshape, transpose, broadcast_to") {
  Vm vm = ref_vm();
  const Array m = Array::arange(12, DType::Int64, vm).reshape({3, 4});
  CHECK(m.shape() == Shape{3, 4});
  check_values<int64_t>(m(1), {4, 5, 6, 7});
  CHECK(m(1).shape() == Shape{4});
  check_values<int64_t>(m(Slice(), 2), {2, 6, 10});
  CHECK(m(-1, -1).item<int64_t>() == 11);
  check_values<int64_t>(m(Slice({}, {}, -1), Slice(1, {}, 2)), {9, 11, 5, 7, 1, 3});
  check_values<int64_t>(m.slice({Slice(1, 3)}), {4, 5, 6, 7, 8, 9, 10, 11});
  CHECK_THROWS_AS(m(3), arrvm::Error);
  CHECK_THROWS_AS(m(0, 0, 0), arrvm::Error);

  const Array t = m.transpose();
  CHECK(t.shape() == Shape{4, 3});
  CHECK(t.strides() == Shape{1, 4});
  check_values<int64_t>(t, {0, 4, 8, 1, 5, 9, 2, 6, 10, 3, 7, 11});
  check_values<int64_t>(m.transpose({1, 0}), {0, 4, 8, 1, 5, 9, 2, 6, 10, 3, 7, 11});
  CHECK_THROWS_AS(m.transpose({0, 0}), arrvm::Error);

  // A contiguous reshape is a view; a non-contiguous one copies.
  const Array r = m.reshape({2, -1});
  CHECK(r.shape() == Shape{2, 6});
  CHECK(r.base_id() == m.base_id());
  const Array tr = t.reshape({12});
  CHECK(tr.base_id() != m.base_id());
  check_values<int64_t>(tr, {0, 4, 8, 1, 5, 9, 2, 6, 10, 3, 7, 11});
  check_values<int64_t>(m(Slice(), 1).reshape({3, 1}), {1, 5, 9});
  CHECK(m.ravel().shape() == Shape{12});
  CHECK_THROWS_AS(m.reshape({5, -1}), arrvm::Error);
  CHECK_THROWS_AS(m.reshape({5, 2}), arrvm::Error);

  const Array b = Array::arange(3, DType::Int64, vm).broadcast_to({2, 3});
  CHECK(b.strides() == Shape{0, 1});
  check_values<int64_t>(b, {0, 1, 2, 0, 1, 2});
  CHECK_THROWS_AS(Array::arange(3, DType::Int64, vm).broadcast_to({4}), arrvm::Error);
}

TEST_CASE("array_api: assignment into views") {
  Vm vm = ref_vm();
  SUBCASE("scalars and arrays, with casts") {
    Array a = Array::zeros({5}, DType::Int32, vm);
    a(Slice(1, 4)) = 7;
    check_values<int32_t>(a, {0, 7, 7, 7, 0});
    a(Slice(1, 4)) = Array::arange(3, DType::Int64, vm);  // int64 -> int32
    check_values<int32_t>(a, {0, 0, 1, 2, 0});
    a(Slice({}, {}, 2)) = Array::from_host(std::vector<double>{1.9, -2.9, 3.5}, vm);  // truncates
    check_values<int32_t>(a, {1, 0, -2, 2, 3});
    a(4) = -8;
    check_values<int32_t>(a, {1, 0, -2, 2, -8});
  }
  SUBCASE("broadcasting into a 2-D view") {
    Array m = Array::zeros({2, 3}, DType::Float64, vm);
    m.assign(Array::arange(3, DType::Float64, vm));
    check_values<double>(m, {0, 1, 2, 0, 1, 2});
    m(Slice(), 1) = Array::from_host(std::vector<double>{5, 6}, vm);
    check_values<double>(m, {0, 5, 2, 0, 6, 2});
    m.assign(5.5);
    check_values<double>(m, {5.5, 5.5, 5.5, 5.5, 5.5, 5.5});
    m(0) = Array::full({1, 3}, 1, DType::Float64, vm);  // extra leading axis of length 1
    check_values<double>(m, {1, 1, 1, 5.5, 5.5, 5.5});
    CHECK_THROWS_AS(m.assign(Array::arange(4, DType::Float64, vm)), arrvm::Error);
    CHECK_THROWS_AS(m(0) = Array::arange(2, DType::Float64, vm), arrvm::Error);
  }
  SUBCASE("writes through a view are seen by every handle on the base") {
    Array a = Array::arange(4, DType::Int64, vm);
    Array b = a;
    Array v = a(Slice(2, {}));
    v.assign(0);
    check_values<int64_t>(b, {0, 1, 0, 0});
  }
  SUBCASE("lvalue assignment rebinds") {
    Array a = Array::arange(3, DType::Int64, vm);
    Array b = a;
    b = Array::ones({2}, DType::Int64, vm);
    check_values<int64_t>(a, {0, 1, 2});
    check_values<int64_t>(b, {1, 1});
  }
  SUBCASE("overlapping source and destination (NumPy: source read first)") {
    Array a = Array::arange(6, DType::Int64, vm);
    a(Slice(1, {})) = a(Slice({}, -1));
    check_values<int64_t>(a, {0, 0, 1, 2, 3, 4});
    Array b = Array::arange(6, DType::Int64, vm);
    b(Slice({}, -1)) = b(Slice(1, {}));
    check_values<int64_t>(b, {1, 2, 3, 4, 5, 5});
    Array c = Array::arange(6, DType::Int64, vm);
    c.assign(c(Slice({}, {}, -1)));
    check_values<int64_t>(c, {5, 4, 3, 2, 1, 0});
    Array d = Array::arange(4, DType::Int64, vm);
    d.assign(d);  // the same view: nothing to do
    check_values<int64_t>(d, {0, 1, 2, 3});
    // Interleaved views do not overlap: no copy needed, same result.
    Array e = Array::arange(6, DType::Int64, vm);
    e(Slice(1, {}, 2)) = e(Slice({}, {}, 2));
    check_values<int64_t>(e, {0, 0, 2, 2, 4, 4});
  }
  SUBCASE("in-place operators write into the view") {
    Array a = Array::arange(4, DType::Int32, vm);
    const int64_t base = a.base_id();
    a += 1;
    CHECK(a.base_id() == base);
    CHECK(a.dtype() == DType::Int32);
    check_values<int32_t>(a, {1, 2, 3, 4});
    a(Slice(1, {})) += a(Slice({}, -1));  // overlapping: NumPy reads a[:-1] first
    check_values<int32_t>(a, {1, 3, 5, 7});
    // NumPy's 'same_kind' rule: a float result does not go into an int
    // array in place (TypeError in NumPy), and the array is left as it was;
    // assigning it into a view casts (as NumPy's a[...] = x does).
    CHECK_THROWS_WITH_AS(a *= 2.5,
                         "Cannot cast ufunc 'multiply' output from dtype('float64') to dtype('int32') with "
                         "casting rule 'same_kind'",
                         arrvm::Error);
    check_values<int32_t>(a, {1, 3, 5, 7});
    a.assign(a * 2.5);  // float64 result cast back to int32
    check_values<int32_t>(a, {2, 7, 12, 17});
    a -= Array::full({}, 2, DType::Int8, vm);
    check_values<int32_t>(a, {0, 5, 10, 15});
    CHECK_THROWS_AS(a /= 4, arrvm::Error);  // true division: float64
    a.assign(a / 4);
    check_values<int32_t>(a, {0, 1, 2, 3});
    Array u = Array::arange(3, DType::UInt8, vm);
    CHECK_THROWS_AS(u -= Array::arange(3, DType::Int64, vm), arrvm::Error);  // int64 into uint8
    Array f = Array::arange(3, DType::Float32, vm);
    f += Array::arange(3, DType::Int64, vm);  // float64 into float32: same kind
    check_values<float>(f, {0, 2, 4});
    a %= 2;
    check_values<int32_t>(a, {0, 1, 0, 1});
    a |= 6;
    check_values<int32_t>(a, {6, 7, 6, 7});
    a &= 5;
    check_values<int32_t>(a, {4, 5, 4, 5});
    a ^= 1;
    check_values<int32_t>(a, {5, 4, 5, 4});
    a <<= 2;
    check_values<int32_t>(a, {20, 16, 20, 16});
    a >>= 3;
    check_values<int32_t>(a, {2, 2, 2, 2});
    Array m = Array::zeros({2, 3}, DType::Float64, vm);
    m(Slice(), 0) -= 100;
    m += Array::arange(3, DType::Float64, vm);  // broadcast
    check_values<double>(m, {-100, 1, 2, -100, 1, 2});
    Array small = Array::zeros({3}, DType::Float64, vm);
    CHECK_THROWS_AS(small += Array::zeros({2, 3}, DType::Float64, vm), arrvm::Error);
  }
}

TEST_CASE("array_api: a read-only view refuses every write, and its later views too") {
  Vm vm = ref_vm();
  Array a = Array::arange(4, DType::Int64, vm);
  Array before = a(Slice(1, 3));  // taken while writable: stays writable (NumPy)
  a.set_writeable(false);
  CHECK(!a.writeable());
  const Array ones = Array::ones({4}, DType::Int64, vm);
  CHECK_THROWS_WITH_AS(a.assign(ones), "assignment destination is read-only", arrvm::Error);
  CHECK_THROWS_AS(a.assign(arrvm::HostScalar(int64_t{5})), arrvm::Error);
  CHECK_THROWS_AS(a += ones, arrvm::Error);
  CHECK_THROWS_AS(a *= arrvm::HostScalar(int64_t{2}), arrvm::Error);
  CHECK_THROWS_AS(a(Slice(0, 2)).assign(arrvm::HostScalar(int64_t{9})),
                  arrvm::Error);  // a view taken afterwards
  CHECK_THROWS_AS(a.reshape({2, 2}).transpose().assign(arrvm::HostScalar(int64_t{9})), arrvm::Error);
  CHECK_THROWS_AS(a.put(Array::arange(2, DType::Int64, vm), arrvm::HostScalar(int64_t{9})), arrvm::Error);
  CHECK_THROWS_AS(ufunc("negative", {arrvm::ArrayOrScalar(a)}, &a), arrvm::Error);
  check_values<int64_t>(a, {0, 1, 2, 3});  // nothing was written
  before.assign(arrvm::HostScalar(int64_t{7}));
  Array c = a.copy();
  c.assign(arrvm::HostScalar(int64_t{1}));  // a copy is writable
  check_values<int64_t>(a, {0, 7, 7, 3});
  check_values<int64_t>(c, {1, 1, 1, 1});
  a.set_writeable(true);
  a(Slice(0, 1)) = 4;
  check_values<int64_t>(a, {4, 7, 7, 3});
}

TEST_CASE("array_api: strided views of the base, bounds checked") {
  Vm vm = ref_vm();
  const Array a = Array::arange(8, DType::Int64, vm);
  check_values<int64_t>(a.strided(1, {3}, {2}), {1, 3, 5});
  check_values<int64_t>(a.strided(0, {2, 3}, {1, 2}), {0, 2, 4, 1, 3, 5});  // a transposed 3 x 2
  check_values<int64_t>(a.strided(7, {4}, {-2}), {7, 5, 3, 1});
  check_values<int64_t>(a(Slice(2, 6)).strided(2, {2}, {3}), {2, 5});  // offsets are into the base
  CHECK(a.strided(100, {0}, {1}).size() == 0);                         // empty: nothing is reached
  CHECK_THROWS_WITH_AS(a.strided(0, {5}, {2}), "strides is not compatible with available memory",
                       arrvm::Error);
  CHECK_THROWS_AS(a.strided(1, {2}, {-2}), arrvm::Error);
  CHECK_THROWS_AS(a.strided(0, {2}, {1, 1}), arrvm::Error);
}

TEST_CASE("array_api: the last handle frees its base") {
  Vm vm = ref_vm();
  const auto& bases = vm.runtime().bases();
  const std::size_t before = bases.live_count();
  {
    const Array a = Array::arange(5, DType::Int64, vm);
    CHECK(bases.live_count() == before + 1);
    const Array b = (a + 1) * 2;  // one temporary freed, one result kept
    CHECK(bases.live_count() == before + 2);
    check_values<int64_t>(b, {2, 4, 6, 8, 10});
  }
  CHECK(bases.live_count() == before);
  {
    Array v;
    {
      const Array a = Array::arange(5, DType::Int64, vm);
      v = a(Slice(2, {}));
    }
    CHECK(bases.live_count() == before + 1);  // the view keeps the base alive
    check_values<int64_t>(v, {2, 3, 4});
    Array w = v;
    v = Array();
    CHECK(bases.live_count() == before + 1);
    w = Array();
    CHECK(bases.live_count() == before);
  }
  vm.flush();
  CHECK(vm.runtime().pending() == 0);
}

TEST_CASE("array_api: instructions issued") {
  Vm vm = ref_vm();
  arrvm::Runtime& rt = vm.runtime();
  Array a = Array::arange(6, DType::Int64, vm);
  uint64_t n = rt.instructions_issued();
  a += 1;  // straight into a's view: one add
  CHECK(rt.instructions_issued() - n == 1);
  n = rt.instructions_issued();
  const Array v = a(Slice(1, 3)).transpose().reshape({2});  // views: nothing issued
  CHECK(rt.instructions_issued() - n == 0);
  n = rt.instructions_issued();
  a(Slice(1, {})) = a(Slice({}, -1));  // one identity; the VM copies the overlapping input
  CHECK(rt.instructions_issued() - n == 1);
  CHECK(rt.profile().overlap_copies == 1);
  check_values<int64_t>(a, {1, 1, 2, 3, 4, 5});
  check_values<int64_t>(v, {1, 2});
  n = rt.instructions_issued();
  a(Slice({}, {}, 2)) = a(Slice(1, {}, 2));  // a[::2] = a[1::2]: disjoint, no copy
  CHECK(rt.instructions_issued() - n == 1);
  CHECK(rt.profile().overlap_copies == 1);
  check_values<int64_t>(a, {1, 1, 3, 3, 5, 5});
}

TEST_CASE("array_api: vms") {
  Vm vm = ref_vm();
  Vm other = ref_vm();
  CHECK(vm != other);
  const Array a = Array::arange(3, DType::Int64, vm);
  CHECK(a.vm() == vm);
  const Array b = Array::arange(3, DType::Int64, other);
  CHECK_THROWS_AS(a + b, arrvm::Error);
  CHECK_THROWS_AS(Vm({{"no_such_option", "1"}}), arrvm::Error);
  CHECK_THROWS_AS(Vm({{"backend", "no_such_backend"}}), arrvm::Error);
  CHECK(a.describe() == "Array(int64, shape=[3], base=b" + std::to_string(a.base_id()) + ")");
}

// Issue 18: the copy for an overlapping assignment is the VM's, inserted only
// when the views share an element; the trace holds the program as written.
TEST_CASE("array_api: a[::2] = a[1::2] records one identity and copies nothing; a[1:] = a[:-1] copies once") {
  const std::string path = (std::filesystem::temp_directory_path() /
                            ("arrvm_overlap_trace_" + std::to_string(::getpid()) + ".jsonl"))
                               .string();
  int counted[2] = {0, 0};
  for (const bool disjoint : {true, false}) {
    CAPTURE(disjoint);
    uint64_t copies = 0;
    {
      Vm vm({{"backend", "cpu"}, {"fuser", "greedy"}, {"trace", path}});
      Array a = Array::arange(8, DType::Float64, vm);
      if (disjoint) {
        a(Slice({}, {}, 2)) = a(Slice(1, {}, 2));
        check_values<double>(a, {1, 1, 3, 3, 5, 5, 7, 7});
      } else {
        a(Slice(1, {})) = a(Slice({}, -1));
        check_values<double>(a, {0, 0, 1, 2, 3, 4, 5, 6});
      }
      copies = vm.runtime().profile().overlap_copies;
    }
    std::ifstream f(path);
    std::string line;
    int identities = 0, instructions = 0;
    while (std::getline(f, line)) {
      if (line.find("\"op\"") == std::string::npos || line.find("\"sync\"") != std::string::npos) continue;
      ++instructions;
      if (line.find("\"identity\"") != std::string::npos) ++identities;
    }
    CHECK(identities == 1);                 // the assignment, as written: the VM's copy is not in the trace
    CHECK(copies == (disjoint ? 0u : 1u));  // the VM copies only when the views share an element
    counted[disjoint ? 0 : 1] = instructions;
    std::filesystem::remove(path);
  }
  CHECK(counted[0] == counted[1]);  // the same program either way
  CHECK(counted[0] >= 2);
}
