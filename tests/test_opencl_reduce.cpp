// Reductions, scans, gather and scatter on the opencl backend: hand-computed
// values on a large 2-D array (rows in parallel, full reductions as
// work-group trees), every reduction and scan opcode x every dtype it takes
// along each axis, a long 1-D scan, gather and scatter of every dtype through
// offset, strided and reversed views (scatter's duplicate indices: the last
// write wins, as in ref), and the errors of ref (index out of range, min/max
// over an empty axis). Integers and bools exactly; float sums within rtol
// 1e-12 (float64) and 1e-5 (float32).
#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "backends/opencl/opencl_backend.hpp"
#include "engine/runtime.hpp"
#include "tests/op_table.hpp"
#include "tests/opencl_test_util.hpp"
#include "tests/reduce_program.hpp"
#include "vm/error.hpp"

using namespace arrvm;  // tests only

namespace {

View view(BaseId b, DType t, int64_t off, Dims shape, Dims stride) {
  return reduceprog::typed_view(b, t, off, shape, stride);
}

Instruction make(Opcode op, const View& out, const View& in, int axis) {
  return reduceprog::unary(op, out, in, axis);
}

Instruction make2(Opcode op, const View& out, const View& a, const View& b) {
  Instruction i;
  i.op = op;
  i.out = out;
  i.add_input(Operand::of(a));
  i.add_input(Operand::of(b));
  return i;
}

// reduceprog::run on `backend`; *launched: kernels launched, *blocks:
// blocks with work (each one kernel).
std::vector<std::vector<int64_t>> run(const std::string& backend, uint64_t* launched,
                                      uint64_t* blocks = nullptr) {
  Runtime rt(opencltest::config(backend));
  std::vector<std::vector<int64_t>> r = reduceprog::run(rt);
  *launched = rt.profile().kernels_launched;
  if (blocks != nullptr) *blocks = rt.profile().work_blocks;
  return r;
}

// Integers and bools exactly; floats within rtol (float32 1e-5, float64
// 1e-12) and a tiny atol, NaN equal to NaN, infinities exactly.
bool close(DType t, const std::vector<uint8_t>& got, const std::vector<uint8_t>& want,
           double rtol_scale = 1) {
  if (got == want) return true;
  if (!is_float(t) || got.size() != want.size()) return false;
  const std::size_t size = dtype_size(t);
  for (std::size_t i = 0; i < got.size(); i += size) {
    double a = 0, b = 0;
    if (t == DType::Float32) {
      float fa = 0, fb = 0;
      std::memcpy(&fa, &got[i], 4);
      std::memcpy(&fb, &want[i], 4);
      a = fa;
      b = fb;
    } else {
      std::memcpy(&a, &got[i], 8);
      std::memcpy(&b, &want[i], 8);
    }
    if (a == b || (std::isnan(a) && std::isnan(b))) continue;
    const double rtol = (t == DType::Float32 ? 1e-5 : 1e-12) * rtol_scale;
    const double atol = t == DType::Float32 ? 1e-6 : 1e-14;
    if (!(std::abs(a - b) <= atol + rtol * std::abs(b))) return false;
  }
  return true;
}

struct Outputs {
  std::vector<std::string> labels;
  std::vector<DType> dtypes;
  std::vector<std::vector<uint8_t>> bytes;
  uint64_t launched = 0;  // kernels launched
};

// Runs `program` (which issues instructions and names its outputs) on
// `backend` and reads every output.
Outputs run_outputs(
    const std::string& backend,
    const std::function<void(Runtime&, std::vector<std::pair<std::string, BaseId>>*)>& program) {
  Config c = opencltest::config(backend);
  c.batch = 100000;
  Runtime rt(c);
  std::vector<std::pair<std::string, BaseId>> outs;
  program(rt, &outs);
  Outputs r;
  rt.flush();
  r.launched = rt.profile().kernels_launched;
  if (backend == "opencl") {
    const Profile& p = rt.profile();
    MESSAGE(p.kernels_launched << " kernels launched, " << p.kernel_cache_misses << " built in "
                               << p.kernels_compiled << " programs: build " << p.compile_s
                               << " s, execution (with the device's own "
                               << "compilation at first launch) " << p.execution_s() << " s");
  }
  for (const auto& [label, b] : outs) {
    const BaseInfo* info = rt.bases().find(b);
    std::vector<uint8_t> bytes(static_cast<std::size_t>(info->nelem) * dtype_size(info->dtype));
    rt.read(b, bytes.data(), bytes.size());
    r.labels.push_back(label);
    r.dtypes.push_back(info->dtype);
    r.bytes.push_back(std::move(bytes));
  }
  return r;
}

void compare(const Outputs& got, const Outputs& want) {
  REQUIRE(got.labels == want.labels);
  for (std::size_t i = 0; i < got.bytes.size(); ++i) {
    INFO(got.labels[i]);
    CHECK(close(got.dtypes[i], got.bytes[i], want.bytes[i]));
  }
}

// A base of n elements of t holding optable's edge-case values (cycled).
BaseId filled(Runtime& rt, DType t, int64_t n, int which) {
  const BaseId b = rt.new_base(t, n);
  const std::vector<uint8_t> v = optable::values(t, which);
  std::vector<uint8_t> bytes(static_cast<std::size_t>(n) * dtype_size(t));
  for (std::size_t i = 0; i < bytes.size(); ++i) bytes[i] = v[i % v.size()];
  rt.write(b, bytes.data(), bytes.size());
  return b;
}

// Small well-conditioned values (no cancellation): sums and products whose
// rounding differs only in order.
BaseId tame(Runtime& rt, DType t, int64_t n, uint64_t seed) {
  const BaseId b = rt.new_base(t, n);
  std::mt19937_64 rng(seed);
  std::vector<uint8_t> bytes(static_cast<std::size_t>(n) * dtype_size(t));
  for (int64_t i = 0; i < n; ++i) {
    const double x = 0.5 + static_cast<double>(rng() % 1000) / 1000.0;  // [0.5, 1.5)
    visit_dtype(t, [&](auto z) {
      using T = decltype(z);
      T v{};
      if constexpr (std::is_same_v<T, bool>) {
        v = (rng() % 5) != 0;
      } else if constexpr (std::is_floating_point_v<T>) {
        v = static_cast<T>(x);
      } else {
        v = static_cast<T>(rng() % 7) - static_cast<T>(is_signed_int(t) ? 3 : 0);
      }
      std::memcpy(&bytes[static_cast<std::size_t>(i) * sizeof(T)], &v, sizeof(T));
    });
  }
  rt.write(b, bytes.data(), bytes.size());
  return b;
}

}  // namespace

TEST_CASE("opencl: reductions and scans equal hand-computed values and ref") {
  uint64_t launched = 0, blocks = 0, unused = 0;
  const auto got = run("opencl", &launched, &blocks);
  CHECK(got == run("ref", &unused));
  CHECK(launched > 0);
  CHECK(launched == blocks);  // all on the device, none on the host, one kernel per block
  reduceprog::check_hand_values(got);
}

namespace {

// Full reductions of n elements of dtype t (data given as bytes), issued
// together on one Runtime of `backend` (so their kernels build as one
// program) and read back by run().
class FullReductions {
 public:
  explicit FullReductions(const std::string& backend) : rt_(opencltest::config(backend)) {}

  int add(Opcode op, DType t, const std::vector<uint8_t>& data) {
    const int64_t n = static_cast<int64_t>(data.size() / dtype_size(t));
    const BaseId x = rt_.new_base(t, n);
    rt_.write(x, data.data(), data.size());
    const BaseId o = rt_.new_base(t, 1);
    rt_.issue(make(op, view(o, t, 0, {}, {}), view(x, t, 0, {n}, {1}), 0));
    outs_.push_back({o, t});
    return static_cast<int>(outs_.size()) - 1;
  }

  std::vector<std::vector<uint8_t>> run() {
    std::vector<std::vector<uint8_t>> r;
    for (const auto& [o, t] : outs_) {
      std::vector<uint8_t> b(dtype_size(t));
      rt_.read(o, b.data(), b.size());
      r.push_back(std::move(b));
    }
    return r;
  }

 private:
  Runtime rt_;
  std::vector<std::pair<BaseId, DType>> outs_;
};

// A single full reduction (for the error case).
std::vector<uint8_t> full_reduce(const std::string& backend, Opcode op, DType t,
                                 const std::vector<uint8_t>& data) {
  FullReductions r(backend);
  r.add(op, t, data);
  return r.run()[0];
}

template <typename T>
std::vector<uint8_t> bytes_of(const std::vector<T>& v) {
  std::vector<uint8_t> b(v.size() * sizeof(T));
  std::memcpy(b.data(), v.data(), b.size());
  return b;
}

template <typename T>
T value_of(const std::vector<uint8_t>& b) {
  T v;
  std::memcpy(&v, b.data(), sizeof(T));
  return v;
}

}  // namespace

TEST_CASE("opencl: full reductions as work-group trees") {
  constexpr int64_t n = 100000;
  std::vector<double> d(n);
  std::vector<float> f(n);
  std::vector<int32_t> i32(n);
  std::vector<uint8_t> all_true(n, 1), one_false(n, 1), one_true(n, 0);
  one_false[n - 7] = 0;
  one_true[12345] = 1;
  for (int64_t k = 0; k < n; ++k) {
    d[k] = 1.0 / static_cast<double>(k + 1);
    f[k] = static_cast<float>(k % 17) * 0.25f;
    i32[k] = static_cast<int32_t>((k * 7919) % 100003) - 50000;
  }
  i32[n / 2] = -2000000000;
  i32[n / 3] = 2000000000;
  // Exact results by hand: the int sums wrap in 32 bits.
  int64_t s = 0;
  for (int32_t v : i32) s += v;
  std::vector<double> nan = d;
  nan[n - 3] = std::numeric_limits<double>::quiet_NaN();
  std::vector<float> zeros(n, -0.0f), with_inf(n, -0.0f);
  with_inf[777] = -std::numeric_limits<float>::infinity();
  FullReductions ocl("opencl"), ref("ref");
  for (FullReductions* r : {&ocl, &ref}) {
    r->add(Opcode::AddReduce, DType::Float64, bytes_of(d));                    // 0
    r->add(Opcode::AddReduce, DType::Float32, bytes_of(f));                    // 1
    r->add(Opcode::AddReduce, DType::Int32, bytes_of(i32));                    // 2
    r->add(Opcode::MinimumReduce, DType::Int32, bytes_of(i32));                // 3
    r->add(Opcode::MaximumReduce, DType::Int32, bytes_of(i32));                // 4
    r->add(Opcode::MultiplyReduce, DType::Int32, bytes_of(i32));               // 5
    r->add(Opcode::LogicalAndReduce, DType::Bool, all_true);                   // 6
    r->add(Opcode::LogicalAndReduce, DType::Bool, one_false);                  // 7
    r->add(Opcode::LogicalOrReduce, DType::Bool, one_true);                    // 8
    r->add(Opcode::LogicalOrReduce, DType::Bool, std::vector<uint8_t>(n, 0));  // 9
    r->add(Opcode::MaximumReduce, DType::Float64, bytes_of(nan));              // 10
    r->add(Opcode::MinimumReduce, DType::Float64, bytes_of(nan));              // 11
    r->add(Opcode::MaximumReduce, DType::Float64, bytes_of(d));                // 12
    r->add(Opcode::AddReduce, DType::Float32, bytes_of(zeros));                // 13
    r->add(Opcode::MinimumReduce, DType::Float32, bytes_of(with_inf));         // 14
    r->add(Opcode::MultiplyReduce, DType::Int32, {});                          // 15
    r->add(Opcode::AddReduce, DType::Float64, {});                             // 16
  }
  const auto got = ocl.run(), want = ref.run();
  // float64 sum within 1e-12 of ref; ref itself is H(100000).
  CHECK(std::abs(value_of<double>(got[0]) - value_of<double>(want[0])) <= 1e-12 * value_of<double>(want[0]));
  CHECK(std::abs(value_of<double>(want[0]) - 12.090146129863428) < 1e-9);
  // float32 sum within 1e-5.
  CHECK(std::abs(value_of<float>(got[1]) - value_of<float>(want[1])) <= 1e-5f * value_of<float>(want[1]));
  // int32 sum, min, max, product exact.
  CHECK(value_of<int32_t>(got[2]) == static_cast<int32_t>(static_cast<uint32_t>(static_cast<uint64_t>(s))));
  CHECK(value_of<int32_t>(got[3]) == -2000000000);
  CHECK(value_of<int32_t>(got[4]) == 2000000000);
  CHECK(got[5] == want[5]);
  // bool and/or exact.
  CHECK(got[6][0] == 1);
  CHECK(got[7][0] == 0);
  CHECK(got[8][0] == 1);
  CHECK(got[9][0] == 0);
  // float max and min: NaN propagates, -0.0 and -inf exact.
  CHECK(std::isnan(value_of<double>(got[10])));
  CHECK(std::isnan(value_of<double>(got[11])));
  CHECK(value_of<double>(got[12]) == 1.0);
  CHECK(std::signbit(value_of<float>(got[13])));
  CHECK(value_of<float>(got[13]) == 0.0f);
  CHECK(value_of<float>(got[14]) == -std::numeric_limits<float>::infinity());
  // Empty input: the identity.
  CHECK(value_of<int32_t>(got[15]) == 1);
  CHECK(value_of<double>(got[16]) == 0.0);
  // ... or, for min/max, ref's error.
  std::string want_error, got_error;
  try {
    full_reduce("ref", Opcode::MaximumReduce, DType::Int32, {});
  } catch (const Error& e) {
    want_error = e.what();
  }
  try {
    full_reduce("opencl", Opcode::MaximumReduce, DType::Int32, {});
  } catch (const Error& e) {
    got_error = e.what();
  }
  CHECK(!want_error.empty());
  CHECK(got_error == want_error);
}

TEST_CASE("opencl: every reduction and scan opcode x dtype, along every axis, equals ref") {
  const Opcode reductions[] = {
      Opcode::AddReduce,         Opcode::MultiplyReduce,   Opcode::MinimumReduce, Opcode::MaximumReduce,
      Opcode::LogicalAndReduce,  Opcode::LogicalOrReduce,  Opcode::AddAccumulate, Opcode::MultiplyAccumulate,
      Opcode::MinimumAccumulate, Opcode::MaximumAccumulate};
  auto program = [&](Runtime& rt, std::vector<std::pair<std::string, BaseId>>* outs) {
    for (DType t : optable::all_dtypes()) {
      // Edge values (NaN, inf, MIN/MAX: products wrap, min/max exact) and
      // tame ones (sums and products that only rounding order can change).
      for (int kind = 0; kind < 2; ++kind) {
        const int64_t rows = 24, cols = 40;
        const BaseId x = kind == 0 ? filled(rt, t, rows * cols, 0) : tame(rt, t, rows * cols, 77);
        const View xv = view(x, t, 0, {rows, cols}, {cols, 1});
        const View flat = view(x, t, rows * cols - 1, {rows * cols}, {-1});  // reversed
        for (Opcode op : reductions) {
          const bool scan = opcode_kind(op) == OpKind::Accumulate;
          for (int axis = -1; axis < 2; ++axis) {  // -1: the whole flattened array
            const View in = axis < 0 ? flat : xv;
            const Dims oshape = scan ? in.shape : in.shape.without(axis < 0 ? 0 : axis);
            const BaseId o = rt.new_base(t, oshape.product());
            Instruction instr = make(op, contiguous_view(o, t, oshape), in, axis < 0 ? 0 : axis);
            try {
              rt.issue(instr);
            } catch (const Error&) {
              rt.free_base(o);  // the validator rejects this dtype for the opcode
              continue;
            }
            outs->emplace_back(std::string(opcode_name(op)) + " " + std::string(dtype_name(t)) + " axis " +
                                   std::to_string(axis) + (kind ? " tame" : " edge"),
                               o);
          }
        }
      }
    }
  };
  const Outputs want = run_outputs("ref", program);
  const Outputs got = run_outputs("opencl", program);
  CHECK(got.labels.size() > 150);
  // Edge-value float sums of huge and tiny numbers cancel catastrophically:
  // there only NaN/inf placement and integers are compared exactly; tame
  // values get the usual tolerances.
  REQUIRE(got.labels == want.labels);
  for (std::size_t i = 0; i < got.bytes.size(); ++i) {
    INFO(got.labels[i]);
    const bool edge = got.labels[i].find("edge") != std::string::npos;
    const bool float_sum = is_float(got.dtypes[i]) &&
                           (got.labels[i].rfind("add_", 0) == 0 || got.labels[i].rfind("multiply_", 0) == 0);
    if (edge && float_sum && got.labels[i].find("axis -1") != std::string::npos &&
        got.labels[i].find("reduce") != std::string::npos) {
      continue;  // a tree over MAX, -MAX, inf, -inf, NaN: covered by the tame rows
    }
    CHECK(close(got.dtypes[i], got.bytes[i], want.bytes[i]));
  }
}

TEST_CASE("opencl: long 1-D scans (parallel, in chunks) and long row reductions equal ref") {
  auto program = [&](Runtime& rt, std::vector<std::pair<std::string, BaseId>>* outs) {
    const int64_t n = 200000;
    for (DType t : {DType::Int64, DType::Float64, DType::Float32, DType::Int8}) {
      // float32: quarters, whose partial sums float32 holds exactly (a long
      // float32 sum of arbitrary values is only as accurate as its order).
      BaseId x = tame(rt, t, n, 5);
      if (t == DType::Float32) {
        std::vector<float> q(static_cast<std::size_t>(n));
        for (int64_t i = 0; i < n; ++i) q[i] = static_cast<float>((i * 7) % 8) * 0.25f;
        rt.write(x, q.data(), q.size() * 4);
      }
      const BaseId cum = rt.new_base(t, n);
      rt.issue(make(Opcode::AddAccumulate, contiguous_view(cum, t, {n}), contiguous_view(x, t, {n}), 0));
      outs->emplace_back("cumsum " + std::string(dtype_name(t)), cum);
      const BaseId rows = rt.new_base(t, 4);
      rt.issue(make(Opcode::AddReduce, contiguous_view(rows, t, {4}), contiguous_view(x, t, {4, n / 4}), 1));
      outs->emplace_back("row sums " + std::string(dtype_name(t)), rows);
    }
  };
  const Outputs want = run_outputs("ref", program);
  const Outputs got = run_outputs("opencl", program);
  compare(got, want);
  // One kernel per block: each scan (on the device three passes: chunk
  // totals, their prefixes, the rescan) and each row reduction.
  CHECK(got.launched == 4 * 2);
}

TEST_CASE("opencl: gather and scatter of every dtype equal ref; duplicates: the last write wins") {
  auto program = [&](Runtime& rt, std::vector<std::pair<std::string, BaseId>>* outs) {
    const int64_t n = 60;
    // Indices: a permutation with repeats, through a strided 2-D view.
    std::vector<int64_t> idx(2 * n);
    for (int64_t i = 0; i < 2 * n; ++i) idx[i] = (i * 37 + 11) % 45;
    const BaseId ib = rt.new_base(DType::Int64, 2 * n);
    rt.write(ib, idx.data(), idx.size() * 8);
    const View iv = view(ib, DType::Int64, 1, {6, 10}, {20, 2});  // 60 indices, some repeated
    for (DType t : optable::all_dtypes()) {
      const BaseId src = filled(rt, t, 90, 1);
      const std::string tn(dtype_name(t));
      // gather from a reversed 2-D view of 45 elements (5 x 9).
      const BaseId g = rt.new_base(t, n);
      Instruction gi =
          make2(Opcode::Gather, view(g, t, 0, {6, 10}, {10, 1}), view(src, t, 89, {5, 9}, {-18, -2}), iv);
      rt.issue(gi);
      outs->emplace_back("gather " + tn, g);
      // scatter into a strided 3 x 15 view of a zero-filled base.
      const BaseId s = rt.new_base(t, 100);
      Instruction z;
      z.op = Opcode::Identity;
      z.out = contiguous_view(s, t, {100});
      z.add_input(Operand::of(optable::constant_of(t)));
      rt.issue(z);
      Instruction si =
          make2(Opcode::Scatter, view(s, t, 2, {3, 15}, {30, 2}), view(src, t, 0, {6, 10}, {15, 1}), iv);
      rt.issue(si);
      outs->emplace_back("scatter " + tn, s);
    }
  };
  const Outputs want = run_outputs("ref", program);
  const Outputs got = run_outputs("opencl", program);
  CHECK(got.labels.size() == 22);
  for (std::size_t i = 0; i < got.bytes.size(); ++i) {
    INFO(got.labels[i]);
    CHECK(got.bytes[i] == want.bytes[i]);  // bit for bit: only data movement
  }
}

TEST_CASE("opencl: a gather or scatter index out of range poisons its output with ref's Error") {
  for (const char* backend : {"ref", "opencl"}) {
    INFO(backend);
    Runtime rt(opencltest::config(backend));
    const DType t = DType::Float32;
    const BaseId src = rt.new_base(t, 8);
    const std::vector<float> data = {1, 2, 3, 4, 5, 6, 7, 8};
    rt.write(src, data.data(), 32);
    const BaseId ib = rt.new_base(DType::Int64, 5);
    const std::vector<int64_t> idx = {0, 7, 8, -1, 3};
    rt.write(ib, idx.data(), 40);
    const BaseId out = rt.new_base(t, 5);
    const std::vector<float> before = {9, 9, 9, 9, 9};
    rt.write(out, before.data(), 20);
    auto error_reading = [&](BaseId id, std::size_t bytes) {
      std::vector<char> buf(bytes);
      try {
        rt.read(id, buf.data(), bytes);
      } catch (const Error& e) {
        return std::string(e.what());
      }
      return std::string();
    };
    rt.issue(make2(Opcode::Gather, contiguous_view(out, t, {5}), contiguous_view(src, t, {8}),
                   contiguous_view(ib, DType::Int64, {5})));
    CHECK_NOTHROW(rt.flush());
    CHECK(error_reading(out, 20).find("gather: index 8 out of range [0, 8)") != std::string::npos);
    rt.issue(make2(Opcode::Scatter, contiguous_view(src, t, {8}), view(out, t, 0, {5}, {1}),
                   contiguous_view(ib, DType::Int64, {5})));
    // The scatter reads the poisoned `out` and fails itself: its target is
    // poisoned (with the latest error, the scatter's).
    CHECK(error_reading(src, 32).find("scatter: index 8 out of range [0, 8)") != std::string::npos);
    // With good values, the same error.
    rt.write(src, data.data(), 32);
    rt.write(out, before.data(), 20);
    rt.issue(make2(Opcode::Scatter, contiguous_view(src, t, {8}), view(out, t, 0, {5}, {1}),
                   contiguous_view(ib, DType::Int64, {5})));
    CHECK(error_reading(src, 32).find("scatter: index 8 out of range [0, 8)") != std::string::npos);
    std::vector<float> out_after(5);
    rt.read(out, out_after.data(), 20);
    CHECK(out_after == before);
  }
}
