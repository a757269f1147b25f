// Content hashes shared by the trace writer and reader, the caches (kernel,
// merge, disk entries) and the backends that name kernels by their source.
#pragma once

#include <cstddef>
#include <string>

namespace arrvm {

// SHA-256 of `n` bytes as 64 lowercase hex digits (OpenSSL).
std::string sha256_hex(const void* data, std::size_t n);
inline std::string sha256_hex(const std::string& data) {
  return sha256_hex(data.data(), data.size());
}

}  // namespace arrvm
