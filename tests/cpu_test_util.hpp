// Helpers for the tests of the `cpu` backend: a temporary cache directory and
// configs for ref and cpu runs of the same program.
#pragma once

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "arrvm/arrvm.hpp"

#include "vm/config.hpp"

namespace cputest {

// A fresh directory under the system temp dir, removed with its contents.
class TempDir {
 public:
  TempDir() {
    std::string tmpl = (std::filesystem::temp_directory_path() / "arrvm-test-XXXXXX").string();
    if (mkdtemp(tmpl.data()) != nullptr) path_ = tmpl;
  }
  ~TempDir() {
    std::error_code ec;
    if (!path_.empty()) std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const { return path_; }
  std::string file(const std::string& name) const { return (std::filesystem::path(path_) / name).string(); }

 private:
  std::string path_;
};

// Sets an environment variable for a scope (restored after); nullptr unsets it.
class EnvVar {
 public:
  EnvVar(const char* name, const char* value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old, had_ = true;
    if (value != nullptr) {
      ::setenv(name, value, 1);
    } else {
      ::unsetenv(name);
    }
  }
  ~EnvVar() {
    if (had_) {
      ::setenv(name_, old_.c_str(), 1);
    } else {
      ::unsetenv(name_);
    }
  }
  EnvVar(const EnvVar&) = delete;
  EnvVar& operator=(const EnvVar&) = delete;

 private:
  const char* name_;
  std::string old_;
  bool had_ = false;
};

// The bytes of an array's values as float64 (to compare runs byte for byte).
inline std::vector<uint8_t> float64_bytes(const arrvm::Array& a) {
  const std::vector<double> v = a.astype(arrvm::DType::Float64).to_vector<double>();
  std::vector<uint8_t> out(v.size() * 8);
  std::memcpy(out.data(), v.data(), out.size());
  return out;
}

inline arrvm::Config config(const std::string& backend, const std::string& cache_dir,
                            const std::string& fuser = "greedy") {
  arrvm::Config c;
  c.backend = backend;
  c.fuser = fuser;
  c.cache_dir = cache_dir;
  c.cache = arrvm::CacheMode::On;
  return c;
}

}  // namespace cputest
