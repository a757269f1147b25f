// The code generation pipeline (backends/loop_ir.hpp, c_printer.hpp,
// opencl/opencl_printer.hpp): unit tests of the lowering passes and golden
// tests of the C and OpenCL C printed for a handful of blocks.
//
// Golden files live in tests/golden/ (the printed unit without the dialect's
// fixed prelude); after a deliberate change of the
// printed code, regenerate them with
//   ARRVM_UPDATE_GOLDEN=1 build/arrvm_tests --source-file=*test_codegen.cpp
// and review the diff: it is the change in every kernel of that shape.
#include <doctest/doctest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "backends/c_printer.hpp"
#include "backends/loop_ir.hpp"
#include "backends/opencl/opencl_dialect.hpp"
#include "backends/opencl/opencl_printer.hpp"
#include "fusion/graph.hpp"
#include "tests/fusion_test_util.hpp"
#include "vm/error.hpp"
#include "vm/partition.hpp"

namespace {

using namespace fusion_test;
using codegen::LoopKind;
using codegen::Target;

View whole(BaseId b, Dims shape) {
  View v;
  v.base = b;
  v.offset = 0;
  v.shape = shape;
  v.stride = row_major_strides(shape);
  return v;
}

std::vector<uint32_t> all(const Batch& b) {
  std::vector<uint32_t> block;
  for (uint32_t i = 0; i < b.instrs.size(); ++i) block.push_back(i);
  return block;
}

std::vector<std::pair<int, LoopKind>> loops(const codegen::LoweredBlock& b) {
  std::vector<std::pair<int, LoopKind>> r;
  for (const codegen::Loop& l : b.kernel.loops) r.emplace_back(l.axis, l.kind);
  return r;
}

// t = a * b; c = t + 1; free t  (8 float64)
Batch elementwise() {
  Batch b;
  const BaseId a = b.base(DType::Float64, 8), x = b.base(DType::Float64, 8), t = b.base(DType::Float64, 8),
               c = b.base(DType::Float64, 8);
  b.add(make(Opcode::Multiply, whole(t, {8}), {v(whole(a, {8})), v(whole(x, {8}))}));
  b.add(make(Opcode::Add, whole(c, {8}),
             {v(whole(t, {8})), Operand::of(Scalar::of_double(DType::Float64, 1.0))}));
  b.add(control(Opcode::Free, t));
  return b;
}

// t = x * y (4 x 5); s = add_reduce(t, axis); free t
Batch reduce_rows(int axis) {
  Batch b;
  const BaseId x = b.base(DType::Float64, 20), y = b.base(DType::Float64, 20), t = b.base(DType::Float64, 20);
  const BaseId s = b.base(DType::Float64, axis == 1 ? 4 : 5);
  b.add(make(Opcode::Multiply, whole(t, {4, 5}), {v(whole(x, {4, 5})), v(whole(y, {4, 5}))}));
  b.add(make(Opcode::AddReduce, whole(s, {axis == 1 ? 4 : 5}), {v(whole(t, {4, 5}))}, axis));
  b.add(control(Opcode::Free, t));
  return b;
}

// sum(a * b) over 100 float64: a fused full reduction
Batch sum_of_products() {
  Batch b;
  const BaseId a = b.base(DType::Float64, 100), x = b.base(DType::Float64, 100),
               t = b.base(DType::Float64, 100), s = b.base(DType::Float64, 1);
  b.add(make(Opcode::Multiply, whole(t, {100}), {v(whole(a, {100})), v(whole(x, {100}))}));
  b.add(make(Opcode::AddReduce, whole(s, {}), {v(whole(t, {100}))}, 0));
  b.add(control(Opcode::Free, t));
  return b;
}

// g = src[idx] * 2 (idx: 6 int64, src: 10 float32)
Batch gather() {
  Batch b;
  const BaseId src = b.base(DType::Float32, 10), idx = b.base(DType::Int64, 6), g = b.base(DType::Float32, 6),
               out = b.base(DType::Float32, 6);
  b.add(make(Opcode::Gather, whole(g, {6}), {v(whole(src, {10})), v(whole(idx, {6}))}));
  b.add(make(Opcode::Multiply, whole(out, {6}),
             {v(whole(g, {6})), Operand::of(Scalar::of_double(DType::Float32, 2.0))}));
  b.add(control(Opcode::Free, g));
  return b;
}

// A Gauss step on a (4 x 5) a: f = a[1:, 0] / a[0, 0]; t = f[:, None] * a[0, :];
// a[1:, :] -= t; free f, t (a row nest: f once per row).
Batch gauss_nest() {
  Batch b;
  const BaseId a = b.base(DType::Float64, 20), f = b.base(DType::Float64, 3), t = b.base(DType::Float64, 15);
  View col = whole(a, {3});
  col.offset = 5;
  col.stride = Dims{5};
  View pivot = whole(a, {3});
  pivot.stride = Dims{0};
  b.add(make(Opcode::Divide, whole(f, {3}), {v(col), v(pivot)}));
  View fb = whole(f, {3, 5});
  fb.stride = Dims{1, 0};
  View row0 = whole(a, {3, 5});
  row0.stride = Dims{0, 1};
  b.add(make(Opcode::Multiply, whole(t, {3, 5}), {v(fb), v(row0)}));
  View rows = whole(a, {3, 5});
  rows.offset = 5;
  b.add(make(Opcode::Subtract, rows, {v(rows), v(whole(t, {3, 5}))}));
  b.add(control(Opcode::Free, f));
  b.add(control(Opcode::Free, t));
  return b;
}

// s = x.sum(axis=1); y = x / s[:, None]; free s, over (3 x 4) float64: a row
// program of two segments (the sum; the division), s one scalar a row.
Batch normalize_rows() {
  Batch b;
  const BaseId x = b.base(DType::Float64, 12), s = b.base(DType::Float64, 3), y = b.base(DType::Float64, 12);
  b.add(make(Opcode::AddReduce, whole(s, {3}), {v(whole(x, {3, 4}))}, 1));
  View sb = whole(s, {3, 4});
  sb.stride = Dims{1, 0};
  b.add(make(Opcode::Divide, whole(y, {3, 4}), {v(whole(x, {3, 4})), v(sb)}));
  b.add(control(Opcode::Free, s));
  return b;
}

// c = cumsum(x * 2, axis=1) over (4 x 5) float64
Batch scan_rows() {
  Batch b;
  const BaseId x = b.base(DType::Float64, 20), t = b.base(DType::Float64, 20), c = b.base(DType::Float64, 20);
  b.add(make(Opcode::Multiply, whole(t, {4, 5}),
             {v(whole(x, {4, 5})), Operand::of(Scalar::of_double(DType::Float64, 2.0))}));
  b.add(make(Opcode::AddAccumulate, whole(c, {4, 5}), {v(whole(t, {4, 5}))}, 1));
  b.add(control(Opcode::Free, t));
  return b;
}

// out[idx] = x + 1 (x, idx: 6; out: 10 float64)
Batch scatter() {
  Batch b;
  const BaseId x = b.base(DType::Float64, 6), idx = b.base(DType::Int64, 6), t = b.base(DType::Float64, 6),
               out = b.base(DType::Float64, 10);
  b.add(make(Opcode::Add, whole(t, {6}),
             {v(whole(x, {6})), Operand::of(Scalar::of_double(DType::Float64, 1.0))}));
  b.add(make(Opcode::Scatter, whole(out, {10}), {v(whole(t, {6})), v(whole(idx, {6}))}));
  b.add(control(Opcode::Free, t));
  return b;
}

// r = random (3 x 4 float64, seed 7) * 3
Batch random_scaled() {
  Batch b;
  const BaseId r = b.base(DType::Float64, 12), y = b.base(DType::Float64, 12);
  Instruction in = make(Opcode::Random, whole(r, {3, 4}));
  in.seed = 7;
  b.add(in);
  b.add(make(Opcode::Multiply, whole(y, {3, 4}),
             {v(whole(r, {3, 4})), Operand::of(Scalar::of_double(DType::Float64, 3.0))}));
  b.add(control(Opcode::Free, r));
  return b;
}

std::string golden_path(const std::string& name) {
  return std::string(ARRVM_SOURCE_DIR) + "/tests/golden/" + name;
}

// Compares `text` with the golden file (or rewrites it under ARRVM_UPDATE_GOLDEN=1).
void check_golden(const std::string& name, const std::string& text) {
  const std::string path = golden_path(name);
  const char* update = std::getenv("ARRVM_UPDATE_GOLDEN");
  if (update != nullptr && std::string(update) == "1") {
    std::ofstream(path) << text;
    MESSAGE("rewrote " << path);
  }
  std::ifstream in(path);
  REQUIRE_MESSAGE(in.good(), "missing golden file " << path << " (ARRVM_UPDATE_GOLDEN=1 writes it)");
  std::stringstream want;
  want << in.rdbuf();
  CHECK_MESSAGE(text == want.str(), "printed code differs from " << path << ":\n" << text);
}

// The printed unit less the dialect's fixed prelude (the same for every
// kernel: type names, limits, libm names), which must lead it.
std::string without_prelude(const std::string& src, const std::string& prelude) {
  REQUIRE(src.compare(0, prelude.size(), prelude) == 0);
  return src.substr(prelude.size());
}

}  // namespace

TEST_CASE("lower: an elementwise chain contracts its temporary and runs one parallel simd loop") {
  const Batch b = elementwise();
  const codegen::LoweredBlock cpu = codegen::lower(b.instrs, all(b), Target::Cpu);
  CHECK(cpu.kernel.views.size() == 3);  // a, x, c: t is a temporary
  CHECK(cpu.kernel.temps.size() == 1);
  REQUIRE(cpu.contracted.size() == 1);
  CHECK(cpu.contracted[0] == 2);
  CHECK(cpu.kernel.body.size() == 2);
  CHECK(cpu.kernel.body[0].out.kind == codegen::ArgKind::Temp);
  CHECK(cpu.kernel.body[1].in[0].kind == codegen::ArgKind::Temp);
  CHECK(cpu.kernel.body[1].in[1].kind == codegen::ArgKind::Const);
  CHECK(loops(cpu) == std::vector<std::pair<int, LoopKind>>{{0, LoopKind::ParallelSimd}});
  CHECK(cpu.kernel.inner ==
        std::vector<uint8_t>{codegen::kUnitInner, codegen::kUnitInner, codegen::kUnitInner});
  const codegen::LoweredBlock ocl = codegen::lower(b.instrs, all(b), Target::OpenCl);
  CHECK(loops(ocl) == std::vector<std::pair<int, LoopKind>>{{0, LoopKind::WorkItems}});
  // Launch arguments: shape, parallel flag, then offset + stride per view slot.
  CHECK(codegen::pack_args(cpu, true) == std::vector<int64_t>{8, 1, 0, 1, 0, 1, 0, 1});
}

TEST_CASE("lower: without its free, the temporary stays an array, and its reader takes the value stored") {
  Batch b = elementwise();
  b.instrs.pop_back();
  const codegen::LoweredBlock l = codegen::lower(b.instrs, all(b), Target::Cpu);
  CHECK(l.kernel.views.size() == 4);  // a, x, t (stored), c: t's read needs no slot
  CHECK(l.contracted.empty());
  // Store-to-load forwarding: t = a * x into a temporary, t stored from it,
  // and c = t + 1 reads the temporary, not t's memory.
  REQUIRE(l.kernel.temps.size() == 1);
  REQUIRE(l.kernel.body.size() == 3);
  CHECK(l.kernel.body[0].out.kind == codegen::ArgKind::Temp);
  CHECK(l.kernel.body[1].op == Opcode::Identity);
  CHECK(l.kernel.body[1].out.kind == codegen::ArgKind::View);
  CHECK(l.kernel.body[1].in[0].kind == codegen::ArgKind::Temp);
  CHECK(l.kernel.body[2].in[0].kind == codegen::ArgKind::Temp);
}

// acc = 0; acc += x, `n` times (an in-place update of a loop, fused): with
// `between`, y = the other half of acc's base * 2 is read between the fill
// and the first update.
Batch updated_in_place(int n, bool between) {
  Batch b;
  const BaseId acc = b.base(DType::Float64, 16), x = b.base(DType::Float64, 8), y = b.base(DType::Float64, 8);
  const View a = whole(acc, {8});
  View other = a;
  other.offset = 8;
  b.add(make(Opcode::Identity, a, {Operand::of(Scalar::of_double(DType::Float64, 0.0))}));
  if (between) {
    b.add(make(Opcode::Multiply, whole(y, {8}),
               {v(other), Operand::of(Scalar::of_double(DType::Float64, 2.0))}));
  }
  for (int i = 0; i < n; ++i) b.add(make(Opcode::Add, a, {v(a), v(whole(x, {8}))}));
  return b;
}

int stores(const codegen::LoweredBlock& l) {
  int n = 0;
  for (const codegen::Stmt& st : l.kernel.body) n += st.out.kind == codegen::ArgKind::View;
  return n;
}

TEST_CASE("lower: an array updated in place n times in one block is stored once, by its last write") {
  for (Target target : {Target::Cpu, Target::OpenCl}) {
    const Batch b = updated_in_place(5, false);
    const codegen::LoweredBlock l = codegen::lower(b.instrs, all(b), target);
    CHECK(stores(l) == 1);
    CHECK(l.kernel.views.size() == 2);  // acc (written once) and x (one slot for its five reads)
    CHECK(l.kernel.body.back().out.kind == codegen::ArgKind::View);
    CHECK(l.kernel.body.back().op == Opcode::Add);
    // Every update but the first reads the previous one's temporary.
    CHECK(l.kernel.body.size() == 6);
  }
  // A read of the base between two writes (another view: it reads memory) keeps the first store.
  const Batch k = updated_in_place(2, true);
  const codegen::LoweredBlock l = codegen::lower(k.instrs, all(k), Target::Cpu);
  CHECK(stores(l) == 3);  // acc = 0, y, the last update
}

TEST_CASE("lower: a reduction is the innermost sequential sweep") {
  const Batch rows = reduce_rows(1);
  const codegen::LoweredBlock r1 = codegen::lower(rows.instrs, all(rows), Target::Cpu);
  CHECK(r1.kernel.sweep_axis == 1);
  CHECK(loops(r1) == std::vector<std::pair<int, LoopKind>>{{0, LoopKind::Parallel}, {1, LoopKind::Sweep}});
  CHECK(r1.contracted.size() == 1);
  // The output: a view slot with stride 0 along the sweep, written after it.
  REQUIRE(r1.views.size() == 3);
  CHECK(r1.exclusive == std::vector<bool>{false, false, true});
  CHECK(r1.views[2].stride[1] == 0);
  const Batch cols = reduce_rows(0);
  const codegen::LoweredBlock r0 = codegen::lower(cols.instrs, all(cols), Target::Cpu);
  CHECK(loops(r0) == std::vector<std::pair<int, LoopKind>>{{1, LoopKind::Parallel}, {0, LoopKind::Sweep}});
  CHECK(r0.kernel.inner == std::vector<uint8_t>{codegen::kAnyInner, codegen::kAnyInner, codegen::kZeroInner});
  const codegen::LoweredBlock o0 = codegen::lower(cols.instrs, all(cols), Target::OpenCl);
  CHECK(loops(o0) == std::vector<std::pair<int, LoopKind>>{{1, LoopKind::WorkItems}, {0, LoopKind::Sweep}});
}

TEST_CASE(
    "lower: a full reduction with its producer splits its sweep: an OpenMP reduction on cpu, partials per "
    "work item on OpenCL") {
  Batch b;
  const BaseId x = b.base(DType::Int32, 9), t = b.base(DType::Int32, 9), s = b.base(DType::Int32, 1);
  View out = whole(s, {});
  b.add(make(Opcode::Multiply, whole(t, {9}), {v(whole(x, {9})), c(DType::Int32, 2)}));
  b.add(make(Opcode::AddReduce, out, {v(whole(t, {9}))}, 0));
  b.add(control(Opcode::Free, t));
  const codegen::LoweredBlock cpu = codegen::lower(b.instrs, all(b), Target::Cpu);
  CHECK(loops(cpu) == std::vector<std::pair<int, LoopKind>>{{0, LoopKind::ParallelSweep}});
  const codegen::LoweredBlock ocl = codegen::lower(b.instrs, all(b), Target::OpenCl);
  CHECK(loops(ocl) == std::vector<std::pair<int, LoopKind>>{{0, LoopKind::ParallelSweep}});
  CHECK(opencl::partial_reductions(ocl.kernel) == std::vector<int>{1});  // (statement 1: after the multiply)
  const std::string src = opencl::OpenClPrinter(true, true, 64).print(ocl.kernel, "k");
  CHECK(src.find("__global int32_t* R0, ") != std::string::npos);
  CHECK(src.find("R0[get_global_id(0)] = acc0;") != std::string::npos);
  // With a scan and its producer in the block, one work item sweeps (in
  // ref's order); a scan alone runs in chunks.
  Batch c;
  const BaseId y = c.base(DType::Int32, 9), ys = c.base(DType::Int32, 9), cs = c.base(DType::Int32, 9);
  c.add(make(Opcode::Multiply, whole(ys, {9}), {v(whole(y, {9})), v(whole(y, {9}))}));
  c.add(make(Opcode::AddAccumulate, whole(cs, {9}), {v(whole(ys, {9}))}, 0));
  c.add(control(Opcode::Free, ys));
  const codegen::LoweredBlock scan = codegen::lower(c.instrs, all(c), Target::OpenCl);
  CHECK(loops(scan) == std::vector<std::pair<int, LoopKind>>{{0, LoopKind::Sweep}});
  Batch alone;
  const BaseId z = alone.base(DType::Int32, 9), zs = alone.base(DType::Int32, 9);
  alone.add(make(Opcode::AddAccumulate, whole(zs, {9}), {v(whole(z, {9}))}, 0));
  CHECK(loops(codegen::lower(alone.instrs, all(alone), Target::OpenCl)) ==
        std::vector<std::pair<int, LoopKind>>{{0, LoopKind::ChunkedScan}});
  CHECK(opencl::OpenClPrinter(true, true, 64)
            .print(scan.kernel, "k")
            .find("if (get_global_id(0) != 0) return;") != std::string::npos);
}

TEST_CASE("lower: a gather reads an indexed slot, checked, and keeps its source an array") {
  const Batch b = gather();
  const codegen::LoweredBlock l = codegen::lower(b.instrs, all(b), Target::Cpu);
  REQUIRE(l.kernel.indexed.size() == 1);
  CHECK(l.kernel.indexed[0].dtype == DType::Float32);
  CHECK(!l.kernel.indexed[0].written);
  CHECK(l.kernel.errors == 1);
  CHECK(l.error_instr == std::vector<uint32_t>{0});
  CHECK(l.contracted.size() == 1);  // g, the gather's output
  CHECK(loops(l) ==
        std::vector<std::pair<int, LoopKind>>{{0, LoopKind::Parallel}});  // no simd: indexed loads
  // After the view slots: the indexed slot's offset, size, shape and strides.
  const std::vector<int64_t> a = codegen::pack_args(l, false);
  const int64_t at = codegen::indexed_arg_index(l.kernel, 0);
  REQUIRE(static_cast<int64_t>(a.size()) == at + 4);
  CHECK(std::vector<int64_t>(a.begin() + at, a.end()) == std::vector<int64_t>{0, 10, 10, 1});
}

TEST_CASE("verify_block: a block that is not one kernel is an internal error, never split") {
  SUBCASE("two iteration shapes") {
    Batch b;
    const BaseId x = b.base(DType::Float64, 8), y = b.base(DType::Float64, 4);
    b.add(make(Opcode::Negative, whole(x, {8}), {v(whole(x, {8}))}));
    b.add(make(Opcode::Negative, whole(y, {4}), {v(whole(y, {4}))}));
    CHECK_THROWS_AS(codegen::lower(b.instrs, all(b), Target::Cpu), InternalError);
  }
  SUBCASE("a scatter with a sweep along the first axis") {
    Batch b;
    const BaseId x = b.base(DType::Float64, 6), s = b.base(DType::Float64, 6), idx = b.base(DType::Int64, 6),
                 t = b.base(DType::Float64, 10);
    b.add(make(Opcode::AddAccumulate, whole(s, {2, 3}), {v(whole(x, {2, 3}))}, 0));
    b.add(make(Opcode::Scatter, whole(t, {10}), {v(whole(x, {2, 3})), v(whole(idx, {2, 3}))}));
    CHECK_THROWS_WITH_AS(codegen::lower(b.instrs, all(b), Target::Cpu),
                         doctest::Contains("a scatter with a sweep along an axis other than the last"),
                         InternalError);
    // ... which the fusion graph never puts in one block (rule 7).
    const fusion::Graph g(b.instrs);
    CHECK(!g.fusible(0, 1));
  }
  SUBCASE("overlapping accesses at different offsets") {
    Batch b;
    const BaseId x = b.base(DType::Float64, 9), y = b.base(DType::Float64, 8);
    View head = whole(x, {8}), tail = whole(x, {8});
    tail.offset = 1;
    b.add(make(Opcode::Negative, head, {v(whole(y, {8}))}));
    b.add(make(Opcode::Negative, whole(y, {8}), {v(tail)}));
    CHECK_THROWS_AS(codegen::lower(b.instrs, all(b), Target::Cpu), InternalError);
  }
}

TEST_CASE("fusion graph rule 7: a scatter fuses with a sweep only along the last axis") {
  Batch b;
  const BaseId x = b.base(DType::Float64, 6), s = b.base(DType::Float64, 6), idx = b.base(DType::Int64, 6),
               t = b.base(DType::Float64, 10);
  b.add(make(Opcode::AddAccumulate, whole(s, {2, 3}), {v(whole(x, {2, 3}))}, 1));
  b.add(make(Opcode::Scatter, whole(t, {10}), {v(whole(x, {2, 3})), v(whole(idx, {2, 3}))}));
  const fusion::Graph g(b.instrs);
  CHECK(g.fusible(0, 1));
  CHECK_NOTHROW(codegen::lower(b.instrs, all(b), Target::Cpu));
}

TEST_CASE(
    "golden: C (parallel and serial) and OpenCL C of an elementwise chain, a column reduction, a full "
    "reduction, a gather, a scan, a scatter, a generator") {
  struct Case {
    const char* name;
    Batch batch;
  };
  const Case cases[] = {{"elementwise", elementwise()},
                        {"reduce_axis0", reduce_rows(0)},
                        {"sum_of_products", sum_of_products()},
                        {"gather", gather()},
                        {"scan_rows", scan_rows()},
                        {"scatter", scatter()},
                        {"random", random_scaled()}};
  for (const Case& c : cases) {
    INFO(c.name);
    const codegen::LoweredBlock cpu = codegen::lower(c.batch.instrs, all(c.batch), Target::Cpu);
    check_golden(std::string(c.name) + ".c", without_prelude(codegen::CPrinter().print(cpu.kernel, "kernel"),
                                                             codegen::CDialect{}.prelude));
    // The form for launches below the parallel threshold: no parallel region.
    codegen::CDialect serial;
    serial.serial = true;
    const std::string serial_c = codegen::CPrinter(serial).print(cpu.kernel, "kernel");
    CHECK(serial_c.find("omp parallel") == std::string::npos);
    check_golden(std::string(c.name) + ".serial.c", without_prelude(serial_c, serial.prelude));
    const codegen::LoweredBlock ocl = codegen::lower(c.batch.instrs, all(c.batch), Target::OpenCl);
    const std::string prelude = opencl::dialect(true).prelude;
    check_golden(std::string(c.name) + ".gpu.cl",
                 without_prelude(opencl::OpenClPrinter(true, true, 64).print(ocl.kernel, "kernel"), prelude));
    check_golden(
        std::string(c.name) + ".cpu.cl",
        without_prelude(opencl::OpenClPrinter(true, false, 64).print(ocl.kernel, "kernel"), prelude));
  }
}

TEST_CASE("golden: a row nest (C, parallel and serial; OpenCL, a work item a row)") {
  const Batch b = gauss_nest();
  const codegen::LoweredBlock cpu = codegen::lower(b.instrs, all(b), Target::Cpu);
  CHECK(cpu.kernel.body[0].depth == 1);
  CHECK(cpu.contracted.size() == 2);  // f and t
  check_golden("row_nest.c",
               without_prelude(codegen::CPrinter().print(cpu.kernel, "kernel"), codegen::CDialect{}.prelude));
  codegen::CDialect serial;
  serial.serial = true;
  check_golden("row_nest.serial.c",
               without_prelude(codegen::CPrinter(serial).print(cpu.kernel, "kernel"), serial.prelude));
  // On OpenCl the rows are the work items and the loop inside a row is the item's.
  const codegen::LoweredBlock ocl = codegen::lower(b.instrs, all(b), Target::OpenCl);
  CHECK(loops(ocl) == std::vector<std::pair<int, LoopKind>>{{0, LoopKind::WorkItems}, {1, LoopKind::Serial}});
  CHECK(ocl.kernel.body[0].depth == 1);
  const std::string prelude = opencl::dialect(true).prelude;
  check_golden("row_nest.gpu.cl",
               without_prelude(opencl::OpenClPrinter(true, true, 64).print(ocl.kernel, "kernel"), prelude));
  check_golden("row_nest.cpu.cl",
               without_prelude(opencl::OpenClPrinter(true, false, 64).print(ocl.kernel, "kernel"), prelude));
}

TEST_CASE("golden: a row program (C; OpenCL, a work item a row running its segments)") {
  const Batch b = normalize_rows();
  const codegen::LoweredBlock cpu = codegen::lower(b.instrs, all(b), Target::Cpu);
  REQUIRE(cpu.kernel.body.size() == 2);
  CHECK(cpu.kernel.body[0].segment == 0);
  CHECK(cpu.kernel.body[1].segment == 1);
  CHECK(cpu.contracted.size() == 1);  // s
  check_golden("row_program.c",
               without_prelude(codegen::CPrinter().print(cpu.kernel, "kernel"), codegen::CDialect{}.prelude));
  const codegen::LoweredBlock ocl = codegen::lower(b.instrs, all(b), Target::OpenCl);
  CHECK(loops(ocl) == std::vector<std::pair<int, LoopKind>>{{0, LoopKind::WorkItems}, {1, LoopKind::Sweep}});
  const std::string prelude = opencl::dialect(true).prelude;
  check_golden("row_program.gpu.cl",
               without_prelude(opencl::OpenClPrinter(true, true, 64).print(ocl.kernel, "kernel"), prelude));
  check_golden("row_program.cpu.cl",
               without_prelude(opencl::OpenClPrinter(true, false, 64).print(ocl.kernel, "kernel"), prelude));
}

// max(x) over 50 int32: a reduction alone
Batch lone_max() {
  Batch b;
  const BaseId x = b.base(DType::Int32, 50), m = b.base(DType::Int32, 1);
  b.add(make(Opcode::MaximumReduce, whole(m, {}), {v(whole(x, {50}))}, 0));
  return b;
}

TEST_CASE("golden: OpenCL's work-group trees come from the IR (a reduction alone; a pass over partials)") {
  // A reduction alone is scheduled as a GroupTree on OpenCl (and as an
  // OpenMP reduction on cpu).
  const Batch b = lone_max();
  const codegen::LoweredBlock ocl = codegen::lower(b.instrs, all(b), Target::OpenCl);
  CHECK(loops(ocl) == std::vector<std::pair<int, LoopKind>>{{0, LoopKind::GroupTree}});
  CHECK(ocl.kernel.signature().find(" l0G") != std::string::npos);  // (each loop kind has its letter)
  CHECK(loops(codegen::lower(b.instrs, all(b), Target::Cpu)) ==
        std::vector<std::pair<int, LoopKind>>{{0, LoopKind::ParallelSweep}});
  const std::string prelude = opencl::dialect(true).prelude;
  check_golden("tree_maximum_reduce.cl",
               without_prelude(opencl::OpenClPrinter(true, true, 64).print(ocl.kernel, "kernel"), prelude));
  // The second pass of a float32 sum: float64 partials to the float32 result.
  const codegen::LoopKernel pass =
      opencl::tree_kernel(Opcode::AddReduce, DType::Float64, DType::Float64, DType::Float32);
  check_golden("tree_add_reduce.cl",
               without_prelude(opencl::OpenClPrinter(true, true, 64).print(pass, "kernel"), prelude));
  // A work-group tree has no C form.
  CHECK_THROWS_AS(codegen::CPrinter().print(ocl.kernel, "kernel"), InternalError);
}

TEST_CASE("golden: OpenCL's chunked scan comes from the IR (three kernels of one source)") {
  Batch b;
  const BaseId x = b.base(DType::Float64, 40), s = b.base(DType::Float64, 40);
  b.add(make(Opcode::AddAccumulate, whole(s, {40}), {v(whole(x, {40}))}, 0));
  const codegen::LoweredBlock ocl = codegen::lower(b.instrs, all(b), Target::OpenCl);
  REQUIRE(loops(ocl) == std::vector<std::pair<int, LoopKind>>{{0, LoopKind::ChunkedScan}});
  CHECK(ocl.kernel.signature().find(" l0C") != std::string::npos);
  const std::string src = opencl::OpenClPrinter(true, true, 64).print(ocl.kernel, "kernel");
  for (const char* part : {"kernel_totals(", "kernel_prefix(", "kernel_apply("})
    CHECK(src.find(part) != std::string::npos);
  check_golden("scan_add_accumulate.cl", without_prelude(src, opencl::dialect(true).prelude));
  CHECK_THROWS_AS(codegen::CPrinter().print(ocl.kernel, "kernel"), InternalError);
}
