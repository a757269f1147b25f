// libarrvm's logger (spdlog, to stderr, level from ARRVM_LOG).
#pragma once

#include <cstdint>
#include <string>

#include <spdlog/spdlog.h>

namespace arrvm {

spdlog::logger& logger();

// A backend compiled `kernels` kernels (cpu: one; opencl: one program of
// several) in `seconds`; `compile_total_s` is the VM's compile time so far,
// this compile included. Logs it at info; the first time in a process that
// compiling has taken more than a second, says so at warn (the default
// level), so that a cold run is not silently slow. `cache_dir` is where the
// results are kept (empty: nowhere on disk).
void log_compile(const char* backend, uint64_t kernels, double seconds, double compile_total_s,
                 const std::string& cache_dir);

}  // namespace arrvm
