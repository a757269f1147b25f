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
  // Nonzero: the id of the merge-cache entry the partition came from. Every
  // batch partitioned under one id has, block by block, the same
  // instructions up to base ids, constant values and a shift of all views of
  // a base alike (the merge key), so a backend may keep per-block work
  // (lowering) under (structure, block), re-binding bases, offsets and
  // constants (codegen::rebind).
  uint64_t structure = 0;
};

// What a backend can run as one kernel, beyond the fusibility rules that
// hold for every backend (fusion/README.md). The graph and so every fuser
// respects them, and they are part of the merge cache's key: a backend
// never has to split a block it is given.
struct FusionRules {
  // Reductions, scans, gathers and scatters each form a block of their own
  // (with free/sync only): the mpi backend runs them with collectives
  // between its node kernels, and fuses only elementwise instructions.
  bool sweeps_alone = false;
  // A block over (m) and the next over (m, ...) may become one row nest
  // (vm/row_nest.hpp; fusion/row_nests.hpp): the cpu backend lowers them.
  bool row_nests = false;

  bool operator==(const FusionRules&) const = default;
};

// Every instruction its own block, in stream order.
Partition singleton_partition(std::size_t n_instructions);

}  // namespace arrvm
