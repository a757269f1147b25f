#include "cache/kernel_cache.hpp"

#include <dlfcn.h>
#include <openssl/evp.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "vm/error.hpp"

namespace arrvm {

namespace {

constexpr const char kMagic[] = "ARRVMKC1\n";
constexpr std::size_t kMagicLen = sizeof(kMagic) - 1;

// The host CPU as far as generated code cares (-march=native): model and
// feature flags, so a cache directory shared between machines never hands
// one CPU another's instructions.
std::string host_cpu() {
  std::ifstream in("/proc/cpuinfo");
  std::string line, model, flags;
  while (std::getline(in, line) && (model.empty() || flags.empty())) {
    if (model.empty() && line.rfind("model name", 0) == 0) model = line;
    if (flags.empty() && (line.rfind("flags", 0) == 0 || line.rfind("Features", 0) == 0)) flags = line;
  }
  return model + "\n" + flags;
}

bool read_file(const std::string& path, std::string* out) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  std::ostringstream ss;
  ss << in.rdbuf();
  *out = ss.str();
  return true;
}

bool write_file(const std::string& path, const std::string& data) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(data.data(), static_cast<std::streamsize>(data.size()));
  out.close();
  return static_cast<bool>(out);
}

void put_u64(std::string* s, uint64_t v) {
  for (int i = 0; i < 8; ++i) s->push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}

bool get_u64(const std::string& s, std::size_t* pos, uint64_t* v) {
  if (*pos > s.size() || s.size() - *pos < 8) return false;
  *v = 0;
  for (int i = 0; i < 8; ++i) *v |= static_cast<uint64_t>(static_cast<unsigned char>(s[*pos + i])) << (8 * i);
  *pos += 8;
  return true;
}

}  // namespace

std::string sha256_hex(const std::string& data) {
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  if (EVP_Digest(data.data(), data.size(), md, &len, EVP_sha256(), nullptr) != 1) {
    throw BackendError("kernel cache: SHA-256 failed", "");
  }
  static const char* hex = "0123456789abcdef";
  std::string s;
  for (unsigned i = 0; i < len; ++i) {
    s += hex[md[i] >> 4];
    s += hex[md[i] & 15];
  }
  return s;
}

KernelCache::KernelCache(const Config& config)
    : cc_(config.cc), cflags_(config.cflags), mode_(config.cache), dir_(config.cache_dir), host_(host_cpu()) {
  std::string tmpl = (std::filesystem::temp_directory_path() / "arrvm-cc-XXXXXX").string();
  if (mkdtemp(tmpl.data()) == nullptr) throw BackendError("kernel cache: cannot create a temporary directory", "");
  work_dir_ = tmpl;
  if (mode_ == "on" && !dir_.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(dir_, ec);
    if (ec) dir_.clear();  // no usable directory: memory only
  } else {
    dir_.clear();
  }
}

KernelCache::~KernelCache() {
  // Kernels stay mapped (RTLD_NODELETE): unloading a kernel would unload the
  // OpenMP runtime it pulled in while its worker threads still run.
  std::error_code ec;
  std::filesystem::remove_all(work_dir_, ec);
}

std::string KernelCache::key_of(const std::string& source) const {
  std::string key = "cc=" + cc_ + "\ncflags=" + cflags_ + " -shared -fPIC -lm\ncpu=" + host_ + "\nsource=\n";
  return key + source;
}

void* KernelCache::get(const std::string& source, const std::string& symbol) {
  const std::string key = key_of(source) + "\nsymbol=" + symbol;
  if (mode_ != "off") {
    auto it = loaded_.find(key);
    if (it != loaded_.end()) {
      ++stats_.memory_hits;
      return it->second;
    }
  }
  const std::string file = dir_.empty() ? "" : (std::filesystem::path(dir_) / (sha256_hex(key) + ".kernel")).string();
  std::string so;
  void* fn = nullptr;
  if (!file.empty() && load_from_disk(key, file, &so)) {
    fn = load(so, symbol);
    if (fn != nullptr) {
      ++stats_.disk_hits;
    } else {
      ++stats_.corrupt;  // checksum fine but not loadable: treat as corrupt
      std::error_code ec;
      std::filesystem::remove(file, ec);
    }
  }
  if (fn == nullptr) {
    ++stats_.misses;
    so = compile(source);
    fn = load(so, symbol);
    if (fn == nullptr) {
      const char* err = dlerror();
      throw BackendError("cpu backend: cannot load compiled kernel " + so, err ? err : "");
    }
    if (!file.empty()) store_to_disk(key, file, so);
  }
  if (mode_ != "off") loaded_[key] = fn;
  return fn;
}

// -lm: without it the kernel's libm references are unversioned and bind to
// glibc's oldest symbol versions (e.g. log@GLIBC_2.2.5, whose error path
// returns +NaN where the current log, which ref calls, returns -NaN).
std::string KernelCache::compile(const std::string& source) {
  const std::string base = work_dir_ + "/k" + std::to_string(counter_++);
  if (!write_file(base + ".c", source)) throw BackendError("cpu backend: cannot write " + base + ".c", "");
  const std::string cmd = cc_ + " " + cflags_ + " -shared -fPIC -o " + base + ".so " + base + ".c -lm 2>&1";
  FILE* pipe = popen(cmd.c_str(), "r");
  if (pipe == nullptr) throw BackendError("cpu backend: cannot run the C compiler: " + cmd, "");
  std::string log;
  char buf[4096];
  std::size_t n = 0;
  while ((n = std::fread(buf, 1, sizeof buf, pipe)) > 0) log.append(buf, n);
  const int status = pclose(pipe);
  ++stats_.compiled;
  if (status != 0) {
    const int code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    throw BackendError("cpu backend: kernel compilation failed (exit status " + std::to_string(code) + "): " + cmd +
                           "\nsource: " + base + ".c",
                       log);
  }
  return base + ".so";
}

void* KernelCache::load(const std::string& so_path, const std::string& symbol) {
  void* h = dlopen(so_path.c_str(), RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
  if (h == nullptr) return nullptr;
  void* fn = dlsym(h, symbol.c_str());
  if (fn == nullptr) return nullptr;
  handles_.push_back(h);
  return fn;
}

// Entry: magic, u64 key length, key, u64 object length, object, hex SHA-256
// of key + object.
bool KernelCache::load_from_disk(const std::string& key, const std::string& file, std::string* so_path) {
  std::string data;
  if (!read_file(file, &data)) return false;  // absent
  std::size_t pos = kMagicLen;
  uint64_t klen = 0, olen = 0;
  bool ok = data.size() >= kMagicLen && data.compare(0, kMagicLen, kMagic) == 0 && get_u64(data, &pos, &klen) &&
            klen <= data.size() - pos && data.compare(pos, klen, key) == 0 && klen == key.size();
  if (ok) {
    pos += klen;
    ok = get_u64(data, &pos, &olen) && olen <= data.size() - pos && data.size() - pos - olen == 64;
  }
  if (ok) {
    const std::string object = data.substr(pos, olen);
    ok = data.compare(pos + olen, 64, sha256_hex(key + object)) == 0;
    if (ok) {
      *so_path = work_dir_ + "/d" + std::to_string(counter_++) + ".so";
      if (!write_file(*so_path, object)) return false;
      return true;
    }
  }
  ++stats_.corrupt;
  std::error_code ec;
  std::filesystem::remove(file, ec);
  return false;
}

void KernelCache::store_to_disk(const std::string& key, const std::string& file, const std::string& so_path) {
  std::string object;
  if (!read_file(so_path, &object)) return;
  std::string data(kMagic, kMagicLen);
  put_u64(&data, key.size());
  data += key;
  put_u64(&data, object.size());
  data += object;
  data += sha256_hex(key + object);
  // A unique temporary name in the same directory, then an atomic rename:
  // a concurrent reader sees the old entry, no entry, or the whole new one.
  const std::string tmp = file + ".tmp." + std::to_string(getpid()) + "." + std::to_string(counter_++);
  if (!write_file(tmp, data)) {
    std::error_code ec;
    std::filesystem::remove(tmp, ec);
    return;  // a cache that cannot be written is not an error
  }
  std::error_code ec;
  std::filesystem::rename(tmp, file, ec);
  if (ec) std::filesystem::remove(tmp, ec);
}

}  // namespace arrvm
