// The C ABI's enums (include/arrvm/arrvm.h) checked against the internal
// tables at compile time. Nothing here runs: the static_asserts are the point.
#include <arrvm/arrvm.h>

#include <cstddef>
#include <string_view>

#include "vm/dtype.hpp"
#include "vm/opcode.hpp"

// Each C enumerator is listed by hand with its name; the names of the
// internal tables come from the X-macro files. The checks below fail to
// compile if a row is added to (or reordered in) vm/dtypes.def or
// vm/opcodes.def without the same change in arrvm.h.

namespace {

template <typename E>
struct CName {
  E value;
  std::string_view name;
};

constexpr CName<arrvm_dtype> kCDTypes[] = {
    {ARRVM_BOOL, "bool"},
    {ARRVM_INT8, "int8"},
    {ARRVM_INT16, "int16"},
    {ARRVM_INT32, "int32"},
    {ARRVM_INT64, "int64"},
    {ARRVM_UINT8, "uint8"},
    {ARRVM_UINT16, "uint16"},
    {ARRVM_UINT32, "uint32"},
    {ARRVM_UINT64, "uint64"},
    {ARRVM_FLOAT32, "float32"},
    {ARRVM_FLOAT64, "float64"},
    {ARRVM_COMPLEX64, "complex64"},
    {ARRVM_COMPLEX128, "complex128"},
};

constexpr CName<arrvm_opcode> kCOpcodes[] = {
    {ARRVM_OP_IDENTITY, "identity"},
    {ARRVM_OP_ADD, "add"},
    {ARRVM_OP_SUBTRACT, "subtract"},
    {ARRVM_OP_MULTIPLY, "multiply"},
    {ARRVM_OP_DIVIDE, "divide"},
    {ARRVM_OP_POWER, "power"},
    {ARRVM_OP_MOD, "mod"},
    {ARRVM_OP_MAXIMUM, "maximum"},
    {ARRVM_OP_MINIMUM, "minimum"},
    {ARRVM_OP_EQUAL, "equal"},
    {ARRVM_OP_NOT_EQUAL, "not_equal"},
    {ARRVM_OP_LESS, "less"},
    {ARRVM_OP_LESS_EQUAL, "less_equal"},
    {ARRVM_OP_GREATER, "greater"},
    {ARRVM_OP_GREATER_EQUAL, "greater_equal"},
    {ARRVM_OP_LOGICAL_AND, "logical_and"},
    {ARRVM_OP_LOGICAL_OR, "logical_or"},
    {ARRVM_OP_LOGICAL_XOR, "logical_xor"},
    {ARRVM_OP_LOGICAL_NOT, "logical_not"},
    {ARRVM_OP_BITWISE_AND, "bitwise_and"},
    {ARRVM_OP_BITWISE_OR, "bitwise_or"},
    {ARRVM_OP_BITWISE_XOR, "bitwise_xor"},
    {ARRVM_OP_INVERT, "invert"},
    {ARRVM_OP_LEFT_SHIFT, "left_shift"},
    {ARRVM_OP_RIGHT_SHIFT, "right_shift"},
    {ARRVM_OP_NEGATIVE, "negative"},
    {ARRVM_OP_ABSOLUTE, "absolute"},
    {ARRVM_OP_SIGN, "sign"},
    {ARRVM_OP_SQRT, "sqrt"},
    {ARRVM_OP_EXP, "exp"},
    {ARRVM_OP_EXP2, "exp2"},
    {ARRVM_OP_EXPM1, "expm1"},
    {ARRVM_OP_LOG, "log"},
    {ARRVM_OP_LOG2, "log2"},
    {ARRVM_OP_LOG10, "log10"},
    {ARRVM_OP_LOG1P, "log1p"},
    {ARRVM_OP_SIN, "sin"},
    {ARRVM_OP_COS, "cos"},
    {ARRVM_OP_TAN, "tan"},
    {ARRVM_OP_ARCSIN, "arcsin"},
    {ARRVM_OP_ARCCOS, "arccos"},
    {ARRVM_OP_ARCTAN, "arctan"},
    {ARRVM_OP_ARCTAN2, "arctan2"},
    {ARRVM_OP_SINH, "sinh"},
    {ARRVM_OP_COSH, "cosh"},
    {ARRVM_OP_TANH, "tanh"},
    {ARRVM_OP_FLOOR, "floor"},
    {ARRVM_OP_CEIL, "ceil"},
    {ARRVM_OP_TRUNC, "trunc"},
    {ARRVM_OP_RINT, "rint"},
    {ARRVM_OP_ISNAN, "isnan"},
    {ARRVM_OP_ISINF, "isinf"},
    {ARRVM_OP_ISFINITE, "isfinite"},
    {ARRVM_OP_WHERE, "where"},
    {ARRVM_OP_RANGE, "range"},
    {ARRVM_OP_RANDOM, "random"},
    {ARRVM_OP_ADD_REDUCE, "add_reduce"},
    {ARRVM_OP_MULTIPLY_REDUCE, "multiply_reduce"},
    {ARRVM_OP_MINIMUM_REDUCE, "minimum_reduce"},
    {ARRVM_OP_MAXIMUM_REDUCE, "maximum_reduce"},
    {ARRVM_OP_LOGICAL_AND_REDUCE, "logical_and_reduce"},
    {ARRVM_OP_LOGICAL_OR_REDUCE, "logical_or_reduce"},
    {ARRVM_OP_ADD_ACCUMULATE, "add_accumulate"},
    {ARRVM_OP_MULTIPLY_ACCUMULATE, "multiply_accumulate"},
    {ARRVM_OP_GATHER, "gather"},
    {ARRVM_OP_SCATTER, "scatter"},
    {ARRVM_OP_FREE, "free"},
    {ARRVM_OP_SYNC, "sync"},
    {ARRVM_OP_COMPRESS, "compress"},
    {ARRVM_OP_MINIMUM_ACCUMULATE, "minimum_accumulate"},
    {ARRVM_OP_MAXIMUM_ACCUMULATE, "maximum_accumulate"},
    {ARRVM_OP_CBRT, "cbrt"},
    {ARRVM_OP_ARCSINH, "arcsinh"},
    {ARRVM_OP_ARCCOSH, "arccosh"},
    {ARRVM_OP_ARCTANH, "arctanh"},
    {ARRVM_OP_HYPOT, "hypot"},
    {ARRVM_OP_IMAG, "imag"},
    {ARRVM_OP_CONJUGATE, "conjugate"},
    {ARRVM_OP_COMPLEX, "complex"},
    {ARRVM_OP_GATHER_CLIP, "gather_clip"},
    {ARRVM_OP_CUBE, "cube"},
};

struct InternalName {
  int value;
  std::string_view name;
};

constexpr InternalName kDTypeNames[] = {
#define ARRVM_DTYPE(E, T, N, K) {static_cast<int>(arrvm::DType::E), N},
#include "vm/dtypes.def"
#undef ARRVM_DTYPE
};

constexpr InternalName kOpcodeNames[] = {
#define ARRVM_OPCODE(E, N, A, K, R) {static_cast<int>(arrvm::Opcode::E), N},
#include "vm/opcodes.def"
#undef ARRVM_OPCODE
};

template <typename E, std::size_t NC, std::size_t NI>
constexpr bool tables_agree(const CName<E> (&c)[NC], const InternalName (&internal)[NI]) {
  if (NC != NI) return false;
  for (std::size_t k = 0; k < NC; ++k) {
    if (static_cast<int>(c[k].value) != internal[k].value) return false;
    if (c[k].name != internal[k].name) return false;
  }
  return true;
}

static_assert(tables_agree(kCDTypes, kDTypeNames),
              "arrvm_dtype in include/arrvm/arrvm.h does not match vm/dtypes.def");
static_assert(tables_agree(kCOpcodes, kOpcodeNames),
              "arrvm_opcode in include/arrvm/arrvm.h does not match vm/opcodes.def");

}  // namespace
