// The `ref` backend on non-trivial views (offsets, broadcast stride-0 inputs,
// reversed and transposed views, 0-d, zero-size, high rank), generators on
// strided views, memory semantics, and the backend interface and registry.
#include <doctest/doctest.h>

#include <algorithm>

#include "backends/backend.hpp"
#include "backends/ref/ref_backend.hpp"
#include "tests/ref_test_util.hpp"

using namespace reftest;  // tests only

namespace {

using O = Opcode;

}  // namespace

TEST_SUITE("ref views") {
  TEST_CASE("offset views") {
    Vm vm;
    const BaseId a = vm.array<double>({0, 1, 2, 3, 4, 5});
    const BaseId b = vm.array<double>({10, 20, 30, 40, 50, 60});
    const BaseId o = vm.empty<double>(6);
    // o[1:4] = a[2:5] + b[0:3]
    vm.issue(make(O::Add, view(o, 1, {3}, {1}), {in(view(a, 2, {3}, {1})), in(view(b, 0, {3}, {1}))}));
    check_same(vm.read<double>(o), Vec<double>{0, 12, 23, 34, 0, 0});
    // o[0:6:2] = b[1:6:2] - 1
    vm.issue(make(O::Subtract, view(o, 0, {3}, {2}), {in(view(b, 1, {3}, {2})), konst<double>(1)}));
    check_same(vm.read<double>(o), Vec<double>{19, 12, 39, 34, 59, 0});
  }

  TEST_CASE("broadcast inputs: by shape and by explicit stride 0") {
    Vm vm;
    const BaseId a = vm.array<int32_t>({1, 2, 3, 4, 5, 6});  // 2x3
    const BaseId row = vm.array<int32_t>({10, 20, 30});
    const BaseId col = vm.array<int32_t>({100, 200});
    const BaseId o = vm.empty<int32_t>(6);
    const View a2 = view(a, 0, {2, 3}, {3, 1}), o2 = view(o, 0, {2, 3}, {3, 1});
    vm.issue(make(O::Add, o2, {in(a2), in(vec(row, 3))}));  // [3] broadcast to [2,3]
    check_same(vm.read<int32_t>(o), Vec<int32_t>{11, 22, 33, 14, 25, 36});
    vm.issue(make(O::Add, o2, {in(a2), in(view(col, 0, {2, 3}, {1, 0}))}));  // column, stride 0
    check_same(vm.read<int32_t>(o), Vec<int32_t>{101, 102, 103, 204, 205, 206});
    vm.issue(make(O::Multiply, o2, {in(view(col, 0, {2, 1}, {1, 1})), in(vec(row, 3))}));  // [2,1] x [3]
    check_same(vm.read<int32_t>(o), Vec<int32_t>{1000, 2000, 3000, 2000, 4000, 6000});
    vm.issue(make(O::Identity, o2, {in(view(col, 1, {}, {}))}));  // 0-d broadcast to [2,3]
    check_same(vm.read<int32_t>(o), Vec<int32_t>{200, 200, 200, 200, 200, 200});
  }

  TEST_CASE("rows at unit step: slices, row, column and scalar broadcasts, every pairing, against a loop") {
    // A (3 x 5) output inside a (4 x 7) base; inputs from a (5 x 8) matrix
    // as a slice (rows at unit step), its row 1 down the rows (stride 0, 1),
    // its column 2 along the rows (stride 8, 0) and one element (0, 0).
    Vm vm;
    Vec<double> host(40);
    for (int i = 0; i < 40; ++i) host[i] = i * 0.5 - 3;
    const BaseId m = vm.array<double>(host);
    const BaseId o = vm.empty<double>(28);
    const View out = view(o, 8, {3, 5}, {7, 1});
    struct Form {
      View v;
      int64_t off, rs, cs;  // element (r, c) of m is off + r * rs + c * cs
    };
    const Form forms[] = {{view(m, 9, {3, 5}, {8, 1}), 9, 8, 1},
                          {view(m, 8, {3, 5}, {0, 1}), 8, 0, 1},
                          {view(m, 2, {3, 5}, {8, 0}), 2, 8, 0},
                          {view(m, 0, {3, 5}, {0, 0}), 0, 0, 0}};
    for (const Form& x : forms) {
      vm.issue(make(O::Negative, out, {in(x.v)}));
      Vec<double> got = vm.read<double>(o);
      for (int r = 0; r < 3; ++r) {
        for (int c = 0; c < 5; ++c) CHECK(got[8 + r * 7 + c] == -host[x.off + r * x.rs + c * x.cs]);
      }
      for (const Form& y : forms) {
        vm.issue(make(O::Subtract, out, {in(x.v), in(y.v)}));
        got = vm.read<double>(o);
        for (int r = 0; r < 3; ++r) {
          for (int c = 0; c < 5; ++c) {
            CHECK(got[8 + r * 7 + c] ==
                  host[x.off + r * x.rs + c * x.cs] - host[y.off + r * y.rs + c * y.cs]);
          }
        }
        CHECK(got[7] == 0);  // outside the output's rows: untouched
        CHECK(got[13] == 0);
      }
    }
  }

  TEST_CASE("reversed and transposed views") {
    Vm vm;
    const BaseId a = vm.array<int16_t>({1, 2, 3, 4, 5, 6});
    const BaseId o = vm.empty<int16_t>(6);
    vm.issue(make(O::Negative, vec(o, 6), {in(view(a, 5, {6}, {-1}))}));  // reversed input
    check_same(vm.read<int16_t>(o), Vec<int16_t>{-6, -5, -4, -3, -2, -1});
    vm.issue(make(O::Identity, view(o, 5, {6}, {-1}), {in(vec(a, 6))}));  // reversed output
    check_same(vm.read<int16_t>(o), Vec<int16_t>{6, 5, 4, 3, 2, 1});
    vm.issue(make(O::Identity, view(o, 0, {2, 3}, {3, 1}),
                  {in(view(a, 5, {2, 3}, {-3, -1}))}));  // both axes reversed
    check_same(vm.read<int16_t>(o), Vec<int16_t>{6, 5, 4, 3, 2, 1});
    vm.issue(
        make(O::Identity, view(o, 0, {3, 2}, {2, 1}), {in(view(a, 0, {3, 2}, {1, 3}))}));  // transpose of 2x3
    check_same(vm.read<int16_t>(o), Vec<int16_t>{1, 4, 2, 5, 3, 6});
    vm.issue(make(O::Add, view(o, 0, {3, 2}, {1, 3}), {in(view(a, 2, {3, 2}, {-1, 3})), konst<int16_t>(10)}));
    // o[j][i] (transposed) = a[i][2-j] + 10
    check_same(vm.read<int16_t>(o), Vec<int16_t>{13, 12, 11, 16, 15, 14});
  }

  TEST_CASE("a transposed operand larger than a tile: every element, against a loop") {
    // 37 rows (two tiles of 16 and a part), 3 outer slices, 5 columns:
    // the output is c[s][i][j] = a[s][j][i] * b[i][j], a transposed
    // within each slice (step 1 along i, 37 along j).
    Vm vm;
    const int64_t S = 3, R = 37, C = 5;
    Vec<double> av, bv, want;
    for (int64_t k = 0; k < S * C * R; ++k) av.push_back(static_cast<double>(k % 97) - 40.5);
    for (int64_t k = 0; k < R * C; ++k) bv.push_back(1.0 + static_cast<double>(k % 7));
    for (int64_t s = 0; s < S; ++s)
      for (int64_t i = 0; i < R; ++i)
        for (int64_t j = 0; j < C; ++j) want.push_back(av[s * C * R + j * R + i] * bv[i * C + j]);
    const BaseId a = vm.array<double>(av);
    const BaseId b = vm.array<double>(bv);
    const BaseId o = vm.empty<double>(S * R * C);
    vm.issue(make(O::Multiply, view(o, 0, {S, R, C}, {R * C, C, 1}),
                  {in(view(a, 0, {S, R, C}, {C * R, 1, R})), in(view(b, 0, {S, R, C}, {0, C, 1}))}));
    check_same(vm.read<double>(o), want);
    // A unary one, into a transposed output (the output steps 1 along rows).
    const BaseId p = vm.empty<double>(R * C);
    vm.issue(make(O::Negative, view(p, 0, {R, C}, {1, R}), {in(view(b, 0, {R, C}, {C, 1}))}));
    Vec<double> negated;
    for (int64_t j = 0; j < C; ++j)
      for (int64_t i = 0; i < R; ++i) negated.push_back(-bv[i * C + j]);
    check_same(vm.read<double>(p), negated);
  }

  TEST_CASE("0-d views") {
    Vm vm;
    const BaseId a = vm.array<double>({7, 8});
    const BaseId o = vm.empty<double>(3);
    vm.issue(make(O::Multiply, scalar_view(o, 2), {in(scalar_view(a, 1)), konst<double>(5)}));
    check_same(vm.read<double>(o), Vec<double>{0, 0, 40});
    vm.issue(make(O::Range, scalar_view(o, 0)));
    vm.issue(make(O::Where, scalar_view(o, 1), {konst<bool>(true), in(scalar_view(a, 0)), konst<double>(1)}));
    check_same(vm.read<double>(o), Vec<double>{0, 7, 40});
  }

  TEST_CASE("in-place elementwise on identical views") {
    Vm vm;
    const BaseId a = vm.array<int64_t>({1, 2, 3, 4});
    vm.issue(
        make(O::Multiply, view(a, 3, {4}, {-1}), {in(view(a, 3, {4}, {-1})), in(view(a, 3, {4}, {-1}))}));
    vm.issue(make(O::Add, vec(a, 4), {in(vec(a, 4)), konst<int64_t>(1)}));
    check_same(vm.read<int64_t>(a), Vec<int64_t>{2, 5, 10, 17});
  }

  TEST_CASE("zero-size views do nothing") {
    Vm vm;
    const BaseId a = vm.array<float>({1, 2, 3, 4, 5, 6});
    const BaseId o = vm.empty<float>(6);
    vm.issue(make(O::Add, view(o, 0, {0}, {1}), {in(view(a, 0, {0}, {1})), konst<float>(1)}));
    vm.issue(make(O::Identity, view(o, 0, {2, 0, 3}, {3, 7, 1}), {in(view(a, 0, {2, 0, 3}, {3, 7, 1}))}));
    vm.issue(make(O::Range, view(o, 6, {0}, {1})));
    vm.issue(make(O::Random, view(o, 0, {3, 0}, {1, 1}), {}, 0, 42));
    check_same(vm.read<float>(o), Vec<float>{0, 0, 0, 0, 0, 0});
    const BaseId none = vm.empty<float>(0);
    vm.issue(make(O::Sqrt, vec(none, 0), {in(vec(none, 0))}));
    check_same(vm.read<float>(none), Vec<float>{});
  }

  TEST_CASE("high-rank views up to kMaxRank") {
    Vm vm;
    const BaseId o = vm.empty<int32_t>(8);
    // shape [2,1,1,1,1,1,2,2] over the whole base, the first axis reversed.
    const View v = view(o, 4, {2, 1, 1, 1, 1, 1, 2, 2}, {-4, 8, 8, 8, 8, 8, 2, 1});
    vm.issue(make(O::Range, v));
    check_same(vm.read<int32_t>(o), Vec<int32_t>{4, 5, 6, 7, 0, 1, 2, 3});
    const BaseId p = vm.empty<int32_t>(8);
    vm.issue(make(O::Add, view(p, 0, {2, 2, 2}, {4, 2, 1}),
                  {in(view(o, 0, {2, 2, 2}, {1, 4, 2})), konst<int32_t>(100)}));
    // p[i][j][k] = o[i + 4j + 2k]
    check_same(vm.read<int32_t>(p), Vec<int32_t>{104, 106, 100, 102, 105, 107, 101, 103});
  }

  TEST_CASE("never-written bases read as zero") {
    Vm vm;
    const BaseId z = vm.empty<int32_t>(4);
    check_same(vm.read<int32_t>(z), Vec<int32_t>{0, 0, 0, 0});
    const BaseId o = vm.empty<int32_t>(4);
    vm.issue(make(O::Add, vec(o, 4), {in(vec(z, 4)), konst<int32_t>(3)}));
    check_same(vm.read<int32_t>(o), Vec<int32_t>{3, 3, 3, 3});
    check_same(vm.read<int32_t>(z), Vec<int32_t>{0, 0, 0, 0});
    // A partial write leaves the rest zero.
    const BaseId p = vm.empty<int32_t>(4);
    vm.issue(make(O::Identity, view(p, 1, {2}, {1}), {konst<int32_t>(9)}));
    check_same(vm.read<int32_t>(p), Vec<int32_t>{0, 9, 9, 0});
    // In-place on a never-written base.
    const BaseId q = vm.empty<int32_t>(2);
    vm.issue(make(O::Add, vec(q, 2), {in(vec(q, 2)), konst<int32_t>(1)}));
    check_same(vm.read<int32_t>(q), Vec<int32_t>{1, 1});
    // Two constant inputs.
    vm.issue(make(O::Add, vec(q, 2), {konst<int32_t>(2), konst<int32_t>(3)}));
    check_same(vm.read<int32_t>(q), Vec<int32_t>{5, 5});
  }

  TEST_CASE("write replaces a base; free forgets it") {
    Vm vm;
    const BaseId a = vm.array<uint16_t>({1, 2, 3});
    const BaseId o = vm.empty<uint16_t>(3);
    vm.issue(make(O::Add, vec(o, 3), {in(vec(a, 3)), in(vec(a, 3))}));
    const Vec<uint16_t> fresh = {7, 8, 9};
    vm.rt().write(a, fresh.data(), 6);
    vm.issue(make(O::Add, vec(o, 3), {in(vec(o, 3)), in(vec(a, 3))}));
    check_same(vm.read<uint16_t>(o), Vec<uint16_t>{9, 12, 15});
    vm.rt().free_base(a);
    vm.rt().flush();
    check_same(vm.read<uint16_t>(o), Vec<uint16_t>{9, 12, 15});
  }

  TEST_CASE("bool bases written by the host: any non-zero byte is true") {
    Vm vm;
    const BaseId b = vm.array<bool>({0, 2, 255, 1});
    const BaseId o = vm.empty<bool>(4);
    vm.issue(make(O::LogicalNot, vec(o, 4), {in(vec(b, 4))}));
    check_same(vm.read<bool>(o), vals<bool>({1, 0, 0, 0}));
    check_same(vm.read<bool>(b), vals<bool>({0, 1, 1, 1}));
  }

  TEST_CASE_TEMPLATE("range on every numeric dtype and on a 2-D strided view", T, REFTEST_ARITH) {
    Vm vm;
    const BaseId o = vm.empty<T>(12);
    vm.issue(make(O::Range, view(o, 1, {2, 3}, {6, 2})));  // positions 1,3,5,7,9,11
    check_same(vm.read<T>(o), vals<T>({0, 0, 0, 1, 0, 2, 0, 3, 0, 4, 0, 5}));
    vm.issue(make(O::Range, view(o, 11, {3, 4}, {-1, -3})));  // o[11 - r - 3c] = 4r + c
    check_same(vm.read<T>(o), vals<T>({11, 7, 3, 10, 6, 2, 9, 5, 1, 8, 4, 0}));
  }

  TEST_CASE("range wraps or rounds in narrow dtypes") {
    Vm vm;
    const BaseId o = vm.empty<int8_t>(130);
    vm.issue(make(O::Range, vec(o, 130)));
    const Vec<int8_t> r = vm.read<int8_t>(o);
    CHECK(r[127] == 127);
    CHECK(r[128] == -128);
    CHECK(r[129] == -127);
    const BaseId u = vm.empty<uint8_t>(258);
    vm.issue(make(O::Range, vec(u, 258)));
    const Vec<uint8_t> ru = vm.read<uint8_t>(u);
    CHECK(ru[255] == 255);
    CHECK(ru[256] == 0);
    CHECK(ru[257] == 1);
  }

  TEST_CASE("random on a 2-D view fills exactly the view's elements") {
    Vm vm;
    const BaseId o = vm.empty<double>(12);
    vm.issue(make(O::Random, view(o, 1, {2, 3}, {6, 2}), {}, 0, 7));
    const Vec<double> r = vm.read<double>(o);
    for (int i = 0; i < 12; ++i) {
      CAPTURE(i);
      if (i % 2 == 0) {
        CHECK(r[i] == 0.0);
      } else {
        CHECK(r[i] > 0.0);  // [0,1), and 0 has probability 2^-53
        CHECK(r[i] < 1.0);
      }
    }
    // Distinct elements get distinct values.
    Vec<double> odd = {r[1], r[3], r[5], r[7], r[9], r[11]};
    std::sort(odd.begin(), odd.end());
    CHECK(std::adjacent_find(odd.begin(), odd.end()) == odd.end());
  }

  TEST_CASE("the registry knows ref and names the known backends") {
    const std::vector<std::string> names = arrvm::backend_names();
    CHECK(std::find(names.begin(), names.end(), "ref") != names.end());
    arrvm::Config c;
    c.backend = "ref";
    CHECK(arrvm::make_backend(c)->name() == "ref");
    c.backend = "no-such-backend";
    const std::string msg = error_of([&] { arrvm::make_backend(c); });
    CHECK(msg.find("no-such-backend") != std::string::npos);
    CHECK(msg.find("ref") != std::string::npos);
  }

  TEST_CASE("backend interface: lazy zeros, copies, idempotent release, partition order") {
    const auto be = arrvm::make_ref_backend(arrvm::Config{});
    be->declare(0, DType::Int32, 3);
    be->declare(1, DType::Int32, 3);
    int32_t out[3] = {5, 5, 5};
    be->copy_to_host(0, out);
    CHECK((out[0] == 0 && out[1] == 0 && out[2] == 0));
    const int32_t data[3] = {1, 2, 3};
    be->copy_from_host(0, data);
    // Two instructions writing base 1; the partition runs #1 before #0.
    std::vector<Instruction> batch = {
        make(O::Add, vec(1, 3), {in(vec(0, 3)), konst<int32_t>(10)}),
        make(O::Multiply, vec(1, 3), {in(vec(0, 3)), konst<int32_t>(2)}),
    };
    for (Instruction& i : batch) {
      i.out.dtype = DType::Int32;
      i.in[0].view.dtype = DType::Int32;
    }
    arrvm::Partition p;
    p.blocks = {{1}, {0}};
    be->execute(batch, p);
    be->copy_to_host(1, out);
    CHECK((out[0] == 11 && out[1] == 12 && out[2] == 13));
    be->release(1);
    be->release(1);
    be->release(7);  // never declared: nothing to do
    be->copy_to_host(0, out);
    CHECK((out[0] == 1 && out[1] == 2 && out[2] == 3));
  }

}  // TEST_SUITE
