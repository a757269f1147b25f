// libarrvm's logger (spdlog, to stderr, level from ARRVM_LOG).
#pragma once

#include <spdlog/spdlog.h>

namespace arrvm {

spdlog::logger& logger();

}  // namespace arrvm
