#include "fusion/algorithms.hpp"

namespace arrvm::fusion {

namespace {

// The one table of fusion algorithms.
constexpr Algorithm kAlgorithms[] = {
    {"singleton", singleton::fuse},     {"linear", linear::fuse},   {"greedy", greedy::fuse},
    {"unintrusive", unintrusive::fuse}, {"optimal", optimal::fuse},
    {"ilp", ilp::fuse},
};

}  // namespace

std::span<const Algorithm> algorithms() {
  return kAlgorithms;
}

const Algorithm* find_algorithm(std::string_view name) {
  for (const Algorithm& a : kAlgorithms) {
    if (name == a.name) return &a;
  }
  return nullptr;
}

}  // namespace arrvm::fusion
