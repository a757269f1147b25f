#include "vm/log.hpp"

#include <atomic>

#include <spdlog/sinks/stdout_color_sinks.h>

namespace arrvm {

spdlog::logger& logger() {
  // Our own logger, so that an application's spdlog set-up and ours do not
  // interfere; created once, thread-safely, on first use.
  static std::shared_ptr<spdlog::logger> log = [] {
    auto l =
        std::make_shared<spdlog::logger>("arrvm", std::make_shared<spdlog::sinks::stderr_color_sink_mt>());
    l->set_level(spdlog::level::warn);
    l->set_pattern("[arrvm %l] %v");
    return l;
  }();
  return *log;
}

void log_compile(const char* backend, uint64_t kernels, double seconds, double compile_total_s,
                 const std::string& cache_dir) {
  logger().info("{}: compiled {} kernel{} in {:.3f} s", backend, kernels, kernels == 1 ? "" : "s", seconds);
  static std::atomic<bool> noted{false};
  if (compile_total_s <= 1.0 || noted.exchange(true)) return;
  if (cache_dir.empty()) {
    logger().warn(
        "{}: compiling kernels has taken {:.1f} s so far (the kernel cache is not kept on disk, so every "
        "process compiles them again)",
        backend, compile_total_s);
  } else {
    logger().warn(
        "{}: compiling kernels has taken {:.1f} s so far (a cold kernel cache); they are cached in {}, "
        "so later runs start faster",
        backend, compile_total_s, cache_dir);
  }
}

}  // namespace arrvm
