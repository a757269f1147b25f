#include "cache/kernel_cache.hpp"

#include <dlfcn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>

#include "cache/disk_entry.hpp"
#include "cache/process.hpp"
#include "vm/error.hpp"
#include "vm/hash.hpp"

namespace arrvm {

namespace {

constexpr const char kMagic[] = "ARRVMKC1\n";
constexpr const char kWorkDirPrefix[] = "arrvm-cc-";

// A compiler's output kept in an error (head and tail), and the most of a
// kernel's source shown with it.
constexpr std::size_t kMaxCompilerOutput = 64 * 1024;

std::string format_seconds(double s) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", s);
  return buf;
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
    : cc_(config.cc),
      cflags_(config.cflags),
      mode_(config.cache),
      dir_(config.cache_dir),
      host_(host_cpu()),
      compile_timeout_(config.compile_timeout) {
  remove_stale_work_dirs();
  // A directory that cannot be trusted leaves the cache in memory (a warning says so).
  dir_ = mode_ == CacheMode::On ? open_cache_dir(dir_, "", "kernel cache") : "";
}

// Kernels stay mapped (RTLD_NODELETE): unloading a kernel would unload the
// OpenMP runtime it pulled in while its worker threads still run. No files
// are left to remove: each compile removed its own directory.
KernelCache::~KernelCache() = default;

std::string KernelCache::key_of(const std::string& source) const {
  std::string key = "cc=" + cc_ + "\ncflags=" + cflags_ + " -shared -fPIC -lm\ncpu=" + host_ + "\nsource=\n";
  return key + source;
}

void* KernelCache::lookup(const std::string& source, const std::string& symbol, std::string* key,
                          std::string* file) {
  *key = key_of(source) + "\nsymbol=" + symbol;
  if (mode_ != CacheMode::Off) {
    auto it = loaded_.find(*key);
    if (it != loaded_.end()) {
      ++stats_.memory_hits;
      return it->second;
    }
  }
  *file = dir_.empty() ? "" : (std::filesystem::path(dir_) / (sha256_hex(*key) + ".kernel")).string();
  void* fn = nullptr;
  std::string object;
  if (!file->empty() && load_from_disk(*key, *file, &object)) {
    WorkDir work;
    const std::string so = work.path() + "/d" + std::to_string(counter_++) + ".so";
    if (write_whole_file(so, object)) fn = load(so, symbol);
    if (fn != nullptr) {
      ++stats_.disk_hits;
    } else {
      ++stats_.corrupt;  // checksum fine but not loadable: treat as corrupt
      std::error_code ec;
      std::filesystem::remove(*file, ec);
    }
  }
  if (fn != nullptr && mode_ != CacheMode::Off) loaded_[*key] = fn;
  return fn;
}

void* KernelCache::find(const std::string& source, const std::string& symbol) {
  std::string key, file;
  return lookup(source, symbol, &key, &file);
}

void* KernelCache::get(const std::string& source, const std::string& symbol) {
  std::string key, file;
  if (void* fn = lookup(source, symbol, &key, &file)) return fn;
  ++stats_.misses;
  WorkDir work;
  const std::string so = compile(source, work.path());
  void* fn = load(so, symbol);
  if (fn == nullptr) {
    const char* err = dlerror();
    throw BackendError("cpu backend: cannot load compiled kernel " + so, err ? err : "");
  }
  if (!file.empty()) store_to_disk(key, file, so);
  if (mode_ != CacheMode::Off) loaded_[key] = fn;
  return fn;
}

namespace {

constexpr const char* kSimdPragma = "#pragma omp declare simd notinbranch\n";

bool word_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_';
}

// Whether `text` calls (or declares) `name`: the word followed by '('.
bool mentions(const std::string& text, const std::string& name) {
  for (std::size_t at = text.find(name + "("); at != std::string::npos; at = text.find(name + "(", at + 1)) {
    if (at == 0 || !word_char(text[at - 1])) return true;
  }
  return false;
}

// The libm functions `text` declares `omp declare simd` (c_emitter's
// vector_declaration: the pragma, then "type name(params);").
std::vector<std::string> simd_declared(const std::string& text) {
  std::vector<std::string> names;
  const std::string pragma = kSimdPragma;
  for (std::size_t at = text.find(pragma); at != std::string::npos; at = text.find(pragma, at + 1)) {
    const std::size_t line = at + pragma.size();
    const std::size_t paren = text.find('(', line);
    const std::size_t space = text.rfind(' ', paren);
    if (paren == std::string::npos || space == std::string::npos || space < line) continue;
    names.push_back(text.substr(space + 1, paren - space - 1));
  }
  return names;
}

// A kernel source cut into its guarded helpers (guard name -> text) and
// the rest; false if a guard is not closed or a `static` definition lies
// outside the guards (it could clash with another member's).
struct UnitParts {
  std::map<std::string, std::string> helpers;
  std::string rest;
};

bool unit_parts(const std::string& src, UnitParts* parts) {
  const std::string open = "#ifndef ARRVM_HELPER_";
  std::size_t guarded_statics = 0, from = 0;
  for (std::size_t at = src.find(open); at != std::string::npos; at = src.find(open, at + 1)) {
    const std::size_t name_end = src.find('\n', at);
    const std::size_t end = name_end == std::string::npos ? name_end : src.find("#endif\n", name_end);
    if (end == std::string::npos) return false;
    const std::string text = src.substr(name_end, end - name_end);
    for (std::size_t k = text.find("static "); k != std::string::npos; k = text.find("static ", k + 1))
      ++guarded_statics;
    parts->helpers.emplace(src.substr(at + open.size(), name_end - at - open.size()), text);
    parts->rest += src.substr(from, at - from);
    from = end;
  }
  parts->rest += src.substr(from);
  std::size_t statics = 0;
  for (std::size_t k = src.find("static "); k != std::string::npos; k = src.find("static ", k + 1)) ++statics;
  return statics == guarded_statics;
}

}  // namespace

// A libm function declared `omp declare simd` makes every later call of it
// in the translation unit a vector call: a member may declare one only if
// no member calls it outside a helper that declares it too (the guards
// keep one copy of such a helper, ahead of its callers), so that a kernel
// compiles to the same code in a unit as alone.
std::vector<std::size_t> unit_members(const std::vector<std::string>& sources) {
  // A text of a member and the functions it declares simd itself (a
  // declaring helper's body may call those; the rest of a kernel none).
  struct Piece {
    std::string text;
    std::vector<std::string> own;
  };
  const auto calls_undeclared = [](const Piece& p, const std::string& f) {
    return std::find(p.own.begin(), p.own.end(), f) == p.own.end() && mentions(p.text, f);
  };
  std::vector<std::size_t> members;
  std::map<std::string, std::string> helpers;  // guard name -> text, of the members so far
  std::set<std::string> declared;              // simd-declared libm functions, of the members so far
  std::vector<Piece> pieces;                   // the members' texts
  for (std::size_t i = 0; i < sources.size(); ++i) {
    const std::string& src = sources[i];
    if (src.find("#pragma GCC") != std::string::npos) continue;
    UnitParts parts;
    if (!unit_parts(src, &parts) || !simd_declared(parts.rest).empty())
      continue;  // (an unguarded one: apart)
    bool ok = true;
    std::vector<Piece> mine{{parts.rest, {}}};
    std::set<std::string> declares;  // what this source declares simd
    for (const auto& [name, body] : parts.helpers) {
      const auto it = helpers.find(name);
      if (it != helpers.end() && it->second != body) ok = false;
      mine.push_back({body, simd_declared(body)});
      declares.insert(mine.back().own.begin(), mine.back().own.end());
    }
    // None of its texts calls a simd function of the unit's or its own
    // outside a helper declaring it, nor does the unit's text call its own.
    for (const std::string& f : declared) {
      for (const Piece& p : mine) ok = ok && !calls_undeclared(p, f);
    }
    for (const std::string& f : declares) {
      for (const Piece& p : mine) ok = ok && !calls_undeclared(p, f);
      if (declared.count(f) != 0) continue;
      for (const Piece& p : pieces) ok = ok && !calls_undeclared(p, f);
    }
    if (!ok) continue;
    helpers.insert(parts.helpers.begin(), parts.helpers.end());
    declared.insert(declares.begin(), declares.end());
    for (Piece& p : mine) pieces.push_back(std::move(p));
    members.push_back(i);
  }
  return members;
}

std::string unit_source(const std::vector<std::string>& sources, const std::vector<std::string>& symbols) {
  std::string unit;
  for (std::size_t i = 0; i < sources.size(); ++i) {
    const std::string& src = sources[i];
    std::set<std::string> names;  // arrvm_r<k>
    for (std::size_t at = src.find("arrvm_r"); at != std::string::npos; at = src.find("arrvm_r", at + 1)) {
      std::size_t end = at + 7;
      while (end < src.size() && std::isdigit(static_cast<unsigned char>(src[end]))) ++end;
      const bool word_end =
          end == src.size() || !(std::isalnum(static_cast<unsigned char>(src[end])) || src[end] == '_');
      if (end > at + 7 && word_end &&
          (at == 0 || !(std::isalnum(static_cast<unsigned char>(src[at - 1])) || src[at - 1] == '_')))
        names.insert(src.substr(at, end - at));
    }
    for (const std::string& n : names) unit += "#define " + n + " " + symbols[i] + "_" + n.substr(6) + "\n";
    unit += src;
    if (!src.empty() && src.back() != '\n') unit += '\n';
    for (const std::string& n : names) unit += "#undef " + n + "\n";
  }
  return unit;
}

std::vector<void*> KernelCache::get_all(const std::vector<std::string>& sources,
                                        const std::vector<std::string>& symbols) {
  ARRVM_ASSERT(sources.size() == symbols.size());
  std::vector<void*> fns(sources.size(), nullptr);
  std::vector<std::string> keys(sources.size()), files(sources.size());
  std::vector<std::string> missing;
  std::vector<std::size_t> missing_at;
  for (std::size_t i = 0; i < sources.size(); ++i) {
    fns[i] = lookup(sources[i], symbols[i], &keys[i], &files[i]);
    if (fns[i] == nullptr) {
      missing.push_back(sources[i]);
      missing_at.push_back(i);
    }
  }
  std::vector<std::size_t> unit = unit_members(missing);
  if (unit.size() >= 2) {
    std::vector<std::string> unit_sources, unit_symbols;
    for (std::size_t u : unit) {
      unit_sources.push_back(missing[u]);
      unit_symbols.push_back(symbols[missing_at[u]]);
    }
    WorkDir work;
    const std::string so = compile(unit_source(unit_sources, unit_symbols), work.path());
    for (std::size_t u : unit) {
      const std::size_t i = missing_at[u];
      ++stats_.misses;
      void* fn = load(so, symbols[i]);
      if (fn == nullptr) {
        const char* err = dlerror();
        throw BackendError("cpu backend: cannot load compiled kernel " + symbols[i] + " from " + so,
                           err ? err : "");
      }
      if (!files[i].empty()) store_to_disk(keys[i], files[i], so);
      if (mode_ != CacheMode::Off) loaded_[keys[i]] = fn;
      fns[i] = fn;
    }
  }
  for (std::size_t i = 0; i < sources.size(); ++i) {
    if (fns[i] == nullptr) fns[i] = get(sources[i], symbols[i]);
  }
  return fns;
}

// -lm: without it the kernel's libm references are unversioned and bind to
// glibc's oldest symbol versions (e.g. log@GLIBC_2.2.5, whose error path
// returns +NaN where the current log, which ref calls, returns -NaN).
// The file name carries a per-process counter: dlopen recognizes an object
// it already loaded by its path, and mkdtemp may hand out a removed
// directory's name again. ARRVM_CC and ARRVM_CFLAGS are split at whitespace
// and passed as they are (nothing is expanded); the compiler runs in a
// process group of its own that is killed at the time limit
// (ARRVM_COMPILE_TIMEOUT) or on an interrupt; its output is capped.
std::string KernelCache::compile(const std::string& source, const std::string& work_dir) {
  const std::string base = work_dir + "/k" + std::to_string(counter_++);
  if (!write_whole_file(base + ".c", source))
    throw BackendError("cpu backend: cannot write " + base + ".c", "");
  std::vector<std::string> argv = split_words(cc_);
  if (argv.empty()) throw BackendError("cpu backend: ARRVM_CC is empty", "");
  for (std::string& f : split_words(cflags_)) argv.push_back(std::move(f));
  argv.insert(argv.end(), {"-shared", "-fPIC", "-o", base + ".so", base + ".c", "-lm"});
  std::string cmd;
  for (const std::string& a : argv) cmd += (cmd.empty() ? "" : " ") + a;
  // A shell runs the compiler only to clean up after it: if this process
  // dies during the compile (SIGKILL), the compiler runs on as an orphan and
  // the shell then removes the work directory itself. It knows by its
  // parent having changed from $PPID (this process) in /proc (a dead parent
  // may linger as a zombie, which `kill -0` would still find). The command's
  // words are the shell's positional parameters: nothing in them is expanded.
  // The compiler's own temporary files go into the work directory too
  // (TMPDIR): a compiler killed mid-way (a timeout, an interrupt, a VM
  // destroyed while a background compile runs) leaves none elsewhere.
  std::vector<std::string> run = {
      "/bin/sh", "-c",
      "d=$1; shift; TMPDIR=$d \"$@\"; s=$?; read -r _ _ _ pp _ </proc/$$/stat; [ \"$pp\" = "
      "\"$PPID\" ] || rm -rf \"$d\"; "
      "exit $s",
      "sh", work_dir};
  run.insert(run.end(), argv.begin(), argv.end());
  ProcessResult r;
  try {
    r = run_process(run, compile_timeout_, kMaxCompilerOutput);
  } catch (const InterruptedError&) {
    throw;
  } catch (const Error& e) {
    throw BackendError("cpu backend: cannot run the C compiler: " + cmd, e.what());
  }
  ++stats_.compiled;
  // The work directory goes away with this call: the log carries the source
  // (its head, for a huge kernel).
  const std::string shown = source.size() <= kMaxCompilerOutput
                                ? source
                                : source.substr(0, kMaxCompilerOutput) + "\n[... source cut at " +
                                      std::to_string(kMaxCompilerOutput) + " bytes ...]\n";
  if (r.timed_out) {
    throw BackendError("cpu backend: the C compiler did not finish within ARRVM_COMPILE_TIMEOUT=" +
                           format_seconds(compile_timeout_) + " s and was killed: " + cmd,
                       r.output + "\n---- " + base + ".c ----\n" + shown);
  }
  if (r.exit_code != 0) {
    throw BackendError(
        "cpu backend: kernel compilation failed (exit status " + std::to_string(r.exit_code) + "): " + cmd,
        r.output + "\n---- " + base + ".c ----\n" + shown);
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
