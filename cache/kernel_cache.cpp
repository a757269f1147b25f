#include "cache/kernel_cache.hpp"

#include <dlfcn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "cache/disk_entry.hpp"
#include "vm/error.hpp"
#include "vm/hash.hpp"

namespace arrvm {

namespace {

constexpr const char kMagic[] = "ARRVMKC1\n";
constexpr const char kWorkDirPrefix[] = "arrvm-cc-";

// `s` as one word for /bin/sh (TMPDIR may hold spaces or quotes).
std::string shell_quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

// One compile's (or one disk load's) directory in the temp directory, named
// arrvm-cc-PID-XXXXXX, removed when it goes out of scope, error or not: a
// loaded shared object stays mapped after its file is gone, so no compiler
// file outlives the call that made it, even if the process later exits
// without cleanup or is killed. A process killed during a compile has its
// directory removed by the compile's shell (compile()); only one killed in
// the instant between compile and removal leaves one behind, which
// remove_stale_work_dirs() clears.
class WorkDir {
 public:
  WorkDir() {
    std::string tmpl =
        (std::filesystem::temp_directory_path() / (kWorkDirPrefix + std::to_string(getpid()) + "-XXXXXX"))
            .string();
    if (mkdtemp(tmpl.data()) == nullptr) {
      throw BackendError(
          "cpu backend: cannot create a temporary directory " + tmpl + ": " + std::strerror(errno), "");
    }
    path_ = tmpl;
  }
  ~WorkDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  WorkDir(const WorkDir&) = delete;
  WorkDir& operator=(const WorkDir&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

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

}  // namespace

KernelCache::KernelCache(const Config& config)
    : cc_(config.cc), cflags_(config.cflags), mode_(config.cache), dir_(config.cache_dir), host_(host_cpu()) {
  remove_stale_work_dirs();
  if (mode_ == CacheMode::On && !dir_.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(dir_, ec);
    if (ec) dir_.clear();  // no usable directory: memory only
  } else {
    dir_.clear();
  }
}

// Kernels stay mapped (RTLD_NODELETE): unloading a kernel would unload the
// OpenMP runtime it pulled in while its worker threads still run. No files
// are left to remove: each compile removed its own directory.
KernelCache::~KernelCache() = default;

std::string KernelCache::key_of(const std::string& source) const {
  std::string key = "cc=" + cc_ + "\ncflags=" + cflags_ + " -shared -fPIC -lm\ncpu=" + host_ + "\nsource=\n";
  return key + source;
}

void* KernelCache::get(const std::string& source, const std::string& symbol) {
  const std::string key = key_of(source) + "\nsymbol=" + symbol;
  if (mode_ != CacheMode::Off) {
    auto it = loaded_.find(key);
    if (it != loaded_.end()) {
      ++stats_.memory_hits;
      return it->second;
    }
  }
  const std::string file =
      dir_.empty() ? "" : (std::filesystem::path(dir_) / (sha256_hex(key) + ".kernel")).string();
  std::string so;
  void* fn = nullptr;
  std::string object;
  if (!file.empty() && load_from_disk(key, file, &object)) {
    WorkDir work;
    so = work.path() + "/d" + std::to_string(counter_++) + ".so";
    if (write_whole_file(so, object)) fn = load(so, symbol);
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
    WorkDir work;
    so = compile(source, work.path());
    fn = load(so, symbol);
    if (fn == nullptr) {
      const char* err = dlerror();
      throw BackendError("cpu backend: cannot load compiled kernel " + so, err ? err : "");
    }
    if (!file.empty()) store_to_disk(key, file, so);
  }
  if (mode_ != CacheMode::Off) loaded_[key] = fn;
  return fn;
}

// -lm: without it the kernel's libm references are unversioned and bind to
// glibc's oldest symbol versions (e.g. log@GLIBC_2.2.5, whose error path
// returns +NaN where the current log, which ref calls, returns -NaN).
// The file name carries a per-process counter: dlopen recognizes an object
// it already loaded by its path, and mkdtemp may hand out a removed
// directory's name again.
std::string KernelCache::compile(const std::string& source, const std::string& work_dir) {
  const std::string base = work_dir + "/k" + std::to_string(counter_++);
  if (!write_whole_file(base + ".c", source))
    throw BackendError("cpu backend: cannot write " + base + ".c", "");
  const std::string cmd = cc_ + " " + cflags_ + " -shared -fPIC -o " + shell_quote(base + ".so") + " " +
                          shell_quote(base + ".c") + " -lm 2>&1";
  // If this process dies during the compile (SIGKILL), the compiler runs on
  // as an orphan: the shell then removes the work directory itself. It knows
  // by its parent having changed from $PPID (this process) in /proc (a dead
  // parent may linger as a zombie, which `kill -0` would still find).
  const std::string run = cmd +
                          "; s=$?; read -r _ _ _ pp _ </proc/$$/stat; [ \"$pp\" = \"$PPID\" ] || rm -rf " +
                          shell_quote(work_dir) + "; exit $s";
  FILE* pipe = popen(run.c_str(), "r");
  if (pipe == nullptr) throw BackendError("cpu backend: cannot run the C compiler: " + cmd, "");
  std::string log;
  char buf[4096];
  std::size_t n = 0;
  while ((n = std::fread(buf, 1, sizeof buf, pipe)) > 0) log.append(buf, n);
  const int status = pclose(pipe);
  ++stats_.compiled;
  if (status != 0) {
    const int code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    // The work directory goes away with this call: the log carries the source.
    throw BackendError(
        "cpu backend: kernel compilation failed (exit status " + std::to_string(code) + "): " + cmd,
        log + "\n---- " + base + ".c ----\n" + source);
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

// The entry layout of cache/disk_entry.hpp; the blob is the shared object.
bool KernelCache::load_from_disk(const std::string& key, const std::string& file, std::string* object) {
  switch (read_disk_entry(file, kMagic, key, object)) {
    case DiskEntry::Absent:
      return false;
    case DiskEntry::Corrupt:
      ++stats_.corrupt;  // removed; the caller recompiles and stores it again
      return false;
    case DiskEntry::Hit:
      break;
  }
  return true;
}

void KernelCache::store_to_disk(const std::string& key, const std::string& file, const std::string& so_path) {
  std::string object;
  if (!read_whole_file(so_path, &object)) return;
  write_disk_entry(file, kMagic, key, object);  // a cache that cannot be written is not an error
}

// A process killed while compiling leaves its work directory: remove those
// of processes that no longer exist. The age test keeps this from touching a
// live process in another PID namespace that shares the temp directory.
void KernelCache::remove_stale_work_dirs() {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::path tmp = fs::temp_directory_path(ec);
  if (ec) return;
  const auto now = fs::file_time_type::clock::now();
  for (fs::directory_iterator it(tmp, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name.rfind(kWorkDirPrefix, 0) != 0) continue;
    const std::string rest = name.substr(sizeof kWorkDirPrefix - 1);
    const std::size_t dash = rest.find('-');
    if (dash == std::string::npos || dash == 0 || rest.find_first_not_of("0123456789") != dash) continue;
    const long pid = std::strtol(rest.substr(0, dash).c_str(), nullptr, 10);
    if (pid <= 0 || pid == getpid() || kill(static_cast<pid_t>(pid), 0) == 0 || errno != ESRCH) continue;
    std::error_code ec2;
    const auto mtime = fs::last_write_time(it->path(), ec2);
    if (ec2 || now - mtime < std::chrono::minutes(10)) continue;
    fs::remove_all(it->path(), ec2);
  }
}

}  // namespace arrvm
