/* ARRVM_API marks what libarrvm.so exports. The library is compiled with
 * hidden visibility (and linked with cmake/arrvm.map), so only declarations
 * carrying ARRVM_API — the C ABI of arrvm.h and the C++ API of arrvm.hpp —
 * are visible to programs; spdlog, nlohmann_json, CBC and OpenSSL stay
 * private. Usable from C and C++. */
#ifndef ARRVM_EXPORT_H
#define ARRVM_EXPORT_H

#if defined(__GNUC__) || defined(__clang__)
#define ARRVM_API __attribute__((visibility("default")))
#else
#define ARRVM_API
#endif

#endif /* ARRVM_EXPORT_H */
