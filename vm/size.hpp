// Checked size arithmetic: every element count, offset and byte count that
// comes from a user (a C call, a trace, Python) goes through these before
// anything is allocated or indexed with it.
//
// The limit: a base array holds at most kMaxBaseBytes bytes (128 TiB, the
// user address space of x86-64 Linux; no machine can hold more) and a view
// spans at most kMaxElements elements. A base past the limit is rejected when
// it is created (Error naming the size); a view past it when its instruction
// is validated. Below the limit, nelem * itemsize and an offset times an item
// size fit in int64_t and size_t on every 64-bit target with room to spare,
// so code downstream of validation may multiply them unchecked.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "arrvm/types.hpp"

namespace arrvm {

inline constexpr int64_t kMaxBaseBytes = int64_t{1} << 47;
inline constexpr int64_t kMaxElements = int64_t{1} << 47;

inline bool checked_add(int64_t a, int64_t b, int64_t* r) {
  return !__builtin_add_overflow(a, b, r);
}
inline bool checked_mul(int64_t a, int64_t b, int64_t* r) {
  return !__builtin_mul_overflow(a, b, r);
}

// The bytes of `nelem` elements of `dtype`, or -1 when nelem is negative or
// the result passes kMaxBaseBytes.
int64_t checked_bytes(DType dtype, int64_t nelem);

// Throws Error ("`what`: a base of N elements of DTYPE (B bytes) exceeds the
// limit of ...") unless a base of `nelem` elements of `dtype` is allowed.
void check_base_size(DType dtype, int64_t nelem, const std::string& what);

// Thrown when memory for a base (or a buffer the VM needs) cannot be had:
// the allocator refused, or ARRVM_MEM_LIMIT would be passed. The C ABI
// reports it as ARRVM_ERR_NOMEM, Python as MemoryError.
[[noreturn]] void throw_out_of_memory(const std::string& what, std::size_t bytes);

}  // namespace arrvm
