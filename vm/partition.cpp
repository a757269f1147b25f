#include "vm/partition.hpp"

namespace arrvm {

Partition singleton_partition(std::size_t n) {
  Partition p;
  p.blocks.reserve(n);
  for (std::size_t i = 0; i < n; ++i) p.blocks.push_back({static_cast<uint32_t>(i)});
  return p;
}

}  // namespace arrvm
