#include "fusion/algorithms.hpp"

namespace arrvm::fusion {

namespace {

// The one table of fusion algorithms (fusion/fusers.def).
constexpr Algorithm kAlgorithms[] = {
#define ARRVM_FUSER(ns, name, exact) {name, ns::fuse, exact},
#include "fusion/fusers.def"
#undef ARRVM_FUSER
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
