// Opcodes of the bytecode, generated from the table in vm/opcodes.def.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "arrvm/types.hpp"

namespace arrvm {

enum class Opcode : uint8_t {
#define ARRVM_OPCODE(E, N, A, K, R) E,
#include "vm/opcodes.def"
#undef ARRVM_OPCODE
};

inline constexpr int kOpcodeCount = 0
#define ARRVM_OPCODE(E, N, A, K, R) +1
#include "vm/opcodes.def"
#undef ARRVM_OPCODE
    ;

// How an instruction iterates.
enum class OpKind : uint8_t {
  Elementwise,  // out[i] = f(in0[i], ...) over the output shape (inputs broadcast)
  Generator,    // out[i] = f(flat index i)
  Reduce,       // out = reduce(in, axis); out shape = in shape without axis
  Accumulate,   // inclusive scan along axis; out shape = in shape
  Gather,       // out[i] = flat(in0)[in1[i]] (gather_clip: in1[i] clamped into range)
  Scatter,      // flat(out)[in1[i]] = in0[i]
  Free,         // releases a base
  Sync,         // the frontend wants a base's contents
  Compress,     // out[0..L) = the in0[i] where in1[i], in order; L known only when it runs
                // (length classes: vm/length_class.hpp)
};

// Which dtypes an opcode accepts (enforced by vm/validate.cpp).
enum class TypeRule : uint8_t {
  Cast,       // identity: any -> any
  Arith,      // integers and floats, all operands one dtype
  Compare,    // any dtype in (inputs equal), bool out
  Logical,    // bool -> bool
  Bitwise,    // integers and bool
  Shift,      // integers
  Float,      // floats only
  Predicate,  // any dtype in, bool out (isnan, isinf, isfinite)
  Select,     // where: bool condition, two values of the output dtype
  Numeric,    // generators: integer or float output
  Index,      // gather/scatter: values of one dtype, int64 indices
  Control,    // free, sync
  Filter,     // compress: values of the output dtype, a bool mask
};

constexpr TypeRule opcode_type_rule_constexpr(Opcode op) {
  switch (op) {
#define ARRVM_OPCODE(E, N, A, K, R) \
  case Opcode::E:                   \
    return TypeRule::R;
#include "vm/opcodes.def"
#undef ARRVM_OPCODE
  }
  return TypeRule::Control;
}

std::string_view opcode_name(Opcode op);
std::optional<Opcode> opcode_from_name(std::string_view name);
int opcode_arity(Opcode op);  // number of inputs
OpKind opcode_kind(Opcode op);
TypeRule opcode_type_rule(Opcode op);

inline bool is_control(Opcode op) {
  const OpKind k = opcode_kind(op);
  return k == OpKind::Free || k == OpKind::Sync;
}

// The dtype a reduction or scan accumulates in. A float32 add-reduce sums in
// float64 and rounds once to its float32 output: within NumPy's error bound
// for its pairwise float32 sums (NumPy: 999989.44 for ten million 0.1f,
// float64 accumulation: 1000000.0, the correctly rounded sum), and the same
// whatever the thread count, where float32 partial sums differ by thread
// (docs/semantics.md). Scans (cumsum) and every other reduction accumulate
// in their own dtype, sequentially, as NumPy does.
constexpr DType accumulator_dtype(Opcode op, DType t) {
  if (op != Opcode::AddReduce) return t;
  return t == DType::Float32 ? DType::Float64 : t == DType::Complex64 ? DType::Complex128 : t;
}

// Whether `op` is defined on complex dtypes (NumPy's ufuncs with a complex
// loop): arithmetic (no remainder), comparisons (lexicographic, as NumPy's),
// maximum/minimum, the transcendental functions but arctan2, hypot, cbrt, cube,
// floor/ceil/trunc; absolute gives the part type; the predicates; where,
// casts, indexing, compress, add/multiply/minimum/maximum reductions and
// scans; not the integer ops, not range or random.
constexpr bool complex_opcode(Opcode op) {
  switch (op) {
    case Opcode::Mod:
    case Opcode::Arctan2:
    case Opcode::Hypot:
    case Opcode::Cbrt:
    case Opcode::Cube:
    case Opcode::Floor:
    case Opcode::Ceil:
    case Opcode::Trunc:
    case Opcode::Range:
    case Opcode::Random:
      return false;
    default:
      break;
  }
  switch (opcode_type_rule_constexpr(op)) {
    case TypeRule::Logical:
    case TypeRule::Bitwise:
    case TypeRule::Shift:
    case TypeRule::Numeric:
      return false;
    default:
      return true;
  }
}

}  // namespace arrvm
