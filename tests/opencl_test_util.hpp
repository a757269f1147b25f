// Helpers for the tests of the `opencl` backend. CI installs PoCL, so a
// missing OpenCL device fails these tests (make_backend throws an Error
// saying so) rather than skipping them. The randomized and table tests share
// one program-binary cache directory per test process: PoCL builds are slow
// (a few tenths of a second per program) and many kernels repeat.
#pragma once

#include <string>

#include "tests/cpu_test_util.hpp"
#include "vm/config.hpp"

namespace opencltest {

inline const std::string& shared_cache_dir() {
  static const cputest::TempDir dir;
  return dir.path();
}

inline arrvm::Config config(const std::string& backend, const std::string& cache_dir = shared_cache_dir(),
                            const std::string& fuser = "greedy") {
  return cputest::config(backend, cache_dir, fuser);
}

}  // namespace opencltest
