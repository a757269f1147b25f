// Content hashes shared by the trace writer and reader, the caches (kernel,
// merge, disk entries) and the backends that name kernels by their source.
#pragma once

#include <cstddef>
#include <string>

namespace arrvm {

// Initializes OpenSSL once, with no cleanup at exit, so that hashing works
// until the process ends (threads of a VM destroyed at exit hash kernels).
// The VM calls it when it starts; sha256_hex does too.
void init_hashing();

// SHA-256 of `n` bytes as 64 lowercase hex digits (OpenSSL).
std::string sha256_hex(const void* data, std::size_t n);
inline std::string sha256_hex(const std::string& data) {
  return sha256_hex(data.data(), data.size());
}

}  // namespace arrvm
