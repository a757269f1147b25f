// The kernel cache of the C code generator: source -> loaded function.
// In memory, and on disk in Config.cache_dir (Config.cache = on | memory |
// off). A disk entry is named by a SHA-256 of its key (source, compiler
// command, flags, host CPU) and stores the full key, the shared object and a
// checksum; an entry whose key or checksum does not match, or that is
// truncated, is removed and the kernel recompiled. Entries are written to a
// temporary file and renamed into place, so processes sharing the directory
// never see half an entry.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "vm/config.hpp"

namespace arrvm {

struct KernelCacheStats {
  uint64_t compiled = 0;     // compiler runs
  uint64_t memory_hits = 0;  // found loaded in this process
  uint64_t disk_hits = 0;    // loaded from the cache directory
  uint64_t misses = 0;       // neither: compiled
  uint64_t corrupt = 0;      // disk entries rejected and removed
};

// Which of `sources` (C kernels, each defining its symbol) may be one
// translation unit: those printed with guarded helpers (CDialect::
// guard_helpers) whose guarded helpers of one name have one text across
// them, and without what would act on the kernels after them (`#pragma GCC`,
// a libm function declared `omp declare simd`). Their indices; the first
// source is always one when any is.
std::vector<std::size_t> unit_members(const std::vector<std::string>& sources);

// The translation unit of those kernels: each source in turn, its `omp
// declare reduction` names (arrvm_r<k>) made its own by macros around it
// (GCC expands macros in OpenMP pragmas).
std::string unit_source(const std::vector<std::string>& sources, const std::vector<std::string>& symbols);

class KernelCache {
 public:
  explicit KernelCache(const Config& config);
  ~KernelCache();
  KernelCache(const KernelCache&) = delete;
  KernelCache& operator=(const KernelCache&) = delete;

  // The address of `symbol` in `source` compiled as a shared object. Throws
  // BackendError carrying the compiler's output if compilation fails.
  void* get(const std::string& source, const std::string& symbol);
  // The same from this cache's memory or disk only: nullptr where get()
  // would compile.
  void* find(const std::string& source, const std::string& symbol);

  // get() for several kernels: those not in memory or on disk that may share
  // a translation unit (unit_members) compile in one compiler run, the rest
  // one by one. A compiler's fixed cost (its start, the C headers: ~30 of
  // the ~50 ms a small kernel takes here) is then paid once: 8 kernels of
  // Gram-Schmidt compile in 0.19 s as one unit against 0.43 s apart. Each
  // kernel's disk entry keeps its own key (its source) and the unit's
  // shared object. Throws BackendError if a compile fails (get() one by one
  // then says which kernel).
  std::vector<void*> get_all(const std::vector<std::string>& sources,
                             const std::vector<std::string>& symbols);

  const KernelCacheStats& stats() const { return stats_; }
  // Where compiled kernels persist: "" when the cache is not on disk (off,
  // memory, or a directory that could not be trusted).
  const std::string& dir() const { return dir_; }

 private:
  std::string key_of(const std::string& source) const;
  // Compiles into `work_dir` (a WorkDir the caller removes); returns the .so path.
  std::string compile(const std::string& source, const std::string& work_dir);
  void* load(const std::string& so_path, const std::string& symbol);
  // get() without the compile (`*key`, `*file`: its key and disk file).
  void* lookup(const std::string& source, const std::string& symbol, std::string* key, std::string* file);
  // The shared object of a valid disk entry (a corrupt one is removed).
  bool load_from_disk(const std::string& key, const std::string& file, std::string* object);
  static void remove_stale_work_dirs();
  void store_to_disk(const std::string& key, const std::string& file, const std::string& so_path);

  std::string cc_, cflags_;
  CacheMode mode_;
  std::string dir_, host_;
  double compile_timeout_;                         // seconds (ARRVM_COMPILE_TIMEOUT; 0: none)
  uint64_t counter_ = 0;                           // makes every .so path this process loads unique
  std::unordered_map<std::string, void*> loaded_;  // key -> symbol
  std::vector<void*> handles_;
  KernelCacheStats stats_;
};

}  // namespace arrvm
