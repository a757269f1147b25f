// `arrvm replay`: runs a trace through a Runtime, checks every sync that
// carries contents or a hash, and reports partitions, times and mismatches.
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "backends/mpi/mpi_backend.hpp"
#include "vm/instruction.hpp"

namespace arrvm::cli {

struct ReplayOptions {
  std::string trace;
  // Config::set overrides from the flags, applied after the environment.
  std::vector<std::pair<std::string, std::string>> config;
  int repeat = 1;
  bool json = false;
  std::optional<double> rtol, atol;  // unset: per-dtype defaults
  std::string dot_dir;               // empty: no Graphviz output
  std::string timeline;              // --timeline FILE: a Chrome trace of the run (empty: none)
  // --fusers / --backends: the comparison table (frontend/cli/compare.hpp).
  std::vector<std::string> fusers, backends;
  bool cache_study = false;  // --cache-study: frontend/cli/cache_study.hpp
  // With --fuser ilp: solve each batch once more for the report's proof and
  // solve time (inside the timed run; the cache study turns it off).
  bool ilp_report = true;
};

// The first element of a sync that differs from the trace (or, for a
// hash-only sync, the two hashes with index -1).
struct Mismatch {
  int64_t line = 0;    // trace line of the sync
  BaseId base = -1;    // trace base id
  int64_t index = -1;  // flat element index; -1 for a sha256 mismatch
  nlohmann::json expected, got;
};

struct BatchReport {
  std::size_t instructions = 0;
  // Blocks as trace instruction indices (counted from 0 over the trace's
  // instruction lines, sync and free included).
  std::vector<std::vector<int64_t>> partition;
  double cost = 0.0;
  // With --dot: the batch with trace base ids, and each one's trace index.
  std::vector<Instruction> instrs;
  std::vector<int64_t> trace_index;
  // With --dot: the WSP graph's edges, as positions in the batch.
  std::vector<std::pair<uint32_t, uint32_t>> dependencies, fuse_preventing;
  // With --fuser ilp: the batch solved once more by ilp::fuse_report (the
  // run's partition may come from the merge cache): did CBC prove it
  // optimal, and in how many seconds.
  bool ilp_solved = false, ilp_optimal = false;
  double ilp_s = 0;
};

struct ReplayResult {
  std::string backend, fuser, cost_model;
  std::vector<Mismatch> mismatches;
  std::vector<BatchReport> batches;
  int64_t instructions = 0;     // instruction lines in the trace
  int64_t syncs_checked = 0;    // syncs with bytes or sha256
  int64_t syncs_unchecked = 0;  // syncs with neither
  int repeat = 1;
  double fusion_s = 0, codegen_s = 0, compile_s = 0, exec_s = 0;
  double merge_cache_s = 0;  // hashing, looking up and re-binding partitions
  double wall_s = 0;         // the reported run, start to end
  uint64_t merge_hits = 0, merge_misses = 0, merge_upgrades = 0, kernel_hits = 0, kernel_misses = 0;
  uint64_t kernels_compiled = 0;  // the profile's, for the reported run
  uint64_t kernels_launched = 0;
  std::optional<MpiBackendStats> mpi;  // with --backend mpi: this rank's communication

  bool verified() const { return mismatches.empty(); }
  int64_t blocks() const;
  double cost() const;
};

// Parses the arguments after "replay". Throws UsageError.
ReplayOptions parse_replay_args(const std::vector<std::string>& args);

// Replays the trace (options.repeat times, reporting the last run). Throws
// Error for a malformed trace or a runtime failure ("TRACE:LINE: ...").
ReplayResult replay(const ReplayOptions& options);

// Compares a synced base against the trace's bytes: integers and bools
// exactly, floats within atol + rtol*|expected| (NaN equals NaN, -0.0 equals
// 0.0). Returns the first differing element, if any (line/base left unset).
std::optional<Mismatch> compare_contents(DType dtype, const std::vector<uint8_t>& expected, const void* got,
                                         std::optional<double> rtol, std::optional<double> atol);

// The report: human-readable text, or one JSON object (--json).
std::string report_text(const ReplayOptions& options, const ReplayResult& r);
nlohmann::ordered_json report_json(const ReplayOptions& options, const ReplayResult& r);

// Writes DIR/batch_NNNN.dot for each batch. Throws Error if it cannot.
void write_dot_files(const std::string& dir, const ReplayResult& r);

// A command-line mistake: main prints it with the usage and exits 2.
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace arrvm::cli
