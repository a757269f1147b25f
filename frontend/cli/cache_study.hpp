// `arrvm replay TRACE --cache-study`: the warm / cold / no merge cache
// experiment of seed 001 Sec. VI (Fig. 15-17) on any trace. For each fuser
// (linear, greedy, optimal, ilp; the exact ones with anytime fusion off and
// on) it replays the trace in a fresh Runtime with
//   none   the merge cache off: the fuser runs on every flush (Fig. 17);
//   cold   an empty merge cache: the fuser runs once per distinct batch (Fig. 16);
//   warm   the cache directory left by the cold run, in a new Runtime: a new
//          process, partitions read from disk (Fig. 15);
//   hot    the same Runtime's second pass: partitions from memory.
// Kernels are compiled once beforehand into the study's own temporary cache
// directory, so only the merge cache differs between columns. Each cell is
// the fastest of --repeat runs.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "frontend/cli/replay.hpp"

namespace arrvm::cli {

struct CacheStudyCell {
  double total_s = 0;  // the replay, start to end
  double fuse_s = 0;   // fusion + merge cache (hash, lookup, disk, legality check)
  uint64_t hits = 0, misses = 0, upgrades = 0;
  double cost = 0;  // partition cost of the run (anytime: what really ran)
  bool verified = true;
};

struct CacheStudyRow {
  std::string fuser, anytime;  // anytime: "on", "off" or "-" (not an exact fuser)
  CacheStudyCell none, cold, warm, hot;
};

struct CacheStudy {
  std::string trace, backend, cost_model;
  int64_t instructions = 0;
  std::size_t batches = 0;
  std::vector<CacheStudyRow> rows;
  bool verified() const;
};

// Runs the study. `options` gives the trace, the repeat count and the
// configuration flags (--backend, --cost; --fuser and --anytime are varied).
// Throws Error as replay() does.
CacheStudy cache_study(const ReplayOptions& options);

std::string cache_study_text(const CacheStudy& s);
nlohmann::ordered_json cache_study_json(const CacheStudy& s);

}  // namespace arrvm::cli
