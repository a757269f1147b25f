// Element types of the bytecode (vm/dtypes.def) and NumPy's promotion rules.
#pragma once

#include <complex>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

#include "arrvm/types.hpp"

namespace arrvm {

// DType, dtype_of<T>(), dtype_size() and dtype_name() are declared in the
// public arrvm/types.hpp (users see them); vm/dtype.cpp checks that they
// agree with the table in vm/dtypes.def.

inline constexpr int kDTypeCount = 0
#define ARRVM_DTYPE(E, T, N, K) +1
#include "vm/dtypes.def"
#undef ARRVM_DTYPE
    ;

std::optional<DType> dtype_from_name(std::string_view name);
bool is_bool(DType t);
bool is_signed_int(DType t);
bool is_unsigned_int(DType t);
bool is_integer(DType t);  // signed or unsigned, not bool
bool is_float(DType t);
bool is_complex(DType t);
// complex64 -> float32, complex128 -> float64 (the part type); other dtypes as they are.
DType real_dtype(DType t);
// float32 -> complex64, float64 -> complex128, complex as it is.
DType complex_dtype(DType t);

// NumPy's result_type for two array dtypes (e.g. int32+uint32 -> int64,
// int64+uint64 -> float64, int16+float32 -> float32, int32+float32 -> float64,
// float32+complex64 -> complex64, float64+complex64 -> complex128,
// int16+complex64 -> complex64, int32+complex64 -> complex128).
DType promote(DType a, DType b);

// The dtype NumPy's sum/prod/cumsum/cumprod accumulate in: bool and signed
// ints -> int64, unsigned ints -> uint64, floats unchanged.
DType accumulation_dtype(DType t);

// Calls f(T{}) with the C++ type of dtype t (a runtime -> compile time switch).
template <typename F>
decltype(auto) visit_dtype(DType t, F&& f) {
  switch (t) {
#define ARRVM_DTYPE(E, T, N, K) \
  case DType::E:                \
    return f(T{});
#include "vm/dtypes.def"
#undef ARRVM_DTYPE
  }
  return f(bool{});  // unreachable: every enumerator is handled above
}

}  // namespace arrvm
