// Issue 18: never-written inputs read as zeros on every backend and fuser;
// an instruction whose output shares elements with an input has NumPy's
// meaning (the VM inserts the copy, only when the views truly overlap);
// run-time failures poison exactly the arrays they (and their dependents)
// write.
#include <doctest/doctest.h>

#include <cmath>
#include <functional>
#include <numeric>
#include <string>
#include <vector>

#include "engine/runtime.hpp"
#include "tests/opencl_test_util.hpp"
#include "tests/ref_test_util.hpp"
#include "vm/error.hpp"

using namespace arrvm;  // tests only
using namespace reftest;

namespace {

const char* const kBackends[] = {"ref", "cpu", "opencl"};
const char* const kFusers[] = {"singleton", "linear", "greedy", "unintrusive", "optimal", "ilp"};

std::vector<double> read_f64(Runtime& rt, BaseId id, int64_t n) {
  std::vector<double> v(static_cast<std::size_t>(n));
  rt.read(id, v.data(), v.size() * sizeof(double));
  return v;
}

// NumPy's meaning of `out = f(in)` for views of one base: every input
// element is read before any output element is written.
std::vector<double> numpy_unary(std::vector<double> base, const View& out, const View& in,
                                const std::function<double(double)>& f) {
  std::vector<double> vals;
  Dims idx = Dims::filled(out.rank(), 0);
  const int64_t n = out.nelem();
  for (int64_t e = 0; e < n; ++e) {
    int64_t src = in.offset, k = e;
    for (int d = out.rank() - 1; d >= 0; --d) {
      src += (k % out.shape[d]) * in.stride[d];
      k /= out.shape[d];
    }
    vals.push_back(f(base[static_cast<std::size_t>(src)]));
  }
  for (int64_t e = 0; e < n; ++e) {
    int64_t dst = out.offset, k = e;
    for (int d = out.rank() - 1; d >= 0; --d) {
      dst += (k % out.shape[d]) * out.stride[d];
      k /= out.shape[d];
    }
    base[static_cast<std::size_t>(dst)] = vals[static_cast<std::size_t>(e)];
  }
  return base;
}

std::vector<double> iota_base(int64_t n) {
  std::vector<double> b(static_cast<std::size_t>(n));
  for (std::size_t i = 0; i < b.size(); ++i) b[i] = 0.25 * static_cast<double>(i) - 3.0;
  return b;
}

}  // namespace

TEST_CASE("never-written inputs read as 0 in every opcode kind, view kind, size, backend and fuser") {
  for (const char* backend : kBackends) {
    for (const char* fuser : kFusers) {
      Runtime rt(opencltest::config(backend, opencltest::shared_cache_dir(), fuser));
      for (int64_t n : {1, 8, 9, 1000, 1000000}) {
        for (int kind = 0; kind < 3; ++kind) {  // contiguous, strided, broadcast
          CAPTURE(backend);
          CAPTURE(fuser);
          CAPTURE(n);
          CAPTURE(kind);
          const int64_t base_n = kind == 0 ? n : kind == 1 ? 2 * n : 1;
          const BaseId a = rt.new_base(DType::Float64, base_n);
          const View av = kind == 0 ? vec(a, n) : kind == 1 ? view(a, 1, {n}, {2}) : view(a, 0, {n}, {0});
          const BaseId e = rt.new_base(DType::Float64, n), r = rt.new_base(DType::Float64, 1),
                       s = rt.new_base(DType::Float64, n), idx = rt.new_base(DType::Int64, n),
                       g = rt.new_base(DType::Float64, n);
          rt.issue(make(Opcode::Add, vec(e, n), {in(av), konst(1.0)}));
          rt.issue(make(Opcode::AddReduce, scalar_view(r, 0), {in(av)}, 0));
          rt.issue(make(Opcode::AddAccumulate, vec(s, n), {in(av)}, 0));
          rt.issue(make(Opcode::Range, vec(idx, n)));
          rt.issue(make(Opcode::Subtract, vec(idx, n), {konst<int64_t>(n - 1), in(vec(idx, n))}));
          rt.issue(make(Opcode::Gather, vec(g, n), {in(av), in(vec(idx, n))}));
          const std::vector<double> ones(static_cast<std::size_t>(n), 1.0), zeros(ones.size(), 0.0);
          CHECK(read_f64(rt, e, n) == ones);
          CHECK(read_f64(rt, r, 1) == std::vector<double>{0.0});
          CHECK(read_f64(rt, s, n) == zeros);
          CHECK(read_f64(rt, g, n) == zeros);
          CHECK(read_f64(rt, a, base_n) == std::vector<double>(static_cast<std::size_t>(base_n), 0.0));
          for (BaseId b : {a, e, r, s, idx, g}) rt.free_base(b);
        }
      }
    }
  }
}

TEST_CASE("three overlapping view patterns run with NumPy's meaning on every backend") {
  struct Pattern {
    const char* name;
    int64_t nelem;
    View out, in;
    Opcode op;
    std::function<double(double)> f;
  };
  const Pattern patterns[] = {
      {"sin, transposed output, strided input", 101, view(0, 18, {3, 2}, {1, 36}),
       view(0, 26, {3, 2}, {36, 2}), Opcode::Sin, [](double x) { return std::sin(x); }},
      {"identity, broadcast input between output rows", 24, view(0, 0, {6, 2}, {4, 1}),
       view(0, 3, {6, 2}, {4, 0}), Opcode::Identity, [](double x) { return x; }},
      {"absolute, broadcast input among strided output", 40, view(0, 0, {3, 1, 7}, {13, 13, 2}),
       view(0, 3, {3, 1, 7}, {0, 13, 0}), Opcode::Absolute, [](double x) { return std::fabs(x); }},
      // true overlaps: the VM copies the input first
      {"shift right by one (a[1:] = a[:-1])", 10, view(0, 1, {9}, {1}), view(0, 0, {9}, {1}),
       Opcode::Identity, [](double x) { return x; }},
      {"reverse in place (a[:] = a[::-1])", 9, view(0, 0, {9}, {1}), view(0, 8, {9}, {-1}), Opcode::Negative,
       [](double x) { return -x; }},
      {"transpose in place (a[:] = a.T)", 16, view(0, 0, {4, 4}, {4, 1}), view(0, 0, {4, 4}, {1, 4}),
       Opcode::Absolute, [](double x) { return std::fabs(x); }},
      {"broadcast a row over all rows (a[:] = a[1])", 12, view(0, 0, {3, 4}, {4, 1}),
       view(0, 4, {3, 4}, {0, 1}), Opcode::Exp, [](double x) { return std::exp(x); }},
  };
  for (const char* backend : kBackends) {
    for (const Pattern& p : patterns) {
      CAPTURE(backend);
      CAPTURE(p.name);
      Runtime rt(opencltest::config(backend));
      const BaseId b = rt.new_base(DType::Float64, p.nelem);
      const std::vector<double> init = iota_base(p.nelem);
      rt.write(b, init.data(), init.size() * sizeof(double));
      View out = p.out, inp = p.in;
      out.base = inp.base = b;
      rt.issue(make(p.op, out, {in(inp)}));
      const std::vector<double> want = numpy_unary(init, out, inp, p.f);
      const std::vector<double> got = read_f64(rt, b, p.nelem);
      for (std::size_t i = 0; i < want.size(); ++i) CHECK(got[i] == doctest::Approx(want[i]).epsilon(1e-14));
      const bool overlaps = may_overlap(out, inp) && !same_elements(out, inp);
      CHECK(rt.profile().overlap_copies == (overlaps ? 1u : 0u));
    }
  }
}

TEST_CASE("a reduction, a scan and a gather into a view of their own input's base") {
  for (const char* backend : kBackends) {
    CAPTURE(backend);
    Runtime rt(opencltest::config(backend));
    const BaseId b = rt.new_base(DType::Float64, 12);
    const std::vector<double> init = iota_base(12);
    rt.write(b, init.data(), 96);
    // row sums of the 3x4 matrix written into its column 1 (overlapping)
    rt.issue(make(Opcode::AddReduce, view(b, 1, {3}, {4}), {in(view(b, 0, {3, 4}, {4, 1}))}, 1));
    std::vector<double> want = init;
    for (int r = 0; r < 3; ++r)
      want[4 * r + 1] = init[4 * r] + init[4 * r + 1] + init[4 * r + 2] + init[4 * r + 3];
    CHECK(read_f64(rt, b, 12) == want);
    // cumulative sum of elements 0..5 written into elements 2..7
    const std::vector<double> cur = want;
    rt.issue(make(Opcode::AddAccumulate, view(b, 2, {6}, {1}), {in(view(b, 0, {6}, {1}))}, 0));
    double acc = 0;
    for (int i = 0; i < 6; ++i) want[2 + i] = (acc += cur[i]);
    CHECK(read_f64(rt, b, 12) == want);
    // a[::2] = a[idx] with idx reversing the odd elements: a gather from its own base
    const BaseId idx = rt.new_base(DType::Int64, 6);
    const std::vector<int64_t> iv = {11, 9, 7, 5, 3, 1};
    rt.write(idx, iv.data(), 48);
    const std::vector<double> cur2 = want;
    rt.issue(make(Opcode::Gather, view(b, 0, {6}, {2}), {in(vec(b, 12)), in(vec(idx, 6))}));
    for (int i = 0; i < 6; ++i) want[2 * i] = cur2[static_cast<std::size_t>(iv[i])];
    CHECK(read_f64(rt, b, 12) == want);
    CHECK(rt.profile().overlap_copies ==
          3);  // one per instruction: each output shares elements with its input
  }
}

TEST_CASE("a run-time failure poisons exactly what it writes and what is computed from it") {
  for (const char* backend : kBackends) {
    for (const char* fuser : {"singleton", "greedy"}) {
      CAPTURE(backend);
      CAPTURE(fuser);
      Runtime rt(opencltest::config(backend, opencltest::shared_cache_dir(), fuser));
      const BaseId src = rt.new_base(DType::Float64, 4), idx = rt.new_base(DType::Int64, 3),
                   out = rt.new_base(DType::Float64, 3), dep = rt.new_base(DType::Float64, 3),
                   other = rt.new_base(DType::Float64, 4);
      const std::vector<double> s = {1, 2, 3, 4};
      const std::vector<int64_t> bad = {0, 7, 1};
      rt.write(src, s.data(), 32);
      rt.write(idx, bad.data(), 24);
      rt.issue(
          make(Opcode::Gather, vec(out, 3), {in(vec(src, 4)), in(vec(idx, 3))}));  // take(src, [0, 7, 1])
      rt.issue(make(Opcode::Multiply, vec(dep, 3), {in(vec(out, 3)), konst(2.0)}));
      rt.issue(make(Opcode::Add, vec(other, 4), {in(vec(src, 4)), konst(10.0)}));
      // The unrelated array is read first: it is right, and no error surfaces.
      CHECK(read_f64(rt, other, 4) == std::vector<double>{11, 12, 13, 14});
      std::vector<double> buf(3);
      CHECK_THROWS_WITH_AS(rt.read(out, buf.data(), 24), doctest::Contains("index 7 out of range [0, 4)"),
                           Error);
      CHECK_THROWS_WITH_AS(rt.read(dep, buf.data(), 24), doctest::Contains("index 7 out of range"), Error);
      CHECK(rt.is_poisoned(out));
      CHECK_FALSE(rt.is_poisoned(src));
      CHECK(read_f64(rt, src, 4) == s);
      // A later computation from a poisoned array is poisoned too; overwriting all of it cures it.
      const BaseId later = rt.new_base(DType::Float64, 3);
      rt.issue(make(Opcode::Sqrt, vec(later, 3), {in(vec(dep, 3))}));
      CHECK_THROWS_AS(rt.read(later, buf.data(), 24), Error);
      rt.issue(make(Opcode::Identity, vec(out, 3), {konst(5.0)}));
      CHECK(read_f64(rt, out, 3) == std::vector<double>{5, 5, 5});
      const std::vector<double> host = {7, 8, 9};
      rt.write(dep, host.data(), 24);
      CHECK(read_f64(rt, dep, 3) == host);
      // The VM goes on computing correctly.
      const BaseId z = rt.new_base(DType::Float64, 1);
      rt.issue(make(Opcode::AddReduce, scalar_view(z, 0), {in(vec(other, 4))}, 0));
      CHECK(read_f64(rt, z, 1) == std::vector<double>{50});
    }
  }
}
