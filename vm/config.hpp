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
  std::string backend = "cpu";      // ARRVM_BACKEND (DESIGN.md: cpu is the default)
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
  // greedy at once and the exact fuser in the background (engine/anytime.hpp).
  bool anytime = true;
  // ARRVM_PULL_GATHERS: on | off. A gather of an array only it reads
  // evaluates the array's elementwise producer at the gathered positions
  // (engine/gather_pull.hpp).
  bool pull_gathers = true;
  // ARRVM_FOLD_FILLS: on | off. A constant written into a diagonal or a
  // column of a matrix the previous instruction computed becomes an
  // elementwise `where` over the matrix, which fuses with its producer
  // (engine/fill_fold.hpp).
  bool fold_fills = true;
  // ARRVM_SPLIT_BOXES: on | off. An in-place update of a whole array
  // followed by one of rows [a, b) of its first axis splits there, so the
  // two box updates can share a kernel (engine/box_split.hpp).
  bool split_boxes = true;
  // ARRVM_SPLIT_FILLS: on | off. A fill of a stack of planes that the next
  // instructions update plane by plane splits at those planes, so each
  // plane's zeros join its update's kernel (engine/fill_split.hpp).
  bool split_fills = true;
  // ARRVM_CSE: on | off. An elementwise instruction that repeats an earlier
  // one (same operation on the same, unchanged inputs) goes, its readers
  // reading the earlier result (engine/cse.hpp).
  bool cse = true;
  // ARRVM_FORWARD_COPIES: on | off. A copy into a temporary the batch frees
  // is read in place of its source when nothing writes the source first
  // (Python's `x[i]`: engine/copy_forward.hpp).
  bool forward_copies = true;
  // ARRVM_FORWARD_STORES: on | off. An array written only to be read in
  // parts and then overwritten whole (lattice_boltzmann's `T[:] = F;
  // T[1:] *= BOUND; BB[OPP[q]] += T[q]`) is not stored: each part read is
  // computed from the writes' inputs (engine/store_forward.hpp).
  bool forward_stores = true;
  // ARRVM_COPY_RENAME: on | off. A temporary copied back whole into a box
  // of an array (`center[:] = work`) is computed in place in a second array
  // of that size, and the copy becomes a rename (engine/copy_back.hpp).
  bool copy_rename = true;
  // ARRVM_ROW_FUSION: on | off. The cpu backend runs a block over (m) and
  // the next block over (m, ...) as one loop nest when their accesses stay
  // in their rows (Gauss's factor column and its update: backends/loop_rows.cpp).
  bool row_fusion = true;
  // ARRVM_VECTOR_MATH: on | off. The cpu backend calls glibc's vector math
  // library (libmvec) for exp, log, pow, sin, cos and the others it has,
  // where the innermost loop vectorizes: a few ulp from ref's scalar libm
  // (backends/cpu/vector_math.hpp); off: every value is ref's bit for bit.
  bool vector_math = true;
  // ARRVM_DEFER: on | off | always. At a sync, arrays the batch creates and
  // leaves alive are computed under a fresh name and recomputed in the next
  // batch only if it reads them (engine/defer.hpp); `on` defers the sites
  // seen to die unread, `always` every legal one (for tests); `off` runs
  // batches as issued (dead writes too).
  std::string defer = "on";
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
  // instruction meanwhile (backends/cpu/compile_queue.hpp); a kernel that
  // fails to compile keeps running so, with a warning. off: each launch
  // waits for its kernel, and a failed compile poisons what it computes.
  // from_env (every frontend: Python, the C API, Vm, the arrvm program)
  // defaults to on; a Config built by hand (tests of the kernels, the
  // benchmarks' timed runs) to off, which is deterministic.
  bool tiered = false;
  // ARRVM_EAGER: elements (on: kEagerDefault; off: 0). An instruction
  // issued when nothing is pending, on views of at most this many elements
  // each, runs at once through the interpreter's loops instead of entering
  // a batch (engine/runtime.cpp, Runtime::run_eager), on the backends whose
  // memory is the host's (ref, cpu). Like tiered: from_env defaults to on,
  // a Config built by hand to off (its batches are what a test wrote).
  // The default: 128 KiB of float64, an L2's worth (docs/architecture.md).
  int64_t eager = 0;
  static constexpr int64_t kEagerDefault = 16384;
  // ARRVM_LANES: on | off. Fused blocks holding runs of independent lanes
  // are cut into chunks of 8, 4, 2, 1 lanes on backends that compile
  // kernels, so that a loop's kernels do not change with its trip count
  // (engine/block_lanes.hpp). off: the fuser's blocks as they are.
  bool lanes = true;
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
