// Fused kernels of the generating backends (cpu, opencl: one suite,
// parameterised by backend) against ref: every reduction, scan,
// gather and scatter x every dtype it takes, each fed by an elementwise
// producer (a temporary that fusion turns into a scalar), along each axis of
// a 2-D array, into 0-d, along the middle axis of a 3-D array, scans feeding
// elementwise ops, gathers from reversed and transposed sources, scatters
// with duplicate indices (ref's order: the last write wins) and into
// transposed targets. Small arrays (sequential, with NaN, inf, -0.0 and
// integer extremes) and large ones (parallel loops and OpenMP reductions,
// on values every summation order adds exactly). Then the run-time errors:
// an index out of range gives ref's message, also from a parallel loop, and
// leaves the VM usable; min/max over an empty axis (which the validator
// rejects first) raise ref's error in the backend too.
#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "backends/backend.hpp"
#include "engine/runtime.hpp"
#include "tests/cpu_test_util.hpp"
#include "tests/opencl_test_util.hpp"
#include "tests/reduce_program.hpp"
#include "vm/error.hpp"
#include "vm/partition.hpp"

using namespace arrvm;  // tests only

namespace {

View view(BaseId b, DType t, int64_t off, Dims shape, Dims stride) {
  return reduceprog::typed_view(b, t, off, shape, stride);
}

View whole(BaseId b, DType t, Dims shape) {
  return contiguous_view(b, t, shape);
}

Instruction make(Opcode op, const View& out, std::vector<Operand> ins, int axis = 0) {
  Instruction i;
  i.op = op;
  i.out = out;
  for (const Operand& o : ins) i.add_input(o);
  i.axis = axis;
  return i;
}

Operand of(const View& v) {
  return Operand::of(v);
}
Operand of_int(int64_t v) {
  return Operand::of(Scalar::of_int(DType::Int64, v));
}

template <typename T>
void put(std::vector<uint8_t>* bytes, std::size_t i, T v) {
  std::memcpy(bytes->data() + i * sizeof(T), &v, sizeof(T));
}

// `special`: edge cases first (NaN, +-inf, -0.0, extremes), for small arrays
// whose sweeps run sequentially (the powers of two of kCycle). Otherwise
// +-1 only: their sums and products are exact and bounded in any order, so
// parallel reductions must agree with ref exactly as well (an OpenCL
// work-group tree multiplies in another order than ref; with 4 and 0.25 in
// the data one order overflows to inf * 0 = NaN where ref's does not).
std::vector<uint8_t> values(DType t, int64_t n, int which, bool special) {
  std::vector<uint8_t> b(static_cast<std::size_t>(n) * dtype_size(t));
  static const double kCycle[8] = {-1, 1, 0.5, 2, -0.5, -2, 0.25, 4};
  static const double kSigns[8] = {-1, 1, 1, -1, -1, 1, 1, 1};
  visit_dtype(t, [&](auto x) {
    using T = decltype(x);
    using L = std::numeric_limits<T>;
    for (int64_t i = 0; i < n; ++i) {
      T v{};
      if constexpr (kIsComplex<T>) {
        throw std::logic_error("values: complex dtypes are not in this table");
      } else if constexpr (std::is_same_v<T, bool>) {
        v = (i * 7 + which) % 3 != 0;
      } else if constexpr (std::is_floating_point_v<T>) {
        const T sp[] = {T(-0.0),        L::quiet_NaN(), L::infinity(), T(-0.0),
                        -L::infinity(), L::max(),       T(0),          L::lowest()};
        const double* cycle = special ? kCycle : kSigns;
        v = special && i < 8 && (i + which) % 2 == 0 ? sp[i] : T(cycle[(i * 3 + which) % 8]);
      } else {
        const T sp[] = {L::min(), L::max(), T(T(0) - 1), T(0), T(L::min() + 1)};
        v = special && i < 5 ? sp[i] : T((i * 37 + which * 11) % 19 - (L::is_signed ? 9 : 0));
      }
      put(&b, static_cast<std::size_t>(i), v);
    }
  });
  return b;
}

std::vector<DType> all_dtypes() {
  std::vector<DType> v;
  for (int i = 0; i < kDTypeCount; ++i) {
    // (complex dtypes have their own tables: tests/test_complex.cpp)
    if (!is_complex(static_cast<DType>(i))) v.push_back(static_cast<DType>(i));
  }
  return v;
}

struct Output {
  std::string label;
  BaseId base;
  bool reduction;  // float results within a tolerance (summation order is unspecified)
};

struct Table {
  std::vector<std::string> labels;
  std::vector<std::vector<uint8_t>> bytes;
  std::vector<bool> reduction;
  std::vector<DType> dtypes;
  uint64_t launched = 0;
  uint64_t instructions = 0;  // non-control instructions issued
};

// Issues the whole table on `config` (one batch) and reads every output.
Table run_table(const Config& config, int64_t rows, int64_t cols, bool special) {
  Runtime rt(config);
  std::vector<Output> outs;
  Table r;
  auto issue = [&](const Instruction& in) {
    rt.issue(in);
    if (!is_control(in.op)) ++r.instructions;
  };
  const int64_t n = rows * cols;
  for (DType t : all_dtypes()) {
    const std::string tn(dtype_name(t));
    const bool logical = t == DType::Bool;
    const Opcode producer = logical ? Opcode::LogicalNot : Opcode::Negative;
    const BaseId x = rt.new_base(t, n);
    const std::vector<uint8_t> data = values(t, n, 0, special);
    rt.write(x, data.data(), data.size());
    const View x2 = whole(x, t, {rows, cols});
    auto out = [&](const std::string& label, DType dt, int64_t nelem, bool reduction) {
      outs.push_back({label + " " + tn, rt.new_base(dt, nelem), reduction});
      return outs.back().base;
    };
    // y = producer(x) as a temporary of the given view shape, freed by `done`.
    auto temp = [&](Dims shape) {
      const BaseId y = rt.new_base(t, n);
      issue(make(producer, whole(y, t, shape), {of(view(x, t, 0, shape, row_major_strides(shape)))}));
      return y;
    };
    std::vector<Opcode> reductions = {Opcode::LogicalAndReduce, Opcode::LogicalOrReduce};
    if (!logical)
      reductions = {Opcode::AddReduce, Opcode::MultiplyReduce, Opcode::MinimumReduce, Opcode::MaximumReduce};
    for (Opcode op : reductions) {
      const std::string on(opcode_name(op));
      for (int axis = 0; axis < 2; ++axis) {
        const BaseId y = temp({rows, cols});
        const int64_t m = axis == 0 ? cols : rows;
        const BaseId o = out(on + " axis " + std::to_string(axis), t, m, true);
        issue(make(op, whole(o, t, {m}), {of(whole(y, t, {rows, cols}))}, axis));
        rt.free_base(y);
      }
      const BaseId y = temp({n});
      const BaseId o = out(on + " to 0-d", t, 1, true);
      issue(make(op, view(o, t, 0, {}, {}), {of(whole(y, t, {n}))}, 0));
      rt.free_base(y);
    }
    if (!logical) {
      for (Opcode op : {Opcode::AddAccumulate, Opcode::MultiplyAccumulate, Opcode::MinimumAccumulate,
                        Opcode::MaximumAccumulate}) {
        for (int axis = 0; axis < 2; ++axis) {
          const std::string label = std::string(opcode_name(op)) + " axis " + std::to_string(axis);
          const BaseId y = temp({rows, cols});
          const BaseId o = out(label, t, n, false);
          issue(make(op, whole(o, t, {rows, cols}), {of(whole(y, t, {rows, cols}))}, axis));
          // The scan's output as a temporary feeding an elementwise op.
          const BaseId s = rt.new_base(t, n);
          issue(make(op, whole(s, t, {rows, cols}), {of(whole(y, t, {rows, cols}))}, axis));
          const BaseId o2 = out(label + " then subtract", t, n, false);
          issue(make(Opcode::Subtract, whole(o2, t, {rows, cols}), {of(whole(s, t, {rows, cols})), of(x2)}));
          rt.free_base(s);
          rt.free_base(y);
        }
      }
    }
    // Gathers: indices (7 * range) mod n computed in the block, from x
    // reversed and from x transposed.
    for (int src = 0; src < 2; ++src) {
      const BaseId r0 = rt.new_base(DType::Int64, n), idx = rt.new_base(DType::Int64, n);
      const View r2 = whole(r0, DType::Int64, {rows, cols}), i2 = whole(idx, DType::Int64, {rows, cols});
      issue(make(Opcode::Range, r2, {}));
      issue(make(Opcode::Multiply, i2, {of(r2), of_int(7)}));
      issue(make(Opcode::Mod, i2, {of(i2), of_int(n)}));
      const View source = src == 0 ? view(x, t, n - 1, {n}, {-1}) : view(x, t, 0, {cols, rows}, {1, cols});
      const BaseId o = out(src == 0 ? "gather reversed" : "gather transposed", t, n, false);
      issue(make(Opcode::Gather, whole(o, t, {rows, cols}), {of(source), of(i2)}));
      rt.free_base(r0);
      rt.free_base(idx);
    }
    // Scatters: values computed in the block, indices (3 * range) mod 7
    // (duplicates) into a 7-element base, and mod 12 into a transposed 4x3.
    for (int dst = 0; dst < 2; ++dst) {
      const int64_t m = dst == 0 ? 7 : 12;
      const BaseId y = temp({rows, cols});
      const BaseId r0 = rt.new_base(DType::Int64, n), idx = rt.new_base(DType::Int64, n);
      const View r2 = whole(r0, DType::Int64, {rows, cols}), i2 = whole(idx, DType::Int64, {rows, cols});
      issue(make(Opcode::Range, r2, {}));
      issue(make(Opcode::Multiply, i2, {of(r2), of_int(3)}));
      issue(make(Opcode::Mod, i2, {of(i2), of_int(m)}));
      const BaseId o = out(dst == 0 ? "scatter duplicates" : "scatter transposed", t, m, false);
      const View target = dst == 0 ? whole(o, t, {7}) : view(o, t, 0, {3, 4}, {1, 3});
      issue(make(Opcode::Scatter, target, {of(whole(y, t, {rows, cols})), of(i2)}));
      for (BaseId b : {y, r0, idx}) rt.free_base(b);
    }
  }
  // The middle axis of a 3-D array (int32 and float64).
  for (DType t : {DType::Int32, DType::Float64}) {
    const std::string tn(dtype_name(t));
    const int64_t a = 3, b = rows, c = cols, n = a * b * c;
    const BaseId x = rt.new_base(t, n);
    const std::vector<uint8_t> data = values(t, n, 1, special);
    rt.write(x, data.data(), data.size());
    const View x3 = whole(x, t, {a, b, c});
    const BaseId y = rt.new_base(t, n);
    issue(make(Opcode::Multiply, whole(y, t, {a, b, c}), {of(x3), Operand::of(Scalar::of_int(t, 3))}));
    outs.push_back({"add_reduce 3-D axis 1 " + tn, rt.new_base(t, a * c), true});
    issue(make(Opcode::AddReduce, whole(outs.back().base, t, {a, c}), {of(whole(y, t, {a, b, c}))}, 1));
    outs.push_back({"maximum_reduce 3-D axis 1 " + tn, rt.new_base(t, a * c), true});
    issue(make(Opcode::MaximumReduce, whole(outs.back().base, t, {a, c}), {of(whole(y, t, {a, b, c}))}, 1));
    outs.push_back({"add_accumulate 3-D axis 1 " + tn, rt.new_base(t, n), false});
    issue(
        make(Opcode::AddAccumulate, whole(outs.back().base, t, {a, b, c}), {of(whole(y, t, {a, b, c}))}, 1));
    rt.free_base(y);
  }
  for (const Output& o : outs) {
    const BaseInfo* info = rt.bases().find(o.base);
    std::vector<uint8_t> bytes(static_cast<std::size_t>(info->nelem) * dtype_size(info->dtype));
    rt.read(o.base, bytes.data(), bytes.size());
    r.labels.push_back(o.label);
    r.bytes.push_back(std::move(bytes));
    r.reduction.push_back(o.reduction);
    r.dtypes.push_back(info->dtype);
  }
  r.launched = rt.profile().kernels_launched;
  return r;
}

// Empty if equal: exact, except float reductions within rtol (1e-12
// float64, 1e-5 float32); NaN equals NaN.
template <typename T>
std::string compare_floats(const std::vector<uint8_t>& got, const std::vector<uint8_t>& want, bool tolerant) {
  const double rtol = sizeof(T) == 8 ? 1e-12 : 1e-5, atol = sizeof(T) == 8 ? 1e-14 : 1e-6;
  for (std::size_t i = 0; i < got.size() / sizeof(T); ++i) {
    T a, b;
    std::memcpy(&a, &got[i * sizeof(T)], sizeof(T));
    std::memcpy(&b, &want[i * sizeof(T)], sizeof(T));
    if (std::memcmp(&a, &b, sizeof(T)) == 0 || (std::isnan(a) && std::isnan(b))) continue;
    if (tolerant && std::abs(double(a) - double(b)) <= atol + rtol * std::abs(double(b))) continue;
    return "element " + std::to_string(i) + ": " + std::to_string(a) + " vs ref " + std::to_string(b);
  }
  return "";
}

std::string compare(DType t, const std::vector<uint8_t>& got, const std::vector<uint8_t>& want,
                    bool reduction) {
  if (got.size() != want.size()) return "sizes differ";
  if (t == DType::Float64) return compare_floats<double>(got, want, reduction);
  if (t == DType::Float32) return compare_floats<float>(got, want, reduction);
  return got == want ? "" : "bytes differ";
}

void check_table(const std::string& backend, int64_t rows, int64_t cols, bool special) {
  // One kernel cache for both sizes: the large table reuses the small one's
  // kernels (most of this test's time is compiling them).
  static cputest::TempDir dir;
  Config ref = cputest::config("ref", dir.path());
  ref.batch = 1000000;
  const Table want = run_table(ref, rows, cols, special);
  for (const char* fuser : {"greedy", "singleton"}) {
    Config config = backend == "opencl" ? opencltest::config(backend, opencltest::shared_cache_dir(), fuser)
                                        : cputest::config(backend, dir.path(), fuser);
    config.batch = 1000000;
    const Table got = run_table(config, rows, cols, special);
    REQUIRE(got.labels == want.labels);
    for (std::size_t i = 0; i < got.bytes.size(); ++i) {
      INFO(backend << " " << std::string(fuser) << ": " << got.labels[i] << " (" << rows << "x" << cols
                   << ")");
      CHECK(compare(got.dtypes[i], got.bytes[i], want.bytes[i], got.reduction[i]) == "");
    }
    MESSAGE(backend << " " << std::string(fuser) << " " << rows << "x" << cols << ": " << got.instructions
                    << " instructions in " << got.launched << " kernels");
    if (std::string(fuser) == "greedy") {
      CHECK(got.launched * 2 < got.instructions);  // producers, indices and consumers share kernels
    } else {
      CHECK(got.launched == got.instructions);
    }
  }
}

// The message of the Error that `program` raises on `backend`.
template <typename F>
std::string error_of(const std::string& backend, const std::string& fuser, F program) {
  cputest::TempDir dir;
  Runtime rt(cputest::config(backend, dir.path(), fuser));
  try {
    program(rt);
  } catch (const BackendError& e) {
    return std::string("BackendError: ") + e.what();
  } catch (const Error& e) {
    // The VM stays usable: a new computation runs and reads back.
    const BaseId b = rt.new_base(DType::Int64, 4);
    rt.issue(make(Opcode::Range, whole(b, DType::Int64, {4}), {}));
    std::vector<int64_t> v(4);
    rt.read(b, v.data(), 32);
    CHECK(v == std::vector<int64_t>{0, 1, 2, 3});
    return e.what();
  }
  return "no error";
}

// A gather from a 10-element base with indices range(n) + shift, or with
// host-written indices.
void gather_program(Runtime& rt, int64_t n, int64_t shift, const std::vector<int64_t>* host_idx) {
  const DType f = DType::Float64;
  const BaseId x = rt.new_base(f, 10), r = rt.new_base(DType::Int64, n), o = rt.new_base(f, n);
  rt.issue(make(Opcode::Range, whole(x, f, {10}), {}));
  if (host_idx != nullptr) {
    rt.write(r, host_idx->data(), host_idx->size() * 8);
  } else {
    rt.issue(make(Opcode::Range, whole(r, DType::Int64, {n}), {}));
    rt.issue(
        make(Opcode::Add, whole(r, DType::Int64, {n}), {of(whole(r, DType::Int64, {n})), of_int(shift)}));
  }
  rt.issue(make(Opcode::Gather, whole(o, f, {n}), {of(whole(x, f, {10})), of(whole(r, DType::Int64, {n}))}));
  rt.free_base(r);
  std::vector<double> v(static_cast<std::size_t>(n));
  rt.read(o, v.data(), v.size() * 8);
}

void scatter_program(Runtime& rt, int64_t shift) {
  const DType f = DType::Float64;
  const BaseId x = rt.new_base(f, 8), r = rt.new_base(DType::Int64, 8), o = rt.new_base(f, 5);
  rt.issue(make(Opcode::Range, whole(x, f, {8}), {}));
  rt.issue(make(Opcode::Range, whole(r, DType::Int64, {8}), {}));
  rt.issue(
      make(Opcode::Subtract, whole(r, DType::Int64, {8}), {of(whole(r, DType::Int64, {8})), of_int(shift)}));
  rt.issue(make(Opcode::Scatter, whole(o, f, {5}), {of(whole(x, f, {8})), of(whole(r, DType::Int64, {8}))}));
  std::vector<double> v(5);
  rt.read(o, v.data(), v.size() * 8);
}

// min/max over an empty axis, straight to a backend (the validator rejects
// it before): the message of the Error it raises.
std::string empty_axis_error(const std::string& backend, Opcode op) {
  cputest::TempDir dir;
  const std::unique_ptr<Backend> b = make_backend(cputest::config(backend, dir.path()));
  const DType t = DType::Int32;
  b->declare(0, t, 6);
  b->declare(1, t, 3);
  const std::vector<Instruction> batch = {make(Opcode::Range, whole(0, t, {6}), {}),
                                          make(op, whole(1, t, {3}), {of(view(0, t, 0, {3, 0}, {2, 1}))}, 1)};
  Partition p;
  p.blocks = {{0, 1}};
  if (backend == "ref") p = singleton_partition(2);
  try {
    b->execute(batch, p);
  } catch (const BackendError& e) {
    return std::string("BackendError: ") + e.what();
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace

TEST_CASE("fused reductions, scans, gathers and scatters of every dtype equal ref (small, sequential)") {
  for (const char* backend : {"cpu", "opencl"}) check_table(backend, 6, 5, true);
}

TEST_CASE("fused reductions, scans, gathers and scatters of every dtype equal ref (large, parallel)") {
  for (const char* backend : {"cpu", "opencl"}) check_table(backend, 400, 300, false);
}

TEST_CASE("run-time errors give ref's message on cpu and opencl and leave the VM usable") {
  struct Case {
    const char* what;
    std::function<void(Runtime&)> program;
  };
  std::vector<int64_t> bad(100000);
  for (int64_t i = 0; i < 100000; ++i) bad[i] = i % 10;
  bad[77777] = -5;  // the first bad index in row-major order
  bad[90001] = 1000000000;
  const std::vector<Case> cases = {
      {"gather past the end", [](Runtime& rt) { gather_program(rt, 6, 7, nullptr); }},
      {"gather negative", [](Runtime& rt) { gather_program(rt, 6, -2, nullptr); }},
      {"gather in a parallel loop", [&](Runtime& rt) { gather_program(rt, 100000, 0, &bad); }},
      {"scatter negative", [](Runtime& rt) { scatter_program(rt, 1); }},
      {"scatter past the end", [](Runtime& rt) { scatter_program(rt, -3); }},
  };
  for (const Case& c : cases) {
    INFO(c.what);
    const std::string want = error_of("ref", "singleton", c.program);
    CHECK(want.find("no error") == std::string::npos);
    CHECK(want.find("BackendError") == std::string::npos);
    for (const char* backend : {"cpu", "opencl"}) {
      for (const char* fuser : {"greedy", "singleton"}) {
        INFO(backend << " " << std::string(fuser));
        CHECK(error_of(backend, fuser, c.program) == want);
      }
    }
  }
  CHECK(error_of("ref", "singleton", cases[2].program).find("index -5 out of range [0, 10)") !=
        std::string::npos);
  for (Opcode op : {Opcode::MinimumReduce, Opcode::MaximumReduce}) {
    const std::string want = empty_axis_error("ref", op);
    CHECK(want.find("over an empty axis in `") != std::string::npos);
    CHECK(empty_axis_error("cpu", op) == want);
    CHECK(empty_axis_error("opencl", op) == want);
  }
}
