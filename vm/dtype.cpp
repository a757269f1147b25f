#include "vm/dtype.hpp"

#include <array>

namespace arrvm {
namespace {

struct DTypeInfo {
  std::string_view name;
  std::size_t size;
  char kind;  // B, S, U, F, C as in dtypes.def
};

constexpr std::array<DTypeInfo, kDTypeCount> kInfo = {{
#define ARRVM_DTYPE(E, T, N, K) {N, sizeof(T), #K[0]},
#include "vm/dtypes.def"
#undef ARRVM_DTYPE
}};

// The public enum (arrvm/types.hpp) is written out by hand because users
// cannot see vm/dtypes.def; these checks keep the two in step (a row added to
// the table but not to the enum fails to compile here).
constexpr DType kTableOrder[] = {
#define ARRVM_DTYPE(E, T, N, K) DType::E,
#include "vm/dtypes.def"
#undef ARRVM_DTYPE
};
constexpr bool enum_matches_table() {
  for (int i = 0; i < kDTypeCount; ++i) {
    if (static_cast<int>(kTableOrder[i]) != i) return false;
  }
  return true;
}
static_assert(enum_matches_table(), "arrvm/types.hpp DType disagrees with vm/dtypes.def");
#define ARRVM_DTYPE(E, T, N, K) static_assert(dtype_of<T>() == DType::E, "dtype_of<" #T "> is not " N);
#include "vm/dtypes.def"
#undef ARRVM_DTYPE

const DTypeInfo& info(DType t) {
  return kInfo[static_cast<std::size_t>(t)];
}

DType int_of_size(std::size_t bytes, bool is_signed) {
  switch (bytes) {
    case 1:
      return is_signed ? DType::Int8 : DType::UInt8;
    case 2:
      return is_signed ? DType::Int16 : DType::UInt16;
    case 4:
      return is_signed ? DType::Int32 : DType::UInt32;
    default:
      return is_signed ? DType::Int64 : DType::UInt64;
  }
}

}  // namespace

std::size_t dtype_size(DType t) {
  return info(t).size;
}
std::string_view dtype_name(DType t) {
  return info(t).name;
}

std::optional<DType> dtype_from_name(std::string_view name) {
  for (int i = 0; i < kDTypeCount; ++i) {
    if (kInfo[i].name == name) return static_cast<DType>(i);
  }
  return std::nullopt;
}

bool is_bool(DType t) {
  return info(t).kind == 'B';
}
bool is_signed_int(DType t) {
  return info(t).kind == 'S';
}
bool is_unsigned_int(DType t) {
  return info(t).kind == 'U';
}
bool is_integer(DType t) {
  return is_signed_int(t) || is_unsigned_int(t);
}
bool is_float(DType t) {
  return info(t).kind == 'F';
}
bool is_complex(DType t) {
  return info(t).kind == 'C';
}
DType real_dtype(DType t) {
  return t == DType::Complex64 ? DType::Float32 : t == DType::Complex128 ? DType::Float64 : t;
}
DType complex_dtype(DType t) {
  return t == DType::Float32 ? DType::Complex64 : t == DType::Float64 ? DType::Complex128 : t;
}

DType promote(DType a, DType b) {
  if (a == b) return a;
  if (is_bool(a)) return b;
  if (is_bool(b)) return a;
  if (is_complex(a) || is_complex(b)) {
    // The complex type whose part type is the float promotion of the two
    // part types (an integer's float: as for a float of the other's size).
    const DType pa = is_complex(a) ? real_dtype(a) : a, pb = is_complex(b) ? real_dtype(b) : b;
    return complex_dtype(promote(pa, pb));
  }
  const std::size_t sa = dtype_size(a), sb = dtype_size(b);
  if (is_float(a) || is_float(b)) {
    if (is_float(a) && is_float(b)) return sa >= sb ? a : b;
    const DType f = is_float(a) ? a : b;
    const DType i = is_float(a) ? b : a;
    // A float can hold the integer exactly only if its mantissa is wide enough:
    // float32 holds int8/int16, anything wider needs float64 (NumPy's rule).
    if (f == DType::Float32 && dtype_size(i) <= 2) return DType::Float32;
    return DType::Float64;
  }
  const bool signed_a = is_signed_int(a), signed_b = is_signed_int(b);
  if (signed_a == signed_b) return sa >= sb ? a : b;
  // Mixed signedness: the signed type must be strictly wider than the unsigned.
  const std::size_t s_signed = signed_a ? sa : sb;
  const std::size_t s_unsigned = signed_a ? sb : sa;
  if (s_signed > s_unsigned) return signed_a ? a : b;
  if (s_unsigned >= 8) return DType::Float64;
  return int_of_size(s_unsigned * 2, true);
}

DType accumulation_dtype(DType t) {
  if (is_bool(t) || is_signed_int(t)) return DType::Int64;
  if (is_unsigned_int(t)) return DType::UInt64;
  return t;
}

}  // namespace arrvm
