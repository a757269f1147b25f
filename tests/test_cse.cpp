// Common subexpressions (rewrite/cse.hpp): a repeated costly elementwise
// instruction goes and its readers read the first result, whose free moves
// after theirs; nothing is shared when an input changed in between, the
// operation or a constant differs, the repeat is not a temporary the batch
// frees, or the operation is cheap; chains follow; water_ice's two
// `s**1.5` are computed once and the results stay ref's to the bit; random
// streams of costly operations, their repeats, updates and frees read the
// same bytes with the pass on and off, on ref and cpu.
#include <doctest/doctest.h>

#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "arrvm/arrvm.hpp"
#include "engine/runtime.hpp"
#include "rewrite/cse.hpp"
#include "tests/cpu_test_util.hpp"
#include "tests/ref_test_util.hpp"

using namespace arrvm;  // tests only

namespace {

View whole(BaseId b, int64_t n) {
  return contiguous_view(b, DType::Float64, Dims{n});
}

Operand num(double v) {
  return Operand::of(Scalar::of_double(DType::Float64, v));
}

Operand in(const View& v) {
  return Operand::of(v);
}

Instruction free_of(BaseId b, int64_t n) {
  Instruction f;
  f.op = Opcode::Free;
  f.out = whole(b, n);
  return f;
}

// Bases 1 (s) and 3 (r1) and 5 (r2) are alive after the batch.
std::size_t share(std::vector<Instruction>& batch) {
  std::vector<uint64_t> origin(batch.size());
  for (std::size_t i = 0; i < origin.size(); ++i) origin[i] = i;
  const std::size_t n = share_common_subexpressions(
      batch, origin, [](BaseId b) -> int64_t { return b == 1 || b == 3 || b == 5 ? 6 : -1; });
  REQUIRE(origin.size() == batch.size());
  return n;
}

// t1 = s**1.5; r1 = t1 * 2; del t1; ...; t2 = s**1.5; r2 = r1 + t2; del t2
std::vector<Instruction> repeated_power(double second_exponent = 1.5) {
  return {
      reftest::make(Opcode::Power, whole(2, 6), {in(whole(1, 6)), num(1.5)}),
      reftest::make(Opcode::Multiply, whole(3, 6), {in(whole(2, 6)), num(2.0)}),
      free_of(2, 6),
      reftest::make(Opcode::Power, whole(4, 6), {in(whole(1, 6)), num(second_exponent)}),
      reftest::make(Opcode::Add, whole(5, 6), {in(whole(3, 6)), in(whole(4, 6))}),
      free_of(4, 6),
  };
}

}  // namespace

TEST_CASE("cse: the repeated power goes, its reader reads the first, whose free moves after") {
  std::vector<Instruction> b = repeated_power();
  CHECK(share(b) == 1);
  REQUIRE(b.size() == 5);
  CHECK(b[0].op == Opcode::Power);
  CHECK(b[1].op == Opcode::Multiply);
  CHECK(b[2].op == Opcode::Add);
  CHECK(b[2].in[1].view.base == 2);                        // reads t1
  CHECK((b[3].op == Opcode::Free && b[3].out.base == 4));  // t2's id released
  CHECK((b[4].op == Opcode::Free && b[4].out.base == 2));  // t1 freed after its last reader
}

TEST_CASE(
    "cse: nothing is shared when an input changes, a constant or the view differs, or the repeat stays") {
  SUBCASE("s written in between") {
    std::vector<Instruction> b = repeated_power();
    b.insert(b.begin() + 3, reftest::make(Opcode::Multiply, whole(1, 6), {in(whole(1, 6)), num(2.0)}));
    CHECK(share(b) == 0);
    CHECK(b.size() == 7);
  }
  SUBCASE("another exponent, and -0.0 against 0.0") {
    std::vector<Instruction> b = repeated_power(2.5);
    CHECK(share(b) == 0);
    std::vector<Instruction> z = {
        reftest::make(Opcode::Power, whole(2, 6), {in(whole(1, 6)), num(0.0)}),
        reftest::make(Opcode::Power, whole(4, 6), {in(whole(1, 6)), num(-0.0)}),
        reftest::make(Opcode::Add, whole(5, 6), {in(whole(2, 6)), in(whole(4, 6))}),
        free_of(4, 6),
    };
    CHECK(share(z) == 0);
  }
  SUBCASE("another view of s") {
    std::vector<Instruction> b = repeated_power();
    b[3].in[0].view = make_view(1, 0, Dims{6}, Dims{1});  // the same view: shared
    CHECK(share(b) == 1);
    std::vector<Instruction> c = {
        reftest::make(Opcode::Sqrt, whole(2, 3), {in(make_view(1, 0, Dims{3}, Dims{2}))}),
        reftest::make(Opcode::Sqrt, whole(4, 3), {in(make_view(1, 1, Dims{3}, Dims{2}))}),
        reftest::make(Opcode::Add, make_view(3, 0, Dims{3}, Dims{1}), {in(whole(2, 3)), in(whole(4, 3))}),
        free_of(4, 3),
        free_of(2, 3),
    };
    CHECK(share(c) == 0);
  }
  SUBCASE("the repeat's base stays alive after the batch") {
    std::vector<Instruction> b = repeated_power();
    b.pop_back();
    CHECK(share(b) == 0);
  }
  SUBCASE("the first is written again, or writes part of its base") {
    std::vector<Instruction> b = repeated_power();
    b.insert(b.begin() + 2, reftest::make(Opcode::Add, whole(2, 6), {in(whole(2, 6)), num(1.0)}));
    CHECK(share(b) == 0);
    std::vector<Instruction> p = {
        reftest::make(Opcode::Sqrt, make_view(2, 0, Dims{3}, Dims{1}),
                      {in(make_view(1, 0, Dims{3}, Dims{1}))}),
        reftest::make(Opcode::Sqrt, make_view(4, 0, Dims{3}, Dims{1}),
                      {in(make_view(1, 0, Dims{3}, Dims{1}))}),
        reftest::make(Opcode::Add, make_view(3, 0, Dims{3}, Dims{1}),
                      {in(make_view(2, 0, Dims{3}, Dims{1})), in(make_view(4, 0, Dims{3}, Dims{1}))}),
        free_of(4, 6),
        free_of(2, 6),
    };
    CHECK(share(p) == 0);
  }
  SUBCASE("a cheap operation is computed again") {
    std::vector<Instruction> b = repeated_power();
    b[0].op = b[3].op = Opcode::Subtract;
    CHECK(share(b) == 0);
  }
}

TEST_CASE("cse: a chain of repeats goes whole") {
  // u1 = sqrt(s**1.5) ... u2 = sqrt(s**1.5): with t2 read as t1, u2 repeats u1.
  std::vector<Instruction> b = {
      reftest::make(Opcode::Power, whole(2, 6), {in(whole(1, 6)), num(1.5)}),
      reftest::make(Opcode::Sqrt, whole(6, 6), {in(whole(2, 6))}),
      reftest::make(Opcode::Add, whole(3, 6), {in(whole(6, 6)), num(1.0)}),
      free_of(6, 6),
      free_of(2, 6),
      reftest::make(Opcode::Power, whole(4, 6), {in(whole(1, 6)), num(1.5)}),
      reftest::make(Opcode::Sqrt, whole(7, 6), {in(whole(4, 6))}),
      free_of(4, 6),
      reftest::make(Opcode::Add, whole(5, 6), {in(whole(3, 6)), in(whole(7, 6))}),
      free_of(7, 6),
  };
  CHECK(share(b) == 2);
  // power t1, sqrt u1, r1 = u1 + 1, del t2, del t1, r2 = r1 + u1, del u2, del u1
  REQUIRE(b.size() == 8);
  const Opcode ops[] = {Opcode::Power, Opcode::Sqrt, Opcode::Add,  Opcode::Free,
                        Opcode::Free,  Opcode::Add,  Opcode::Free, Opcode::Free};
  const BaseId outs[] = {2, 6, 3, 4, 2, 5, 7, 6};
  for (std::size_t i = 0; i < b.size(); ++i) {
    CAPTURE(i);
    CHECK(b[i].op == ops[i]);
    CHECK(b[i].out.base == outs[i]);
  }
  CHECK(b[5].in[1].view.base == 6);
}

namespace {

// water_ice's density and heat capacity, as NumPy writes them: both compute
// s**1.5 in a function of their own.
std::vector<uint8_t> water_ice_like(const std::string& backend, const std::string& fuser, bool cse,
                                    const std::string& dir, uint64_t* shared) {
  const Vm vm(
      {{"backend", backend}, {"fuser", fuser}, {"passes", cse ? "default" : "-cse"}, {"cache_dir", dir}});
  std::vector<double> sv(40 * 4), tv(40 * 4);
  for (std::size_t i = 0; i < sv.size(); ++i) sv[i] = 33.0 + 0.01 * (i % 13), tv[i] = -1.5 + 0.1 * (i % 7);
  Array s = Array::from_host(sv, {40, 4}, vm);
  Array t = Array::from_host(tv, {40, 4}, vm);
  for (int step = 0; step < 3; ++step) {
    auto dens0 = [&] { return 999.8 + t * (0.068 + t * -0.009) + (-0.0057 + 1e-4 * t) * power(s, 1.5); };
    auto heat_capacity = [&] { return 4217.4 + -7.64 * s + (0.177 - 4e-3 * t) * power(s, 1.5); };
    const Array p = dens0();
    const Array c = heat_capacity();
    t += 1e-3 * (c / p - 4.2);
    s -= 1e-4 * sqrt(s) * p / c;
  }
  std::vector<double> v = s.to_vector<double>();
  const std::vector<double> tw = t.to_vector<double>();
  v.insert(v.end(), tw.begin(), tw.end());
  std::vector<uint8_t> out(v.size() * 8);
  std::memcpy(out.data(), v.data(), out.size());
  *shared = vm.runtime().profile().pass("cse");
  return out;
}

}  // namespace

TEST_CASE("cse: water_ice's two s**1.5 are computed once a step, equal to ref byte for byte") {
  const cputest::TempDir dir;
  uint64_t shared = 0;
  const std::vector<uint8_t> want = water_ice_like("ref", "singleton", false, dir.path(), &shared);
  CHECK(shared == 0);
  for (const char* backend : {"ref", "cpu"}) {
    for (const char* fuser : {"singleton", "greedy"}) {
      CAPTURE(backend);
      CAPTURE(fuser);
      CHECK(water_ice_like(backend, fuser, true, dir.path(), &shared) == want);
      CHECK(shared == 3);
    }
  }
}

namespace {

// A random stream over three persistent 12-element float64 bases: costly
// operations (sqrt, exp, log, power) on whole bases or 10-element slices
// into fresh temporaries, repeats of earlier ones, in-place updates of
// persistent bases and temporaries, frees; all in one batch (most
// temporaries freed at its end), then every live base read. The bytes read.
std::vector<std::string> costly_stream(uint64_t seed, const std::string& backend, bool cse,
                                       const std::string& dir, uint64_t* shared) {
  Config cfg = cputest::config(backend, dir);
  cfg.passes = cse ? "default" : "-cse";
  cfg.fuser = "greedy";
  Runtime rt(cfg);
  std::mt19937_64 rng(seed);
  auto pick = [&](std::size_t n) { return static_cast<std::size_t>(rng() % n); };
  std::vector<BaseId> persistent, temps;
  for (int k = 0; k < 3; ++k) {
    const BaseId b = rt.new_base(DType::Float64, 12);
    std::vector<double> d(12);
    for (double& x : d) x = 0.5 + static_cast<double>(rng() % 1000) / 500.0;
    rt.write(b, d.data(), d.size() * 8);
    persistent.push_back(b);
  }
  std::vector<BaseId> alive_temps;
  std::vector<Instruction> computed;  // earlier costly instructions, to repeat
  auto operand_view = [&](BaseId b) {
    const int64_t n = rt.bases().find(b)->nelem;
    return n == 12 && rng() % 3 == 0 ? make_view(b, 2 * static_cast<int64_t>(rng() % 2), Dims{10}, Dims{1})
                                     : whole(b, n);
  };
  for (int step = 0; step < 40; ++step) {
    const int action = static_cast<int>(rng() % 10);
    if (action < 4 || (action < 6 && computed.empty())) {  // a costly operation into a temporary
      std::vector<BaseId> sources = persistent;
      sources.insert(sources.end(), alive_temps.begin(), alive_temps.end());
      View src = operand_view(sources[pick(sources.size())]);
      const BaseId t = rt.new_base(DType::Float64, src.nelem());
      const Opcode ops[] = {Opcode::Sqrt, Opcode::Exp, Opcode::Log, Opcode::Power};
      const Opcode op = ops[pick(4)];
      Instruction in = op == Opcode::Power ? reftest::make(op, whole(t, src.nelem()),
                                                           {Operand::of(src), num(rng() % 2 ? 1.5 : 0.5)})
                                           : reftest::make(op, whole(t, src.nelem()), {Operand::of(src)});
      rt.issue(in);
      computed.push_back(in);
      alive_temps.push_back(t);
    } else if (action < 6) {  // a repeat of an earlier one, if its inputs are alive
      Instruction in = computed[pick(computed.size())];
      if (rt.bases().find(in.in[0].view.base) == nullptr) continue;
      const BaseId t = rt.new_base(DType::Float64, in.out.nelem());
      in.out.base = t;
      rt.issue(in);
      alive_temps.push_back(t);
    } else if (action < 8 && !alive_temps.empty()) {  // p += 0.25 * temp (or temp *= 0.5)
      const BaseId t = alive_temps[pick(alive_temps.size())];
      const int64_t n = rt.bases().find(t)->nelem;
      if (rng() % 4 == 0) {
        rt.issue(reftest::make(Opcode::Multiply, whole(t, n), {Operand::of(whole(t, n)), num(0.5)}));
      } else {
        const BaseId p = persistent[pick(3)];
        const View pv = make_view(p, 0, Dims{n}, Dims{1});
        rt.issue(reftest::make(Opcode::Add, pv, {Operand::of(pv), Operand::of(whole(t, n))}));
      }
    } else if (!alive_temps.empty()) {  // del temp
      const std::size_t k = pick(alive_temps.size());
      const BaseId t = alive_temps[k];
      rt.issue(free_of(t, rt.bases().find(t)->nelem));
      alive_temps.erase(alive_temps.begin() + static_cast<std::ptrdiff_t>(k));
    }
  }
  for (std::size_t k = alive_temps.size(); k-- > 0;) {  // most temporaries die (a repeat is shared only then)
    if (rng() % 3 == 0) continue;
    rt.issue(free_of(alive_temps[k], rt.bases().find(alive_temps[k])->nelem));
    alive_temps.erase(alive_temps.begin() + static_cast<std::ptrdiff_t>(k));
  }
  std::vector<std::string> seen;
  std::vector<BaseId> all = persistent;
  all.insert(all.end(), alive_temps.begin(), alive_temps.end());
  for (BaseId b : all) {
    std::string bytes(static_cast<std::size_t>(rt.bases().find(b)->nelem) * 8, '\0');
    rt.read(b, bytes.data(), bytes.size());
    seen.push_back(bytes);
  }
  *shared = rt.profile().pass("cse");
  return seen;
}

}  // namespace

TEST_CASE(
    "cse: random streams of costly operations and their repeats read the same with the pass on and off") {
  const cputest::TempDir dir;
  const int streams = std::getenv("ARRVM_TEST_FULL") != nullptr ? 1000 : 200;
  uint64_t total = 0;
  for (int k = 0; k < streams; ++k) {
    const uint64_t seed = 7300 + static_cast<uint64_t>(k);
    CAPTURE(seed);
    uint64_t off = 0, on = 0, on_cpu = 0;
    const std::vector<std::string> want = costly_stream(seed, "ref", false, dir.path(), &off);
    CHECK(off == 0);
    CHECK(costly_stream(seed, "ref", true, dir.path(), &on) == want);
    if (k % 4 == 0) {
      CHECK(costly_stream(seed, "cpu", true, dir.path(), &on_cpu) ==
            costly_stream(seed, "cpu", false, dir.path(), &off));
      CHECK(on_cpu == on);
    }
    total += on;
  }
  MESSAGE(total << " repeats shared over " << streams << " streams");
  CHECK(total >= static_cast<uint64_t>(streams) / 2);  // the property is exercised
}
