// Which libm functions have vector variants here (backends/cpu/vector_math.hpp).
#include "backends/cpu/vector_math.hpp"

#include <dlfcn.h>

#include <cstdio>

#ifdef __GLIBC__
#include <gnu/libc-version.h>
#endif

#include "vm/log.hpp"

namespace arrvm {

namespace {

std::vector<std::string> probe() {
#ifdef __GLIBC__
  int major = 0, minor = 0;
  if (std::sscanf(gnu_get_libc_version(), "%d.%d", &major, &minor) != 2) return {};
  const int version = major * 100 + minor;
  if (version < 222) return {};
  // The kernels link with -lm, whose linker script adds libmvec as needed:
  // present wherever glibc was built with it (x86_64 and aarch64 Debian).
  void* lib = dlopen("libmvec.so.1", RTLD_LAZY | RTLD_LOCAL);
  if (lib == nullptr) {
    logger().debug("cpu: no libmvec ({}): scalar libm calls", dlerror());
    return {};
  }
  dlclose(lib);
  std::vector<std::string> names = {"exp", "log", "pow", "sin", "cos"};  // glibc 2.22
  if (version >= 235) {
    for (const char* f : {"exp2", "expm1", "log2", "log10", "log1p", "tan", "asin", "acos", "atan", "atan2",
                          "sinh", "cosh", "tanh", "cbrt", "asinh", "acosh", "atanh", "hypot"})
      names.emplace_back(f);
  }
  return names;
#else
  return {};
#endif
}

}  // namespace

const std::vector<std::string>& vector_math_functions() {
  static const std::vector<std::string> names = probe();
  return names;
}

}  // namespace arrvm
