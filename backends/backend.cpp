#include "backends/backend.hpp"

#include "vm/error.hpp"

namespace arrvm {

bool BackendStats::has(std::string_view name) const {
  for (const auto& [n, v] : counters) {
    if (n == name) return true;
  }
  for (const auto& [n, v] : labels) {
    if (n == name) return true;
  }
  return false;
}

double BackendStats::get(std::string_view name) const {
  for (const auto& [n, v] : counters) {
    if (n == name) return v;
  }
  throw InternalError("backend " + backend + " has no counter '" + std::string(name) + "'");
}

const std::string& BackendStats::label(std::string_view name) const {
  for (const auto& [n, v] : labels) {
    if (n == name) return v;
  }
  throw InternalError("backend " + backend + " has no label '" + std::string(name) + "'");
}

}  // namespace arrvm
