#include "fusion/driver.hpp"

#include "vm/error.hpp"

namespace arrvm {

Partition singleton_partition(std::size_t n) {
  Partition p;
  p.blocks.reserve(n);
  for (std::size_t i = 0; i < n; ++i) p.blocks.push_back({static_cast<uint32_t>(i)});
  return p;
}

void check_fuser_name(const std::string& name) {
  // Until the fusion engine lands every fuser name maps to singleton
  // partitions; unknown names are still rejected so typos surface early.
  static const char* const kKnown[] = {"singleton", "linear", "greedy",
                                       "unintrusive", "optimal", "ilp"};
  for (const char* k : kKnown) {
    if (name == k) return;
  }
  throw Error("unknown fuser '" + name +
              "' (known: singleton, linear, greedy, unintrusive, optimal, ilp)");
}

Partition fuse_batch(std::span<const Instruction> batch, const Config& config) {
  check_fuser_name(config.fuser);
  return singleton_partition(batch.size());
}

}  // namespace arrvm
