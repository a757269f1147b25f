// The eager path without an instruction (Runtime::run_dense_now,
// backends/ref/dense_loops.hpp): every elementwise opcode on every dtype it
// takes gives the bytes and floating-point flags of its instruction run by
// the reference interpreter; it declines (changing nothing) wherever the
// instruction path has books to keep; the frontend takes it for dense
// operands of one shape.
#include <doctest/doctest.h>

#include <arrvm/arrvm.hpp>
#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "backends/ref/dense_loops.hpp"
#include "engine/runtime.hpp"
#include "tests/cpu_test_util.hpp"
#include "vm/error.hpp"
#include "vm/fp_flags.hpp"

using arrvm::Array;
using arrvm::DenseRun;
using arrvm::DType;
using arrvm::Opcode;

namespace {

constexpr int64_t kBase = 12;  // elements of each input base
constexpr int64_t kN = 10;     // elements an operation runs over (from offset 0 or 2)

// kBase values of dtype t as bytes: zeros, ones, signs, extremes, NaN and
// infinities where the dtype has them, then random ones.
std::vector<unsigned char> values(DType t, uint64_t seed) {
  std::vector<unsigned char> bytes(static_cast<std::size_t>(kBase) * arrvm::dtype_size(t));
  std::mt19937_64 rng(seed);
  arrvm::visit_dtype(t, [&](auto z) {
    using T = decltype(z);
    // (a plain array: std::vector<bool> has no data())
    auto v = std::make_unique<T[]>(static_cast<std::size_t>(kBase));
    if constexpr (std::is_same_v<T, bool>) {
      for (int64_t i = 0; i < kBase; ++i) v[i] = (rng() & 1) != 0;
    } else if constexpr (std::is_integral_v<T>) {
      using L = std::numeric_limits<T>;
      const T special[] = {T(0), T(1), T(L::max()), T(L::min()), T(7), T(3)};
      for (int64_t i = 0; i < kBase; ++i)
        v[i] = i < 6 ? special[i] : static_cast<T>(rng() % 19) - T(9 * L::is_signed);
    } else if constexpr (std::is_floating_point_v<T>) {
      using L = std::numeric_limits<T>;
      const T special[] = {T(0),           T(-0.0),  L::quiet_NaN(), L::infinity(),
                           -L::infinity(), L::max(), T(0.5),         T(-2.25)};
      std::uniform_real_distribution<double> u(-3, 3);
      for (int64_t i = 0; i < kBase; ++i) v[i] = i < 8 ? special[i] : static_cast<T>(u(rng));
    } else {  // complex
      using P = typename T::value_type;
      std::uniform_real_distribution<double> u(-3, 3);
      for (int64_t i = 0; i < kBase; ++i)
        v[i] = T(static_cast<P>(u(rng)), static_cast<P>(i % 3 == 0 ? 0 : u(rng)));
      v[1] = T(0, 0);
    }
    std::memcpy(bytes.data(), v.get(), bytes.size());
  });
  return bytes;
}

// Element i of `bytes` (of dtype t) as a constant of t.
arrvm::Scalar constant_of(DType t, const std::vector<unsigned char>& bytes, int64_t i) {
  return arrvm::visit_dtype(t, [&](auto z) {
    using T = decltype(z);
    T v;
    std::memcpy(&v, bytes.data() + i * sizeof(T), sizeof(T));
    if constexpr (std::is_same_v<T, bool> || std::is_signed_v<T>)
      return arrvm::Scalar::of_int(t, static_cast<int64_t>(v));
    else if constexpr (std::is_integral_v<T>)
      return arrvm::Scalar::of_uint(t, static_cast<uint64_t>(v));
    else if constexpr (std::is_floating_point_v<T>)
      return arrvm::Scalar::of_double(t, static_cast<double>(v));
    else
      return arrvm::Scalar::of_complex(t, static_cast<double>(v.real()), static_cast<double>(v.imag()));
  });
}

// The dtype an elementwise opcode on inputs of t gives, if it has a dense loop.
bool result_dtype(Opcode op, DType t, DType* out) {
  for (int k = 0; k < arrvm::kDTypeCount; ++k) {
    if (arrvm::ref::dense_loop(op, t, static_cast<DType>(k)) != nullptr) {
      *out = static_cast<DType>(k);
      return true;
    }
  }
  return false;
}

struct Outcome {
  std::vector<unsigned char> bytes;
  uint32_t flags = 0;
  std::vector<std::string> ops;
};

// One operation on a fresh Runtime: inputs a (and b) from `offset`, input
// `konst` (0, 1; -1: none) a constant; run_dense_now when `dense`, else its
// instruction. *ran: whether run_dense_now took it.
Outcome run(const std::string& backend, bool dense, Opcode op, DType t, DType out, int64_t offset, int konst,
            const std::string& dir, bool* ran) {
  arrvm::Config cfg = cputest::config(backend, dir);
  cfg.eager = dense ? 4096 : 0;
  arrvm::Runtime rt(cfg);
  const int arity = arrvm::opcode_arity(op);
  arrvm::BaseId in[2];
  std::vector<unsigned char> data[2];
  arrvm::Scalar consts[2];
  for (int k = 0; k < arity; ++k) {
    in[k] = rt.new_base(t, kBase);
    data[k] = values(t, 17 + k);
    rt.write(in[k], data[k].data(), data[k].size());
    consts[k] = constant_of(t, data[k], 3 + k);
  }
  const arrvm::BaseId o = rt.new_base(out, kN);
  Outcome r;
  if (dense) {
    DenseRun d[2];
    for (int k = 0; k < arity; ++k) {
      d[k].base = in[k];
      d[k].offset = offset;
      if (k == konst) d[k].constant = &consts[k];
    }
    *ran = rt.run_dense_now(op, {d, static_cast<std::size_t>(arity)}, {o, 0, nullptr}, out, kN);
  } else {
    arrvm::Instruction instr;
    instr.op = op;
    instr.out = arrvm::contiguous_view(o, out, {kN});
    for (int k = 0; k < arity; ++k) {
      if (k == konst) {
        instr.add_input(arrvm::Operand::of(consts[k]));
      } else {
        arrvm::View v = arrvm::contiguous_view(in[k], t, {kN});
        v.offset = offset;
        instr.add_input(arrvm::Operand::of(v));
      }
    }
    rt.issue(instr);
  }
  r.bytes.resize(static_cast<std::size_t>(kN) * arrvm::dtype_size(out));
  rt.read(o, r.bytes.data(), r.bytes.size());
  r.flags = rt.take_fp_flags(&r.ops);
  return r;
}

arrvm::Vm make_vm(const std::string& backend, const std::string& eager, const std::string& dir) {
  return arrvm::Vm({{"backend", backend}, {"eager", eager}, {"cache_dir", dir}, {"log", "off"}});
}

}  // namespace

TEST_CASE("dense_now: every elementwise opcode and dtype gives ref's bytes, flags and names (ref, cpu)") {
  const cputest::TempDir dir;
  int cases = 0;
  for (int code = 0; code < arrvm::kOpcodeCount; ++code) {
    const auto op = static_cast<Opcode>(code);
    const int arity = arrvm::opcode_arity(op);
    if (arrvm::opcode_kind(op) != arrvm::OpKind::Elementwise || arity < 1 || arity > 2) continue;
    for (int k = 0; k < arrvm::kDTypeCount; ++k) {
      const auto t = static_cast<DType>(k);
      DType out;
      if (!result_dtype(op, t, &out)) continue;
      for (int konst = -1; konst < arity; ++konst) {
        for (int64_t offset : {int64_t{0}, int64_t{2}}) {
          CAPTURE(arrvm::opcode_name(op));
          CAPTURE(arrvm::dtype_name(t));
          CAPTURE(konst);
          CAPTURE(offset);
          bool ran = false;
          const Outcome want = run("ref", false, op, t, out, offset, konst, dir.path(), &ran);
          for (const char* backend : {"ref", "cpu"}) {
            CAPTURE(backend);
            ran = false;
            const Outcome got = run(backend, true, op, t, out, offset, konst, dir.path(), &ran);
            CHECK(ran);
            CHECK(got.bytes == want.bytes);
            CHECK(got.flags == want.flags);
            CHECK(got.ops == want.ops);
          }
          ++cases;
        }
      }
    }
  }
  // (add..hypot on their dtypes: hundreds; a table that lost its opcodes fails here)
  CHECK(cases > 600);
}

TEST_CASE("dense_now: declines, changing nothing, where the instruction path keeps books") {
  const cputest::TempDir dir;
  arrvm::Config cfg = cputest::config("ref", dir.path());
  cfg.eager = 4096;
  arrvm::Runtime rt(cfg);
  const std::vector<double> data(kBase, 2.0);
  const arrvm::BaseId a = rt.new_base(DType::Float64, kBase);
  rt.write(a, data.data(), data.size() * 8);
  const arrvm::BaseId never = rt.new_base(DType::Float64, kBase);  // never written: reads as zeros
  const arrvm::BaseId o = rt.new_base(DType::Float64, kBase);
  const arrvm::Scalar two = arrvm::Scalar::of_double(DType::Float64, 2.0);
  auto dense = [&](std::initializer_list<DenseRun> in, DenseRun out, int64_t n, Opcode op = Opcode::Add) {
    const uint64_t issued = rt.profile().instructions;
    const bool took = rt.run_dense_now(op, {in.begin(), in.size()}, out, DType::Float64, n);
    CHECK(rt.profile().instructions == issued + (took ? 1 : 0));
    return took;
  };
  CHECK_FALSE(dense({{a, 3, nullptr}, {a, 0, nullptr}}, {o, 0, nullptr}, kN));   // past the base's end
  CHECK_FALSE(dense({{a, -1, nullptr}, {a, 0, nullptr}}, {o, 0, nullptr}, kN));  // before its start
  CHECK_FALSE(dense({{a, 0, nullptr}, {a, 0, nullptr}}, {a, 2, nullptr}, kN));   // onto an input, shifted
  CHECK_FALSE(dense({{a, 0, nullptr}, {0, 0, &two}}, {o, 3, nullptr}, kN));      // past the output's end
  CHECK_FALSE(dense({{a, 0, nullptr}, {99, 0, nullptr}}, {o, 0, nullptr}, kN));  // an unknown base
  CHECK_FALSE(dense({{a, 0, nullptr}}, {o, 0, nullptr}, kN));                    // add takes two
  CHECK_FALSE(
      dense({{a, 0, nullptr}, {a, 0, nullptr}}, {o, 0, nullptr}, kN, Opcode::AddReduce));  // not elementwise
  CHECK_FALSE(dense({{a, 0, nullptr}, {a, 0, nullptr}}, {o, 0, nullptr}, kBase + 1));  // more than out has
  CHECK_FALSE(dense({{never, 0, nullptr}, {0, 0, &two}}, {o, 0, nullptr}, kN));  // ref: zeros are the batch's
  CHECK(rt.pending() == 0);
  // Pending work: the order of the stream is the batch's.
  cfg.eager = 0;
  arrvm::Runtime lazy(cfg);
  const arrvm::BaseId b = lazy.new_base(DType::Float64, kBase);
  arrvm::Instruction fill;
  fill.op = Opcode::Range;
  fill.out = arrvm::contiguous_view(b, DType::Float64, {kBase});
  lazy.issue(fill);
  const arrvm::BaseId p = lazy.new_base(DType::Float64, kN);
  const DenseRun in[2] = {{b, 0, nullptr}, {0, 0, &two}};
  CHECK_FALSE(lazy.run_dense_now(Opcode::Multiply, in, {p, 0, nullptr}, DType::Float64,
                                 kN));  // (eager off, and a batch)
  // A trace: the instruction path records the stream.
  cfg.eager = 4096;
  cfg.trace = dir.file("t.trace");
  arrvm::Runtime traced(cfg);
  const arrvm::BaseId c = traced.new_base(DType::Float64, kBase);
  traced.write(c, data.data(), data.size() * 8);
  const arrvm::BaseId q = traced.new_base(DType::Float64, kN);
  const DenseRun cin[2] = {{c, 0, nullptr}, {0, 0, &two}};
  CHECK_FALSE(traced.run_dense_now(Opcode::Multiply, cin, {q, 0, nullptr}, DType::Float64, kN));
  // Taken: one eager instruction, the output's version moved.
  const uint64_t version = rt.version(o);
  const uint64_t eager = rt.profile().eager;
  CHECK(dense({{a, 1, nullptr}, {0, 0, &two}}, {o, 0, nullptr}, kN));
  CHECK(rt.profile().eager == eager + 1);
  CHECK(rt.version(o) == version + 1);
  std::vector<double> got(kBase);
  rt.read(o, got.data(), got.size() * 8);
  CHECK(got == std::vector<double>{4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 0, 0});
  // In place on the very elements it reads (a += 2 on a[1:11]): each is read before it is written.
  CHECK(dense({{a, 1, nullptr}, {0, 0, &two}}, {a, 1, nullptr}, kN));
  rt.read(a, got.data(), got.size() * 8);
  CHECK(got == std::vector<double>{2, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 2});
}

TEST_CASE("dense_now: the frontend's operations on dense operands of one shape take it, the rest do not") {
  const cputest::TempDir dir;
  for (const char* backend : {"ref", "cpu"}) {
    CAPTURE(backend);
    const arrvm::Vm vm = make_vm(backend, "1000", dir.path());
    arrvm::Runtime& rt = vm.runtime();
    const Array x = Array::arange(0.0, 12.0, 1.0, DType::Float64, vm).reshape({3, 4});
    const Array y = x * 0.5;  // taken
    const uint64_t eager = rt.profile().eager, instructions = rt.profile().instructions;
    const Array z = x(arrvm::Slice(1, {})) - y(arrvm::Slice({}, 2));  // two dense row blocks: taken
    CHECK(rt.profile().instructions == instructions + 1);
    CHECK(rt.profile().eager == eager + 1);
    CHECK(z.to_vector<double>() == std::vector<double>{4, 4.5, 5, 5.5, 6, 6.5, 7, 7.5});
    // In place (x[1:] -= z, x *= 2.0): taken, into the target's own elements.
    Array w = x.copy();
    Array tail = w(arrvm::Slice(1, {}));
    tail -= z;
    CHECK(rt.profile().eager == eager + 3);  // (the copy, then the subtraction)
    CHECK(w.to_vector<double>() == std::vector<double>{0, 1, 2, 3, 0, 0.5, 1, 1.5, 2, 2.5, 3, 3.5});
    // A column (strided), a broadcast and a transpose: the instruction path, the same values as NumPy's.
    const Array col = x(arrvm::Slice(), 1) + 1.0;
    CHECK(col.to_vector<double>() == std::vector<double>{2, 6, 10});
    const Array row = x + x(0);
    CHECK(row.to_vector<double>()[5] == 5.0 + 1.0);
    const Array t = x.transpose() * 1.0;
    CHECK(t.to_vector<double>()[1] == 4.0);
    // Integer division by zero: NumPy's 0 and its warning's flag, as on the instruction path.
    const Array i = Array::arange(int64_t{4}, DType::Int64, vm);
    const Array q = arrvm::floor_divide(i, i * int64_t{0});
    CHECK(q.to_vector<int64_t>() == std::vector<int64_t>{0, 0, 0, 0});
    std::vector<std::string> ops;
    CHECK((rt.take_fp_flags(&ops) & arrvm::kFpDivide) != 0);
  }
}
