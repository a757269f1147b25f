// singleton: every instruction its own block, in stream order. O(n).
#include "fusion/algorithms.hpp"

namespace arrvm::fusion::singleton {

Partition fuse(const Graph& g, const CostModel&, const Options&) {
  return singleton_partition(g.size());
}

}  // namespace arrvm::fusion::singleton
