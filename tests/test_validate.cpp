// Every kind of invalid instruction is rejected before it enters the batch,
// with a message naming it, and the VM computes correctly afterwards.
#include <doctest/doctest.h>

#include <vector>

#include "engine/runtime.hpp"
#include "vm/error.hpp"

using namespace arrvm;  // tests only

namespace {

Config ref_config() {
  Config c;
  c.backend = "ref";
  c.fuser = "singleton";
  return c;
}

View view(BaseId b, int64_t off, Dims shape, Dims stride) {
  return arrvm::make_view(b, off, shape, stride);
}

View vec(BaseId b, int64_t n) {
  return view(b, 0, {n}, {1});
}

Instruction make(Opcode op, View out, std::vector<Operand> in = {}, int axis = 0) {
  Instruction i;
  i.op = op;
  i.out = out;
  for (const Operand& o : in) i.add_input(o);
  i.axis = axis;
  return i;
}

Operand v(const View& x) {
  return Operand::of(x);
}
Operand c(DType t, double x) {
  return Operand::of(Scalar::of_double(t, x));
}

// Checks that `bad` is rejected with a message containing every fragment,
// and that the rejection changed nothing.
void expect_rejected(Runtime& rt, const Instruction& bad, std::vector<std::string> fragments) {
  const auto pending = rt.pending();
  const auto issued = rt.instructions_issued();
  std::string msg;
  try {
    rt.issue(bad);
  } catch (const Error& e) {
    msg = e.what();
  }
  INFO("message: " << msg);
  REQUIRE_FALSE(msg.empty());
  CHECK(msg.find("instruction #" + std::to_string(issued)) != std::string::npos);
  for (const std::string& f : fragments) CHECK(msg.find(f) != std::string::npos);
  CHECK(rt.pending() == pending);
  CHECK(rt.instructions_issued() == issued);
}

// A correct program: out = a * 2 + b, then sum(out); checks the results.
void expect_vm_still_correct(Runtime& rt) {
  const BaseId a = rt.new_base(DType::Float64, 4);
  const BaseId b = rt.new_base(DType::Float64, 4);
  const BaseId out = rt.new_base(DType::Float64, 4);
  const BaseId total = rt.new_base(DType::Float64, 1);
  const std::vector<double> av = {1, 2, 3, 4}, bv = {10, 20, 30, 40};
  rt.write(a, av.data(), 32);
  rt.write(b, bv.data(), 32);
  rt.issue(make(Opcode::Multiply, vec(out, 4), {v(vec(a, 4)), c(DType::Float64, 2)}));
  rt.issue(make(Opcode::Add, vec(out, 4), {v(vec(out, 4)), v(vec(b, 4))}));
  rt.issue(make(Opcode::AddReduce, view(total, 0, {}, {}), {v(vec(out, 4))}, 0));
  std::vector<double> got(4), sum(1);
  rt.read(out, got.data(), 32);
  rt.read(total, sum.data(), 8);
  CHECK(got == std::vector<double>{12, 24, 36, 48});
  CHECK(sum[0] == 120);
  for (BaseId id : {a, b, out, total}) rt.free_base(id);
  rt.flush();
}

}  // namespace

TEST_CASE("invalid instructions are rejected with a message naming them") {
  Runtime rt(ref_config());
  const BaseId f = rt.new_base(DType::Float64, 12);
  const BaseId g = rt.new_base(DType::Float64, 12);
  const BaseId i32 = rt.new_base(DType::Int32, 12);
  const BaseId bo = rt.new_base(DType::Bool, 12);
  const BaseId idx = rt.new_base(DType::Int64, 4);

  SUBCASE("arity") {
    expect_rejected(rt, make(Opcode::Add, vec(f, 4), {v(vec(g, 4))}), {"(add)", "takes 2 inputs, got 1"});
  }
  SUBCASE("dtype of an input") {
    expect_rejected(rt, make(Opcode::Add, vec(f, 4), {v(vec(g, 4)), v(vec(i32, 4))}),
                    {"(add)", "inputs must be of the output dtype", "int32"});
  }
  SUBCASE("float-only op on integers") {
    expect_rejected(rt, make(Opcode::Sqrt, vec(i32, 4), {v(vec(i32, 4))}),
                    {"(sqrt)", "needs a float output"});
  }
  SUBCASE("logical op on non-bool") {
    expect_rejected(rt, make(Opcode::LogicalAnd, vec(bo, 4), {v(vec(f, 4)), v(vec(g, 4))}),
                    {"(logical_and)", "bool"});
  }
  SUBCASE("comparison must output bool") {
    expect_rejected(rt, make(Opcode::Less, vec(f, 4), {v(vec(g, 4)), v(view(g, 4, {4}, {1}))}),
                    {"(less)", "output must be bool"});
  }
  SUBCASE("where needs a bool condition") {
    expect_rejected(rt, make(Opcode::Where, vec(f, 4), {v(vec(g, 4)), v(vec(g, 4)), c(DType::Float64, 1)}),
                    {"(where)", "condition"});
  }
  SUBCASE("constant of the wrong dtype") {
    expect_rejected(rt, make(Opcode::Add, vec(f, 4), {v(vec(g, 4)), c(DType::Float32, 1)}),
                    {"(add)", "float32"});
  }
  SUBCASE("input shape does not broadcast to the output shape") {
    expect_rejected(
        rt, make(Opcode::Add, view(f, 0, {3, 4}, {4, 1}), {v(view(g, 0, {3}, {1})), c(DType::Float64, 1)}),
        {"(add)", "input 0 shape [3] does not broadcast to output shape [3,4]"});
    expect_rejected(rt, make(Opcode::Identity, vec(f, 4), {v(view(g, 0, {2, 4}, {4, 1}))}),
                    {"(identity)", "does not broadcast"});
  }
  SUBCASE("view outside its base") {
    expect_rejected(rt, make(Opcode::Identity, view(f, 10, {4}, {1}), {v(vec(g, 4))}),
                    {"(identity)", "output view", "outside its base of 12 elements"});
    expect_rejected(rt, make(Opcode::Identity, vec(f, 4), {v(view(g, 2, {4}, {-1}))}),
                    {"input 0 view", "reaches elements -1..2"});
    expect_rejected(rt, make(Opcode::Identity, vec(f, 4), {v(view(g, 0, {-4}, {1}))}), {"negative extent"});
    expect_rejected(rt, make(Opcode::Identity, vec(f, 4), {v(view(g, 0, {4}, {int64_t(1) << 62}))}),
                    {"too large"});
  }
  SUBCASE("shape and stride ranks differ") {
    expect_rejected(rt, make(Opcode::Identity, vec(f, 4), {v(view(g, 0, {4}, {1, 1}))}),
                    {"1 shape entries but 2 strides"});
  }
  SUBCASE("reduction axis out of range") {
    expect_rejected(rt, make(Opcode::AddReduce, vec(f, 3), {v(view(g, 0, {3, 4}, {4, 1}))}, 2),
                    {"(add_reduce)", "axis 2 is out of range for a 2-d input"});
    expect_rejected(
        rt, make(Opcode::AddAccumulate, view(f, 0, {3, 4}, {4, 1}), {v(view(g, 0, {3, 4}, {4, 1}))}, -1),
        {"(add_accumulate)", "axis -1"});
  }
  SUBCASE("reduction output shape") {
    expect_rejected(rt, make(Opcode::AddReduce, vec(f, 4), {v(view(g, 0, {3, 4}, {4, 1}))}, 1),
                    {"(add_reduce)", "output shape [4] must be the input shape [3,4] without axis 1"});
  }
  SUBCASE("min/max over an empty axis") {
    expect_rejected(rt, make(Opcode::MaximumReduce, view(f, 0, {}, {}), {v(view(g, 0, {0}, {1}))}, 0),
                    {"(maximum_reduce)", "empty axis"});
  }
  SUBCASE("constant where a view is required") {
    expect_rejected(rt, make(Opcode::AddReduce, view(f, 0, {}, {}), {c(DType::Float64, 1)}, 0),
                    {"(add_reduce)", "must be a view"});
  }
  SUBCASE("use of a freed base, and of an unknown base") {
    const BaseId gone = rt.new_base(DType::Float64, 4);
    rt.free_base(gone);
    expect_rejected(rt, make(Opcode::Identity, vec(f, 4), {v(vec(gone, 4))}),
                    {"(identity)", "input 0 uses freed base b" + std::to_string(gone)});
    expect_rejected(rt, make(Opcode::Identity, vec(gone, 4), {v(vec(f, 4))}), {"output uses freed base"});
    expect_rejected(rt, make(Opcode::Identity, vec(999, 4), {v(vec(f, 4))}),
                    {"output uses unknown base b999"});
    Instruction fr;
    fr.op = Opcode::Free;
    fr.out.base = gone;
    expect_rejected(rt, fr, {"(free)", "already freed"});
  }
  SUBCASE("output that writes an element twice") {
    expect_rejected(rt, make(Opcode::Identity, view(f, 0, {4}, {0}), {v(vec(g, 4))}),
                    {"(identity)", "may write an element twice"});
  }
  SUBCASE("gather and scatter operands") {
    expect_rejected(rt, make(Opcode::Gather, vec(f, 4), {v(vec(g, 12)), v(vec(i32, 4))}),
                    {"(gather)", "indices (input 1) must be int64"});
    expect_rejected(rt, make(Opcode::Gather, vec(i32, 4), {v(vec(g, 12)), v(vec(idx, 4))}),
                    {"(gather)", "differs from output dtype"});
    expect_rejected(rt, make(Opcode::Scatter, vec(f, 12), {v(vec(g, 3)), v(vec(idx, 4))}),
                    {"(scatter)", "values shape [3] does not broadcast"});
  }
  SUBCASE("generators") {
    expect_rejected(rt, make(Opcode::Range, vec(bo, 4)), {"(range)", "cannot generate bool"});
  }

  expect_vm_still_correct(rt);
}

TEST_CASE("legal edge cases are accepted") {
  Runtime rt(ref_config());
  const BaseId f = rt.new_base(DType::Float64, 8);
  // In-place update: the output is the same view as the input.
  CHECK_NOTHROW(rt.issue(make(Opcode::Add, vec(f, 8), {v(vec(f, 8)), c(DType::Float64, 1)})));
  // Interleaved views of one base do not overlap.
  CHECK_NOTHROW(rt.issue(make(Opcode::Identity, view(f, 0, {4}, {2}), {v(view(f, 1, {4}, {2}))})));
  // An output overlapping an input has NumPy's meaning (the VM copies the input).
  CHECK_NOTHROW(rt.issue(make(Opcode::Identity, view(f, 1, {4}, {1}), {v(vec(f, 4))})));
  CHECK_NOTHROW(rt.issue(make(Opcode::AddAccumulate, vec(f, 4), {v(view(f, 4, {4}, {1}))}, 0)));
  // Zero-size views are valid anywhere, even at offset == nelem.
  CHECK_NOTHROW(rt.issue(make(Opcode::Identity, view(f, 8, {0}, {1}), {v(view(f, 0, {0}, {1}))})));
  // A scalar (0-d) view.
  CHECK_NOTHROW(rt.issue(make(Opcode::Identity, view(f, 7, {}, {}), {c(DType::Float64, 3)})));
  rt.flush();
}

TEST_CASE("write and read check the base and the buffer size") {
  Runtime rt(ref_config());
  const BaseId f = rt.new_base(DType::Float32, 4);
  std::vector<float> buf(4);
  CHECK_THROWS_WITH_AS(rt.write(f, buf.data(), 8), doctest::Contains("holds 16 bytes"), Error);
  CHECK_THROWS_WITH_AS(rt.read(f + 100, buf.data(), 16), doctest::Contains("unknown base"), Error);
  rt.free_base(f);
  CHECK_THROWS_WITH_AS(rt.read(f, buf.data(), 16), doctest::Contains("freed"), Error);
  CHECK_THROWS_AS(rt.new_base(DType::Int8, -1), Error);
  expect_vm_still_correct(rt);
}

TEST_CASE("a base never written reads as zeros; reads see pending writes") {
  Runtime rt(ref_config());
  const BaseId a = rt.new_base(DType::Int32, 3);
  std::vector<int32_t> got(3, 7);
  rt.read(a, got.data(), 12);
  CHECK(got == std::vector<int32_t>{0, 0, 0});
  rt.issue(make(Opcode::Identity, vec(a, 3), {Operand::of(Scalar::of_int(DType::Int32, 5))}));
  // write() replaces the base after the pending instruction has run.
  const std::vector<int32_t> host = {1, 2, 3};
  rt.write(a, host.data(), 12);
  rt.read(a, got.data(), 12);
  CHECK(got == host);
}

TEST_CASE("ARRVM_BATCH: the batch flushes when full") {
  Config cfg = ref_config();
  cfg.batch = 3;
  Runtime rt(cfg);
  const BaseId a = rt.new_base(DType::Int64, 2);
  rt.issue(make(Opcode::Identity, vec(a, 2), {Operand::of(Scalar::of_int(DType::Int64, 1))}));
  rt.issue(make(Opcode::Add, vec(a, 2), {v(vec(a, 2)), Operand::of(Scalar::of_int(DType::Int64, 1))}));
  CHECK(rt.pending() == 2);
  rt.issue(make(Opcode::Add, vec(a, 2), {v(vec(a, 2)), Operand::of(Scalar::of_int(DType::Int64, 1))}));
  CHECK(rt.pending() == 0);
  CHECK(rt.profile().batches == 1);
}

TEST_CASE("a bad configuration is an error, not a crash") {
  Config c = ref_config();
  c.backend = "nope";
  CHECK_THROWS_WITH_AS(Runtime{c}, doctest::Contains("nope"), Error);
  c = ref_config();
  c.fuser = "bogus";
  CHECK_THROWS_WITH_AS(Runtime{c}, doctest::Contains("unknown fuser 'bogus'"), Error);
  Config d;
  CHECK_THROWS_AS(d.set("batch", "0"), Error);
  CHECK_THROWS_AS(d.set("batch", "12x"), Error);
  CHECK_THROWS_AS(d.set("cache", "maybe"), Error);
  CHECK_THROWS_AS(d.set("colour", "red"), Error);
  CHECK_THROWS_AS(configure_logging("loud"), Error);
}
