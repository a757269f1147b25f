// linear (seed 001 Sec. V-E): one pass over the batch; an instruction joins
// the current block unless it is not fusible with it. Blocks are runs of
// consecutive instructions, so their quotient graph is acyclic and stream
// order is a topological order. O(n * a), a = arrays per base in a block.
#include "fusion/algorithms.hpp"

namespace arrvm::fusion::linear {

Partition fuse(const Graph& g, const CostModel&, const Options&) {
  Partition p;
  BlockSummary current;
  for (uint32_t i = 0; i < g.size(); ++i) {
    const BlockSummary one = BlockSummary::of(g, i);
    if (p.blocks.empty() || !blocks_fusible(g, current, one)) {
      p.blocks.emplace_back();
      current = BlockSummary{};
    }
    p.blocks.back().push_back(i);
    current.absorb(one);
  }
  return p;
}

}  // namespace arrvm::fusion::linear
