// `arrvm bench`: runs the benchmark programs (programs/) under each
// backend and fuser, checks every checksum against NumPy and prints one table:
// time (warm kernel cache), partition cost summed over batches (the seed's
// Fig. 14), kernels launched, fusion time, NumPy's time and the speed-up.
//
// The NumPy reference is bench/numpy/programs.py, run by the CLI at the very
// sizes being measured (rather than a checksum file generated once): its
// time is measured on this machine in the same session, which a stored file
// could not give, and any size (tiny, default, paper) is checked without
// keeping three files in step with the C++ registry.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <string>
#include <utility>
#include <vector>

#include "programs/programs.hpp"

namespace arrvm::cli {

struct BenchOptions {
  std::vector<std::string> programs;  // empty: all of them, in Table I's order
  std::vector<std::string> fusers = {"singleton", "linear", "greedy", "optimal"};
  std::vector<std::string> backends = {"cpu"};
  bench::SizeClass size = bench::SizeClass::Default;
  int repeat = 1;          // timed runs after the warm-up; the table shows their mean
  std::string record_dir;  // empty: record nothing
  std::string json_path;   // --json FILE: the rows as JSON (bench/plot.py draws them)
  std::string csv_path;    // --csv FILE: the rows as CSV
  std::string python = "/usr/bin/python3";
  std::string numpy_script;  // empty: the one in the source tree
  // Config::set overrides (--cost), applied after the environment.
  std::vector<std::pair<std::string, std::string>> config;
};

// Parses the arguments after "bench". Throws UsageError (replay.hpp).
BenchOptions parse_bench_args(const std::vector<std::string>& args);

// Runs the suite, printing the table to `out` as rows complete. Returns the
// exit code: 0 if every checksum matched NumPy, 1 if one did not or a run
// failed. Throws Error if NumPy cannot be run at all.
int run_bench(const BenchOptions& options, std::ostream& out);

}  // namespace arrvm::cli
