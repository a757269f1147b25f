// The table of every elementwise opcode x every dtype it accepts (identity x
// every pair of dtypes, range and random x every dtype, binary ops also with
// a constant operand) on inputs full of edge cases (NaN, +-inf, -0.0, integer
// MIN/MAX, -1, zero divisors, shift amounts out of range), issued as one
// batch on a Runtime and read back. A backend test runs it on ref and on the
// backend and compares the bytes (tests/test_cpu_ops.cpp, tests/test_opencl_ops.cpp).
#pragma once

#include <algorithm>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "engine/runtime.hpp"
#include "vm/error.hpp"

namespace optable {

inline constexpr int64_t kN = 96;

// Edge cases first, then pseudo-random values; `which` varies the mix so
// that a and b differ.
template <typename T>
std::vector<uint8_t> make_real_values(int which);

template <typename T>
std::vector<uint8_t> make_values(int which) {
  std::vector<T> v;
  if constexpr (arrvm::kIsComplex<T>) {
    // Pairs of the float values below (specials against specials and
    // against plain values), then random pairs.
    using P = typename T::value_type;
    const std::vector<uint8_t> re = make_values<P>(which), im = make_values<P>(1 - which);
    const P* r = reinterpret_cast<const P*>(re.data());
    const P* m = reinterpret_cast<const P*>(im.data());
    for (int64_t i = 0; i < kN; ++i) v.push_back(T(r[i], m[(i * 7 + 3) % kN]));
    std::vector<uint8_t> bytes(v.size() * sizeof(T));
    std::memcpy(bytes.data(), v.data(), bytes.size());
    return bytes;
  } else {
    return make_real_values<T>(which);
  }
}

template <typename T>
std::vector<uint8_t> make_real_values(int which) {
  std::vector<T> v;
  std::mt19937_64 rng(1234 + which);
  using L = std::numeric_limits<T>;
  if constexpr (std::is_same_v<T, bool>) {
    for (int64_t i = 0; i < kN; ++i) v.push_back(((i >> which) & 1) != 0);
  } else if constexpr (std::is_floating_point_v<T>) {
    const T special[] = {T(0),           T(-0.0),   T(1),     T(-1),       L::quiet_NaN(), L::infinity(),
                         -L::infinity(), T(0.5),    T(-0.5),  T(1.5),      T(2.5),         T(-2.5),
                         T(3),           T(-7),     L::max(), L::lowest(), L::min(),       L::denorm_min(),
                         T(1e10),        T(-1e-10), T(0.75),  T(100.25),   T(2),           T(-3)};
    for (T x : special) v.push_back(x);
    if (which == 1) std::reverse(v.begin(), v.end());
    std::uniform_real_distribution<double> d(-10, 10);
    while (static_cast<int64_t>(v.size()) < kN) v.push_back(static_cast<T>(d(rng)));
  } else {
    const T special[] = {T(0),
                         T(1),
                         T(T(0) - 1),
                         L::min(),
                         L::max(),
                         T(L::min() + 1),
                         T(2),
                         T(3),
                         T(7),
                         T(T(0) - 7),
                         T(sizeof(T) * 8),
                         T(sizeof(T) * 8 - 1),
                         T(sizeof(T) * 8 + 1),
                         T(64),
                         T(5),
                         T(T(0) - 2)};
    for (T x : special) v.push_back(x);
    if (which == 1) std::reverse(v.begin(), v.end());
    while (static_cast<int64_t>(v.size()) < kN) {
      const uint64_t r = rng();
      // Half small values (meaningful for shifts, powers, division), half any bits.
      v.push_back((r & 1) ? static_cast<T>(static_cast<int64_t>(r >> 1) % 13 - 6) : static_cast<T>(r >> 1));
    }
  }
  std::vector<uint8_t> bytes(v.size() * sizeof(T));
  if constexpr (std::is_same_v<T, bool>) {
    for (std::size_t i = 0; i < v.size(); ++i) bytes[i] = v[i] ? 1 : 0;
  } else {
    std::memcpy(bytes.data(), v.data(), bytes.size());
  }
  return bytes;
}

inline std::vector<uint8_t> values(arrvm::DType t, int which) {
  return arrvm::visit_dtype(t, [&](auto x) { return make_values<decltype(x)>(which); });
}

inline arrvm::Scalar constant_of(arrvm::DType t) {
  using arrvm::Scalar;
  if (is_complex(t)) return Scalar::of_complex(t, 2.5, -1.5);
  return is_float(t) ? Scalar::of_double(t, 2.5) : Scalar::of_int(t, is_bool(t) ? 1 : 3);
}

// The dtypes the table's operations run on: the real ones, or the complex
// ones (a table of their own, so that a backend without them is tested on
// the rest); casts go to every dtype either way.
inline std::vector<arrvm::DType> all_dtypes(bool complex = false) {
  std::vector<arrvm::DType> v;
  for (int i = 0; i < arrvm::kDTypeCount; ++i) {
    if (arrvm::is_complex(static_cast<arrvm::DType>(i)) == complex) v.push_back(static_cast<arrvm::DType>(i));
  }
  return v;
}

inline std::vector<arrvm::DType> every_dtype() {
  std::vector<arrvm::DType> v;
  for (int i = 0; i < arrvm::kDTypeCount; ++i) v.push_back(static_cast<arrvm::DType>(i));
  return v;
}

struct Result {
  std::vector<std::string> labels;
  std::vector<arrvm::Opcode> ops;    // per output
  std::vector<arrvm::DType> dtypes;  // per output
  std::vector<std::vector<uint8_t>> bytes;
  int issued = 0;
};

// Issues the whole table on `config`'s backend (one batch if config.batch
// allows) and reads every output.
inline Result run_table(const arrvm::Config& config, bool complex = false) {
  using namespace arrvm;
  Runtime rt(config);
  Result r;
  std::vector<BaseId> outs;
  for (DType t : all_dtypes(complex)) {
    BaseId in[3];
    for (int k = 0; k < 2; ++k) {
      in[k] = rt.new_base(t, kN);
      const std::vector<uint8_t> v = values(t, k);
      rt.write(in[k], v.data(), v.size());
    }
    in[2] = rt.new_base(DType::Bool, kN);
    const std::vector<uint8_t> cond = values(DType::Bool, 2);
    rt.write(in[2], cond.data(), cond.size());
    const Dims shape{kN};
    auto try_issue = [&](Instruction instr, const std::string& label) {
      const BaseId out = rt.new_base(instr.out.dtype, kN);
      instr.out = contiguous_view(out, instr.out.dtype, shape);
      try {
        rt.issue(instr);
      } catch (const Error&) {
        rt.free_base(out);  // the validator rejects this dtype for the opcode
        return;
      }
      outs.push_back(out);
      r.labels.push_back(label);
      r.ops.push_back(instr.op);
      r.dtypes.push_back(instr.out.dtype);
      ++r.issued;
    };
    for (int op = 0; op < kOpcodeCount; ++op) {
      const Opcode o = static_cast<Opcode>(op);
      const OpKind kind = opcode_kind(o);
      if (kind == OpKind::Generator) {
        Instruction instr;
        instr.op = o;
        instr.seed = 0x123456789abcdefULL;
        instr.out.dtype = t;
        try_issue(instr, std::string(opcode_name(o)) + " " + std::string(dtype_name(t)));
        continue;
      }
      if (kind != OpKind::Elementwise) continue;
      const int arity = opcode_arity(o);
      const TypeRule rule = opcode_type_rule(o);
      const bool bool_out =
          rule == TypeRule::Compare || rule == TypeRule::Predicate || rule == TypeRule::Logical;
      if (o == Opcode::Complex) continue;  // (its inputs are floats: tests/test_complex.cpp)
      const bool part = (o == Opcode::Absolute || o == Opcode::Imag) && is_complex(t);
      std::vector<DType> out_types = {bool_out ? DType::Bool : part ? real_dtype(t) : t};
      if (o == Opcode::Identity) out_types = complex ? every_dtype() : all_dtypes();
      for (DType ot : out_types) {
        for (int variant = 0; variant < (arity >= 2 ? 2 : 1); ++variant) {
          Instruction instr;
          instr.op = o;
          instr.out.dtype = ot;
          for (int k = 0; k < arity; ++k) {
            const int src = (o == Opcode::Where) ? (k == 0 ? 2 : k - 1) : k;
            const DType st = src == 2 ? DType::Bool : t;
            if (variant == 1 && k == arity - 1) {
              instr.add_input(Operand::of(constant_of(st)));
            } else {
              instr.add_input(Operand::of(contiguous_view(in[src], st, shape)));
            }
          }
          try_issue(instr, std::string(opcode_name(o)) + " " + std::string(dtype_name(t)) + "->" +
                               std::string(dtype_name(ot)) + (variant ? " (constant)" : ""));
        }
      }
    }
  }
  for (BaseId b : outs) {
    const BaseInfo* info = rt.bases().find(b);
    std::vector<uint8_t> bytes(static_cast<std::size_t>(info->nelem) * dtype_size(info->dtype));
    rt.read(b, bytes.data(), bytes.size());
    r.bytes.push_back(std::move(bytes));
  }
  return r;
}

}  // namespace optable
