#include "vm/log.hpp"

#include <spdlog/sinks/stdout_color_sinks.h>

namespace arrvm {

spdlog::logger& logger() {
  // Our own logger, so that an application's spdlog set-up and ours do not
  // interfere; created once, thread-safely, on first use.
  static std::shared_ptr<spdlog::logger> log = [] {
    auto l = std::make_shared<spdlog::logger>(
        "arrvm", std::make_shared<spdlog::sinks::stderr_color_sink_mt>());
    l->set_level(spdlog::level::warn);
    l->set_pattern("[arrvm %l] %v");
    return l;
  }();
  return *log;
}

}  // namespace arrvm
