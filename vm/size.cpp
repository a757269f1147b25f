#include "vm/size.hpp"

#include "vm/error.hpp"

namespace arrvm {

int64_t checked_bytes(DType dtype, int64_t nelem) {
  int64_t bytes = 0;
  if (nelem < 0 || !checked_mul(nelem, static_cast<int64_t>(dtype_size(dtype)), &bytes) ||
      bytes > kMaxBaseBytes)
    return -1;
  return bytes;
}

void check_base_size(DType dtype, int64_t nelem, const std::string& what) {
  if (nelem < 0) throw Error(what + ": negative element count " + std::to_string(nelem));
  if (checked_bytes(dtype, nelem) >= 0) return;
  throw Error(what + ": a base of " + std::to_string(nelem) + " elements of " +
              std::string(dtype_name(dtype)) + " exceeds the limit of " + std::to_string(kMaxBaseBytes) +
              " bytes (128 TiB)");
}

void throw_out_of_memory(const std::string& what, std::size_t bytes) {
  throw OutOfMemoryError(what + ": out of memory allocating " + std::to_string(bytes) + " bytes");
}

}  // namespace arrvm
