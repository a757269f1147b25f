// `arrvm replay TRACE --fusers F1,F2,... --backends B1,B2,...`: the trace
// replayed once per backend x fuser, each in a fresh VM and verified, as one
// table (cost, blocks, kernels, fusion / compile / execution time).
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "frontend/cli/replay.hpp"

namespace arrvm::cli {

struct ComparisonRow {
  std::string backend, fuser;
  ReplayResult result;
  std::string error;  // the replay threw (bad backend, compile failure, ...)

  bool ok() const { return error.empty() && result.verified(); }
};

// Replays options.trace for every backend in options.backends and fuser in
// options.fusers (an empty list: the configured one). Each row uses an
// in-memory merge cache (cold at its start, so fusion time is measured) and
// anytime fusion off (optimal and ilp report their own partitions).
std::vector<ComparisonRow> compare(const ReplayOptions& options);

std::string comparison_text(const ReplayOptions& options, const std::vector<ComparisonRow>& rows);
nlohmann::ordered_json comparison_json(const ReplayOptions& options, const std::vector<ComparisonRow>& rows);

}  // namespace arrvm::cli
