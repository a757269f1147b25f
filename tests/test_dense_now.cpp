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

constexpr int64_t kBase = 24;  // elements of each input base
constexpr int64_t kN = 10;     // elements an operation runs over

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

// The dtypes an elementwise opcode on inputs of t gives where it has a
// dense loop: one, or every dtype for a cast.
std::vector<DType> result_dtypes(Opcode op, DType t) {
  std::vector<DType> r;
  for (int k = 0; k < arrvm::kDTypeCount; ++k) {
    if (arrvm::ref::dense_loop(op, t, static_cast<DType>(k)) != nullptr) r.push_back(static_cast<DType>(k));
  }
  return r;
}

struct Outcome {
  std::vector<unsigned char> bytes;
  uint32_t flags = 0;
  std::vector<std::string> ops;
};

// One operation on a fresh Runtime: inputs a (and b) the run from
// `offset` every `stride` elements, input `konst` (0, 1; -1: none) a
// constant; run_dense_now when `dense`, else its instruction. *ran:
// whether run_dense_now took it.
Outcome run(const std::string& backend, bool dense, Opcode op, DType t, DType out, int64_t offset,
            int64_t stride, int konst, const std::string& dir, bool* ran) {
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
      d[k].stride = stride;
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
        v.stride = {stride};
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
      for (const DType out : result_dtypes(op, t)) {
        for (int konst = -1; konst < arity; ++konst) {
          // contiguous, from an offset, reversed at a step of 2, a column's step
          for (const auto [offset, stride] :
               {std::pair<int64_t, int64_t>{0, 1}, {2, 1}, {kBase - 1, -2}, {1, 2}}) {
            CAPTURE(arrvm::opcode_name(op));
            CAPTURE(arrvm::dtype_name(t));
            CAPTURE(arrvm::dtype_name(out));
            CAPTURE(konst);
            CAPTURE(offset);
            CAPTURE(stride);
            bool ran = false;
            const Outcome want = run("ref", false, op, t, out, offset, stride, konst, dir.path(), &ran);
            for (const char* backend : {"ref", "cpu"}) {
              CAPTURE(backend);
              ran = false;
              const Outcome got = run(backend, true, op, t, out, offset, stride, konst, dir.path(), &ran);
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
  }
  // (identity's 169 casts, add..hypot on their dtypes: thousands of cases; a
  // table that lost its opcodes fails here)
  CHECK(cases > 2500);
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
  const DenseRun at0{a, 0, nullptr};
  const DenseRun c2{0, 0, &two};
  const DenseRun to_o{o, 0, nullptr};
  CHECK_FALSE(dense({{a, kBase - kN + 1, nullptr}, c2}, to_o, kN));  // past the base's end
  CHECK_FALSE(dense({{a, -1, nullptr}, c2}, to_o, kN));              // before its start
  CHECK_FALSE(dense({{a, kN - 2, nullptr, -1}, c2}, to_o, kN));      // reversed, past its start
  CHECK_FALSE(dense({{a, 0, nullptr, 3}, c2}, to_o, kN));            // a step past its end
  CHECK_FALSE(dense({at0, at0}, {a, 2, nullptr}, kN));               // onto an input, shifted
  CHECK_FALSE(
      dense({{a, 0, nullptr, 2}, c2}, {a, 1, nullptr, 2}, kN));     // interleaved with it (not proven apart)
  CHECK_FALSE(dense({at0, c2}, {o, kBase - kN + 1, nullptr}, kN));  // past the output's end
  CHECK_FALSE(dense({at0, c2}, {o, 0, nullptr, 0}, kN));            // an output writing one element twice
  CHECK_FALSE(dense({at0, {99, 0, nullptr}}, to_o, kN));            // an unknown base
  CHECK_FALSE(dense({at0}, to_o, kN));                              // add takes two
  CHECK_FALSE(dense({at0, at0}, to_o, kN, Opcode::AddReduce));      // not elementwise
  CHECK_FALSE(dense({at0, at0}, to_o, 0));                          // nothing to run
  CHECK_FALSE(dense({at0, at0}, to_o, kBase + 1));                  // more than out has
  CHECK_FALSE(dense({{never, 0, nullptr}, c2}, to_o, kN));          // ref: zeros are the batch's
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
  CHECK(dense({{a, 1, nullptr}, c2}, to_o, kN));
  CHECK(rt.profile().eager == eager + 1);
  CHECK(rt.profile().eager_direct == eager + 1);
  CHECK(rt.version(o) == version + 1);
  std::vector<double> got(kBase), want(kBase, 0.0);
  rt.read(o, got.data(), got.size() * 8);
  for (int64_t i = 0; i < kN; ++i) want[i] = 4;
  CHECK(got == want);
  // In place on the very elements it reads (a += 2 on a[1:11]): each is read before it is written.
  CHECK(dense({{a, 1, nullptr}, c2}, {a, 1, nullptr}, kN));
  rt.read(a, got.data(), got.size() * 8);
  want.assign(kBase, 2.0);
  for (int64_t i = 1; i <= kN; ++i) want[i] = 4;
  CHECK(got == want);
  // Reversed, on the same base but apart (a[23:13:-1] = a[0:10] * 2), and a column's step.
  CHECK(dense({at0, c2}, {a, kBase - 1, nullptr, -1}, kN, Opcode::Multiply));
  rt.read(a, got.data(), got.size() * 8);
  for (int64_t i = 0; i < kN; ++i) want[kBase - 1 - i] = want[i] * 2;
  CHECK(got == want);
  CHECK(dense({{a, 0, nullptr, 2}, c2}, {o, 1, nullptr, 2}, kN, Opcode::Subtract));
  rt.read(o, got.data(), got.size() * 8);
  CHECK(got[1] == want[0] - 2);
  CHECK(got[19] == want[18] - 2);
}

TEST_CASE("dense_now: the frontend's operations on one-run operands of one shape take it, the rest do not") {
  const cputest::TempDir dir;
  for (const char* backend : {"ref", "cpu"}) {
    CAPTURE(backend);
    const arrvm::Vm vm = make_vm(backend, "1000", dir.path());
    arrvm::Runtime& rt = vm.runtime();
    const Array x = Array::arange(0.0, 12.0, 1.0, DType::Float64, vm).reshape({3, 4});
    uint64_t direct = rt.profile().eager_direct;
    auto took = [&](uint64_t more) {  // the direct path ran `more` operations since the last call
      const bool ok = rt.profile().eager_direct == direct + more;
      direct = rt.profile().eager_direct;
      return ok;
    };
    const Array y = x * 0.5;
    CHECK(took(1));
    const Array z = x(arrvm::Slice(1, {})) - y(arrvm::Slice({}, 2));  // two row blocks
    CHECK(took(1));
    CHECK(z.to_vector<double>() == std::vector<double>{4, 4.5, 5, 5.5, 6, 6.5, 7, 7.5});
    // In place into the target's own elements; a copy.
    Array w = x.copy();
    Array tail = w(arrvm::Slice(1, {}));
    tail -= z;
    CHECK(took(2));
    CHECK(w.to_vector<double>() == std::vector<double>{0, 1, 2, 3, 0, 0.5, 1, 1.5, 2, 2.5, 3, 3.5});
    // A column, a 0-d operand, a cast, a write into a column: runs too.
    const Array col = x(arrvm::Slice(), 1) + 1.0;
    const Array scaled = x * x.sum();
    const Array narrow = x.astype(DType::Float32);
    w(arrvm::Slice(), 2) = col;
    CHECK(took(4));  // (+, *, the cast and the write; the sum takes the instruction path)
    CHECK(col.to_vector<double>() == std::vector<double>{2, 6, 10});
    CHECK(scaled.to_vector<double>()[3] == 3.0 * 66.0);
    CHECK(narrow.to_vector<float>()[11] == 11.0f);
    CHECK(w.to_vector<double>()[10] == 10.0);
    // A broadcast, a transpose of a matrix and a float to int cast: the
    // instruction path, the same values as NumPy's.
    const Array row = x + x(0);
    const Array t = x.transpose() * 1.0;
    const Array ints = x.astype(DType::Int32);
    CHECK(took(0));
    CHECK(ints.to_vector<int32_t>()[11] == 11);
    CHECK(row.to_vector<double>()[5] == 5.0 + 1.0);
    CHECK(t.to_vector<double>()[1] == 4.0);
    // Integer division by zero: NumPy's 0 and its warning's flag, as on the instruction path.
    const Array i = Array::arange(int64_t{4}, DType::Int64, vm);
    const Array q = arrvm::floor_divide(i, i * int64_t{0});
    CHECK(q.to_vector<int64_t>() == std::vector<int64_t>{0, 0, 0, 0});
    std::vector<std::string> ops;
    CHECK((rt.take_fp_flags(&ops) & arrvm::kFpDivide) != 0);
  }
}
