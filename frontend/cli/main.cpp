// The `arrvm` program: replay a trace, run benchmarks, describe the build.
// Exit codes: 0 success, 1 replay mismatch, 2 usage, trace or runtime error.
#include <cstdio>
#include <exception>
#include <iostream>
#include <string>
#include <vector>

#include "backends/backend.hpp"
#include "backends/opencl/opencl_backend.hpp"
#include "frontend/cli/bench.hpp"
#include "frontend/cli/cache_study.hpp"
#include "frontend/cli/replay.hpp"
#include "vm/config.hpp"
#include "vm/error.hpp"

#ifndef ARRVM_VERSION
#define ARRVM_VERSION "unknown"
#endif

namespace {

constexpr const char* kUsage =
    "usage: arrvm <command> [arguments]\n"
    "\n"
    "commands:\n"
    "  replay TRACE [--backend B] [--fuser F] [--cost C] [--repeat N] [--json]\n"
    "               [--rtol X] [--atol X] [--dot DIR] [--anytime on|off] [--cache-study]\n"
    "      run a trace, check every sync against it, print a report;\n"
    "      exit 0 if verified, 1 on a mismatch, 2 on an error. --cache-study:\n"
    "      time it with no / cold / warm merge cache for linear, greedy, optimal, ilp\n"
    "  bench [NAME...] [--fusers F1,F2,...] [--backends B1,...] [--size tiny|default|paper]\n"
    "        [--repeat N] [--record DIR] [--cost C] [--python PATH]\n"
    "      run the benchmark programs (default: all) under each backend and fuser,\n"
    "      check their checksums against NumPy, print time, partition cost,\n"
    "      kernels, fusion time and speed-up over NumPy; --record DIR writes\n"
    "      DIR/NAME.trace; exit 0 if all match, 1 on a mismatch, 2 on an error\n"
    "  info              version, backends, devices, configuration in force\n"
    "\n"
    "The ARRVM_* environment variables set the configuration; flags override them.\n";

int usage_error(const std::string& what) {
  std::cerr << "arrvm: " << what << "\n\n" << kUsage;
  return 2;
}

int cmd_info() {
  std::cout << "arrvm " << ARRVM_VERSION << "\n";
  std::cout << "backends:";
  for (const std::string& b : arrvm::backend_names()) std::cout << " " << b;
  std::cout << "\n";
  std::cout << arrvm::opencl_devices_report();
  // Config::from_env throws for a malformed variable; that is worth seeing here.
  const arrvm::Config config = arrvm::Config::from_env();
  std::cout << "configuration:\n";
  for (const auto& [name, value] : config.describe()) {
    std::cout << "  " << name << "=" << value << "\n";
  }
  return 0;
}

int cmd_replay(const std::vector<std::string>& args) {
  arrvm::cli::ReplayOptions options;
  try {
    options = arrvm::cli::parse_replay_args(args);
  } catch (const arrvm::cli::UsageError& e) {
    return usage_error(e.what());
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
    return usage_error("unknown command '" + cmd + "'");
  } catch (const std::exception& e) {
    // arrvm::Error (trace, configuration, runtime), BackendError (with its
    // log) and InternalError alike: the message is what the user needs.
    std::cerr << "arrvm: " << e.what() << "\n";
    return 2;
  }
}
