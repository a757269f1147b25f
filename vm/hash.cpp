#include "vm/hash.hpp"

#include <openssl/evp.h>

#include "vm/error.hpp"

namespace arrvm {

std::string sha256_hex(const void* data, std::size_t n) {
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  if (EVP_Digest(data, n, md, &len, EVP_sha256(), nullptr) != 1) {
    throw Error("sha256: OpenSSL EVP_Digest failed");
  }
  static const char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(2 * len);
  for (unsigned int i = 0; i < len; ++i) {
    out += kHex[md[i] >> 4];
    out += kHex[md[i] & 15];
  }
  return out;
}

}  // namespace arrvm
