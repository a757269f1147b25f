// The configuration in force. Every environment variable libarrvm reads is
// read in vm/config.cpp and nowhere else; everything else receives a Config.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace arrvm {

// ARRVM_CACHE / ARRVM_MERGE_CACHE: caches in memory and on disk, in memory
// only, or none.
enum class CacheMode : uint8_t { On, Memory, Off };
const char* to_string(CacheMode mode);  // "on", "memory", "off"
// The mode named `name`, or nullopt.
std::optional<CacheMode> parse_cache_mode(std::string_view name);

struct Config {
  std::string backend = "cpu";      // ARRVM_BACKEND
  std::string fuser = "greedy";     // ARRVM_FUSER
  std::string cost = "bohrium";     // ARRVM_COST
  int64_t batch = 4096;             // ARRVM_BATCH
  std::string cache_dir;            // ARRVM_CACHE_DIR
  CacheMode cache = CacheMode::On;  // ARRVM_CACHE: on | memory | off
  std::string trace;                // ARRVM_TRACE (empty: no trace)
  std::string profile;              // ARRVM_PROFILE: empty, "1" (stderr), or a path (set() normalizes)
  std::string log = "warn";         // ARRVM_LOG
  std::string cc = "cc";            // ARRVM_CC (split at whitespace; no shell)
  std::string cflags =
      "-O3 -march=native -fopenmp -fno-math-errno -fno-trapping-math -ffp-contract=off";  // ARRVM_CFLAGS (as
                                                                                          // cc)
  std::string opencl_device;     // ARRVM_OPENCL_DEVICE
  double fuse_time_limit = 1.0;  // ARRVM_FUSE_TIME_LIMIT (seconds)
  // ARRVM_MERGE_CACHE: on | memory | off for the merge cache alone; unset
  // (or empty): as ARRVM_CACHE (lets the cache study vary it with the kernel
  // cache warm). merge_cache_mode() is the mode in force.
  std::optional<CacheMode> merge_cache;
  // ARRVM_ANYTIME: on | off. With optimal or ilp, a merge-cache miss runs
  // greedy at once and the exact fuser in the background (anytime fusion).
  bool anytime = true;
  // ARRVM_PASSES: which of the optional passes run (the rewrite layer
  // registers them, in order): a comma list read left to right of "default"
  // (every pass), "none", "NAME" or "+NAME" (on), "-NAME" (off); e.g.
  // "default,-cse" or "none,+defer". The VM checks the names when it starts.
  std::string passes = "default";
  // Whether the pass called `name` is on (every pass is on by default).
  bool pass_on(std::string_view name) const;
  // The pass names `passes` mentions, for the VM's check.
  std::vector<std::string> pass_names() const;
  // The defer pass defers every legal site, not only those seen to die
  // unread (tests; option "defer_every_site", no variable).
  bool defer_every_site = false;
  // ARRVM_MPI_NODE_BACKEND: the backend each rank of the mpi backend runs its part on.
  std::string mpi_node_backend = "cpu";
  // ARRVM_MEM_LIMIT: bytes of base arrays the backend may hold at once (the
  // ref and cpu backends, and each rank of the mpi backend); past it a write
  // fails with OutOfMemoryError (K/M/G suffixes; 0: no limit).
  int64_t mem_limit = 0;
  // ARRVM_COMPILE_TIMEOUT: seconds one run of the C compiler may take
  // before it is killed and its kernel fails with a BackendError (0: no limit).
  double compile_timeout = 300.0;
  // ARRVM_TIERED: on | off. The cpu backend compiles kernels on background
  // threads and runs a block whose kernel is not ready instruction by
  // instruction meanwhile; a kernel that
  // fails to compile keeps running so, with a warning. off: each launch
  // waits for its kernel, and a failed compile poisons what it computes.
  // from_env (every frontend: Python, the C API, Vm, the arrvm program)
  // defaults to on; a Config built by hand (tests of the kernels, the
  // benchmarks' timed runs) to off, which is deterministic.
  bool tiered = false;
  // ARRVM_EAGER: elements (on: kEagerDefault; off: 0). An instruction
  // issued when nothing is pending, on views of at most this many elements
  // each, runs at once through the interpreter's loops instead of entering
  // a batch (the runtime's eager path), on the backends whose
  // memory is the host's (ref, cpu). Like tiered: from_env defaults to on,
  // a Config built by hand to off (its batches are what a test wrote).
  // The default: 128 KiB of float64, an L2's worth (docs/architecture.md).
  int64_t eager = 0;
  static constexpr int64_t kEagerDefault = 16384;
  // ARRVM_BACKGROUND_GRACE: seconds the end of a VM (or of the process)
  // waits for the background work still running or queued (tiered
  // compiles, anytime fusion) so that the next run finds its kernels and
  // partitions in the disk caches; the rest is dropped (0: none).
  double background_grace = 2.0;

  CacheMode merge_cache_mode() const { return merge_cache.value_or(cache); }

  // Defaults overridden by the ARRVM_* environment variables. Throws Error
  // naming the variable if a value is malformed.
  static Config from_env();
  // The same, but a malformed variable is appended to `problems` (and left
  // at its default) instead of thrown; `arrvm info` reports them all.
  static Config from_env(std::vector<std::string>* problems);

  // Sets one option by its short name ("backend", "fuser", "batch", ...),
  // as used by the C ABI's option strings and the CLI. Throws Error on an
  // unknown name or a malformed value.
  void set(const std::string& name, const std::string& value);

  // (variable, value) pairs for `arrvm info`.
  std::vector<std::pair<std::string, std::string>> describe() const;
};

// Applies the spdlog level named by `level` ("trace" ... "off") to libarrvm's logger.
void configure_logging(const std::string& level);

}  // namespace arrvm
