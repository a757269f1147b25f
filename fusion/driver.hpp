// The fusion stage of the pipeline: batch -> partition, under the configured
// algorithm and cost model. (The merge cache will wrap this, in one place.)
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include "fusion/partition.hpp"
#include "vm/config.hpp"
#include "vm/instruction.hpp"

namespace arrvm {

// Builds the WSP graph of `batch` and runs config.fuser under config.cost
// (time limit config.fuse_time_limit). Throws Error naming the fuser or the
// cost model if either is unknown.
Partition fuse_batch(std::span<const Instruction> batch, const Config& config);

// Throws Error if `name` is not a known fuser (checked when a VM starts).
void check_fuser_name(const std::string& name);

// Throws Error if `name` is not a known cost model.
void check_cost_name(const std::string& name);

// The cost of `partition` of `batch` under the cost model named `cost_model`
// (bohrium: bytes of external accesses). The partition must cover the batch.
// Throws Error for an unknown model.
int64_t partition_cost(std::span<const Instruction> batch, const Partition& partition,
                       const std::string& cost_model);

}  // namespace arrvm
