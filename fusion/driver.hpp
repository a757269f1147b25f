// The fusion stage of the pipeline: batch -> partition, under the configured
// algorithm and cost model. (The merge cache will wrap this, in one place.)
#pragma once

#include <span>

#include "fusion/partition.hpp"
#include "vm/config.hpp"
#include "vm/instruction.hpp"

namespace arrvm {

// Throws Error naming the fuser if config.fuser is unknown.
Partition fuse_batch(std::span<const Instruction> batch, const Config& config);

// Throws Error if `name` is not a known fuser (checked when a VM starts).
void check_fuser_name(const std::string& name);

}  // namespace arrvm
