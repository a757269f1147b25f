// The `arrvm` program: replay a trace, run benchmarks, describe the build.
// Exit codes: 0 success, 1 replay mismatch, 2 usage, trace or runtime error.
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <new>
#include <string>
#include <vector>

#include "arrvm/arrvm.h"
#include "backends/backend.hpp"
#include "backends/opencl/opencl_backend.hpp"
#include "cache/disk_entry.hpp"
#include "engine/fusion_stage.hpp"
#include "frontend/cli/bench.hpp"
#include "frontend/cli/cache_study.hpp"
#include "frontend/cli/compare.hpp"
#include "frontend/cli/replay.hpp"
#include "rewrite/pipeline.hpp"
#include "vm/config.hpp"
#include "vm/error.hpp"

namespace {

constexpr const char* kUsage =
    "usage: arrvm <command> [arguments]\n"
    "\n"
    "commands:\n"
    "  replay TRACE [--backend B] [--fuser F] [--cost C] [--repeat N] [--json]\n"
    "               [--rtol X] [--atol X] [--dot DIR] [--timeline FILE] [--anytime on|off]\n"
    "               [--fusers F1,F2,... --backends B1,B2,...] [--cache-study]\n"
    "      run a trace, check every sync against it, print a report;\n"
    "      exit 0 if verified, 1 on a mismatch, 2 on an error. --dot: Graphviz\n"
    "      files (and SVG if `dot` is installed); --timeline: a Chrome trace\n"
    "      (Perfetto); --fusers/--backends: one verified row per combination;\n"
    "      --cache-study: time it with no / cold / warm merge cache for linear,\n"
    "      greedy, optimal, ilp\n"
    "  bench [NAME...] [--fusers F1,F2,...] [--backends B1,...] [--size tiny|default|paper]\n"
    "        [--repeat N] [--record DIR] [--cost C] [--python PATH] [--json FILE] [--csv FILE]\n"
    "      run the benchmark programs (default: all) under each backend and fuser,\n"
    "      check their checksums against NumPy, print time, partition cost,\n"
    "      kernels, fusion time and speed-up over NumPy; --record DIR writes\n"
    "      DIR/NAME.trace; --json/--csv FILE also write the rows (bench/plot.py\n"
    "      draws the JSON); exit 0 if all match, 1 on a mismatch, 2 on an error\n"
    "  info              version, backends, devices, configuration in force\n"
    "  --version         the version\n"
    "\n"
    "The ARRVM_* environment variables set the configuration; flags override them.\n";

int usage_error(const std::string& what) {
  std::cerr << "arrvm: " << what << "\n\n" << kUsage;
  return 2;
}

// Is `cmd` (the first word of ARRVM_CC) an executable, directly or on the PATH?
bool on_path(const std::string& cc) {
  const std::string cmd = cc.substr(0, cc.find(' '));
  if (cmd.empty()) return false;
  if (cmd.find('/') != std::string::npos) return ::access(cmd.c_str(), X_OK) == 0;
  const char* path = std::getenv("PATH");
  std::string dirs = path ? path : "";
  std::size_t start = 0;
  while (start <= dirs.size()) {
    const std::size_t colon = std::min(dirs.find(':', start), dirs.size());
    const std::string dir = dirs.substr(start, colon - start);
    if (::access(((dir.empty() ? "." : dir) + "/" + cmd).c_str(), X_OK) == 0) return true;
    start = colon + 1;
  }
  return false;
}

// What is wrong with `config` beyond malformed values: names that do not
// exist, a cache directory that cannot be written, a compiler that is not
// there, an OpenCL device that does not match.
std::vector<std::string> check_config(const arrvm::Config& config) {
  std::vector<std::string> problems;
  const std::vector<std::string> backends = arrvm::backend_names();
  if (std::find(backends.begin(), backends.end(), config.backend) == backends.end()) {
    std::string known;
    for (const std::string& b : backends) known += (known.empty() ? "" : ", ") + b;
    problems.push_back("ARRVM_BACKEND: '" + config.backend + "' is not one of " + known);
  }
  try {
    arrvm::check_fuser_name(config.fuser);
  } catch (const std::exception& e) {
    problems.push_back(std::string("ARRVM_FUSER: ") + e.what());
  }
  try {
    arrvm::check_cost_name(config.cost);
  } catch (const std::exception& e) {
    problems.push_back(std::string("ARRVM_COST: ") + e.what());
  }
  try {
    arrvm::check_pass_names(config);
  } catch (const std::exception& e) {
    problems.push_back(e.what());
  }
  try {
    arrvm::configure_logging(config.log);
  } catch (const std::exception& e) {
    problems.push_back(std::string("ARRVM_LOG: ") + e.what());
  }
  if (config.cache == arrvm::CacheMode::On) {
    std::string why;
    if (arrvm::trusted_cache_dir(config.cache_dir, &why).empty()) {
      problems.push_back("ARRVM_CACHE_DIR: '" + config.cache_dir + "' is not used: " + why +
                         " (the caches stay in memory); set another or ARRVM_CACHE=memory");
    }
  }
  if (config.backend == "mpi" &&
      (config.mpi_node_backend == "mpi" ||
       std::find(backends.begin(), backends.end(), config.mpi_node_backend) == backends.end())) {
    problems.push_back("ARRVM_MPI_NODE_BACKEND: '" + config.mpi_node_backend +
                       "' is not a backend a rank can run");
  }
  if ((config.backend == "cpu" || (config.backend == "mpi" && config.mpi_node_backend == "cpu")) &&
      !on_path(config.cc)) {
    problems.push_back("ARRVM_CC: '" + config.cc +
                       "' is not an executable (on the PATH): the cpu backend "
                       "cannot compile kernels");
  }
  if (config.backend == "opencl") {
    try {
      (void)arrvm::make_backend(config);  // selects the device named by ARRVM_OPENCL_DEVICE
    } catch (const std::exception& e) {
      problems.push_back(std::string("ARRVM_OPENCL_DEVICE: ") + e.what());
    }
  }
  return problems;
}

int cmd_info() {
  std::cout << "arrvm " << arrvm_version() << "\n";
  std::cout << "backends:";
  for (const std::string& b : arrvm::backend_names()) std::cout << " " << b;
  std::cout << "\n";
  std::cout << arrvm::opencl_devices_report();
  std::vector<std::string> problems;
  const arrvm::Config config = arrvm::Config::from_env(&problems);
  std::cout << "configuration:\n";
  for (const auto& [name, value] : config.describe()) {
    std::cout << "  " << name << "=" << value << "\n";
  }
  std::cout << "passes (ARRVM_PASSES, in the order they run):\n";
  for (const arrvm::PassInfo& p : arrvm::pass_registry()) {
    std::cout << "  " << (config.pass_on(p.name) ? "on  " : "off ") << p.name << ": " << p.summary << "\n";
  }
  for (const std::string& p : check_config(config)) problems.push_back(p);
  if (problems.empty()) {
    std::cout << "configuration OK\n";
    return 0;
  }
  std::cout << "configuration problems:\n";
  for (const std::string& p : problems) std::cout << "  " << p << "\n";
  std::cerr << "arrvm info: " << problems.size() << " configuration problem"
            << (problems.size() == 1 ? "" : "s") << " (listed above)\n";
  return 2;
}

int cmd_replay(const std::vector<std::string>& args) {
  arrvm::cli::ReplayOptions options;
  try {
    options = arrvm::cli::parse_replay_args(args);
  } catch (const arrvm::cli::UsageError& e) {
    return usage_error(e.what());
  }
  if (!options.fusers.empty() || !options.backends.empty()) {
    if (options.cache_study || !options.dot_dir.empty() || !options.timeline.empty()) {
      return usage_error("--fusers/--backends do not combine with --cache-study, --dot or --timeline");
    }
    const std::vector<arrvm::cli::ComparisonRow> rows = arrvm::cli::compare(options);
    if (options.json) {
      std::cout << arrvm::cli::comparison_json(options, rows).dump() << "\n";
    } else {
      std::cout << arrvm::cli::comparison_text(options, rows);
    }
    for (const arrvm::cli::ComparisonRow& row : rows) {
      if (!row.ok()) return 1;
    }
    return 0;
  }
  if (options.cache_study) {
    const arrvm::cli::CacheStudy study = arrvm::cli::cache_study(options);
    if (options.json) {
      std::cout << arrvm::cli::cache_study_json(study).dump() << "\n";
    } else {
      std::cout << arrvm::cli::cache_study_text(study);
    }
    return study.verified() ? 0 : 1;
  }
  const arrvm::cli::ReplayResult result = arrvm::cli::replay(options);
  // Under mpirun every rank replays and checks; rank 0 reports.
  if (result.mpi && result.mpi->rank != 0) return result.verified() ? 0 : 1;
  if (!options.dot_dir.empty()) arrvm::cli::write_dot_files(options.dot_dir, result);
  if (options.json) {
    std::cout << arrvm::cli::report_json(options, result).dump() << "\n";
  } else {
    std::cout << arrvm::cli::report_text(options, result);
  }
  return result.verified() ? 0 : 1;
}

int cmd_bench(const std::vector<std::string>& args) {
  arrvm::cli::BenchOptions options;
  try {
    options = arrvm::cli::parse_bench_args(args);
  } catch (const arrvm::cli::UsageError& e) {
    return usage_error(e.what());
  }
  return arrvm::cli::run_bench(options, std::cout);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) return usage_error("no command given");
  const std::string cmd = argv[1];
  const std::vector<std::string> args(argv + 2, argv + argc);
  try {
    if (cmd == "replay") return cmd_replay(args);
    if (cmd == "info") {
      if (!args.empty()) return usage_error("info takes no arguments");
      return cmd_info();
    }
    if (cmd == "bench") return cmd_bench(args);
    if (cmd == "help" || cmd == "--help" || cmd == "-h") {
      std::cout << kUsage;
      return 0;
    }
    if (cmd == "--version" || cmd == "version") {
      std::cout << "arrvm " << arrvm_version() << "\n";
      return 0;
    }
    return usage_error("unknown command '" + cmd + "'");
  } catch (const std::bad_alloc&) {
    std::cerr << "arrvm: out of memory (a base array or a buffer of this command could not be allocated; "
                 "ARRVM_MEM_LIMIT bounds what the VM takes)\n";
    return 2;
  } catch (const std::exception& e) {
    // arrvm::Error (trace, configuration, runtime), BackendError (with its
    // log) and InternalError alike: the message is what the user needs.
    std::cerr << "arrvm: " << e.what() << "\n";
    return 2;
  }
}
