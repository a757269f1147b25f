// A partition of a batch into blocks (kernels).
#pragma once

#include <cstdint>
#include <vector>

namespace arrvm {

// Instruction indices into the batch, ascending within a block. Blocks are
// listed in an order in which they can execute (every dependency respected).
using Block = std::vector<uint32_t>;

struct Partition {
  std::vector<Block> blocks;
};

// Every instruction its own block, in stream order.
Partition singleton_partition(std::size_t n_instructions);

}  // namespace arrvm
