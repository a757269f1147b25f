#include "vm/hash.hpp"

#include <openssl/crypto.h>
#include <openssl/evp.h>

#include "vm/error.hpp"

namespace arrvm {

void init_hashing() {
  // OpenSSL initializes itself at its first use and by default registers an
  // atexit handler that frees its locks. A VM that lives until static
  // destruction (the C ABI's, Python's default VM) ends by letting its
  // compile threads store kernels for a grace period (ARRVM_BACKGROUND_GRACE),
  // hashing them: after that handler had run, EVP_Digest took a freed lock
  // and the process died at exit (the demo on an empty cache, every time).
  // Initialized here first, without the handler; the OS frees the rest.
  static const bool done = OPENSSL_init_crypto(OPENSSL_INIT_NO_ATEXIT, nullptr) == 1;
  if (!done) throw Error("OpenSSL: OPENSSL_init_crypto failed");
}

std::string sha256_hex(const void* data, std::size_t n) {
  init_hashing();
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
