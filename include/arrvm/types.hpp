// Public vocabulary shared by the C++ API (arrvm/arrvm.hpp) and libarrvm's
// internals: the element types and the exceptions users catch. This is the one
// place they are declared; vm/dtype.hpp and vm/error.hpp include it, so the
// public and the internal names are the same types.
#pragma once

#include <complex>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

#include "arrvm/export.h"

namespace arrvm {

// Element types, in the order of vm/dtypes.def (vm/dtype.cpp checks that the
// two agree). The order is part of the C ABI and of the trace and cache
// formats: append only.
enum class DType : uint8_t {
  Bool,
  Int8,
  Int16,
  Int32,
  Int64,
  UInt8,
  UInt16,
  UInt32,
  UInt64,
  Float32,
  Float64,
  Complex64,
  Complex128,
};

ARRVM_API std::size_t dtype_size(DType t);
ARRVM_API std::string_view dtype_name(DType t);  // NumPy's name: "int32", "float64", ...

namespace detail {
template <typename T>
inline constexpr bool kAlwaysFalse = false;
}  // namespace detail

// Maps a C++ element type to its dtype: dtype_of<float>() == DType::Float32.
// Every integer type maps by size and signedness (so `long long` works too).
template <typename T>
constexpr DType dtype_of() {
  using U = std::remove_cv_t<T>;
  if constexpr (std::is_same_v<U, bool>) {
    return DType::Bool;
  } else if constexpr (std::is_integral_v<U>) {
    constexpr bool s = std::is_signed_v<U>;
    if constexpr (sizeof(U) == 1) return s ? DType::Int8 : DType::UInt8;
    if constexpr (sizeof(U) == 2) return s ? DType::Int16 : DType::UInt16;
    if constexpr (sizeof(U) == 4) return s ? DType::Int32 : DType::UInt32;
    if constexpr (sizeof(U) == 8) return s ? DType::Int64 : DType::UInt64;
    static_assert(sizeof(U) <= 8, "no dtype for integers wider than 64 bits");
  } else if constexpr (std::is_same_v<U, float>) {
    return DType::Float32;
  } else if constexpr (std::is_same_v<U, double>) {
    return DType::Float64;
  } else if constexpr (std::is_same_v<U, std::complex<float>>) {
    return DType::Complex64;
  } else if constexpr (std::is_same_v<U, std::complex<double>>) {
    return DType::Complex128;
  } else {
    static_assert(detail::kAlwaysFalse<T>, "no arrvm dtype for this C++ type");
  }
  return DType::Bool;
}

// A user error: bad bytecode, bad trace, API misuse, an index out of range.
// The message names what is wrong; the VM stays usable afterwards.
class ARRVM_API Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Memory for an array could not be had (the allocator refused, or
// ARRVM_MEM_LIMIT would be passed). The C ABI returns ARRVM_ERR_NOMEM.
class ARRVM_API OutOfMemoryError : public Error {
 public:
  using Error::Error;
};

// The computation was interrupted (SIGINT in Python, where the binding
// checks for it between kernels and while a compiler runs): the arrays it
// did not finish are poisoned with this error.
class ARRVM_API InterruptedError : public Error {
 public:
  using Error::Error;
};

// A backend failed (e.g. a kernel did not compile); carries the backend's log.
class ARRVM_API BackendError : public Error {
 public:
  BackendError(const std::string& what, std::string log)
      : Error(log.empty() ? what : what + "\n" + log), log_(std::move(log)) {}
  const std::string& log() const { return log_; }

 private:
  std::string log_;
};

}  // namespace arrvm
