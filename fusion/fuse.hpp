// Fusion of one batch by name: the fuser and the cost model named by a
// Config, with no cache around it (the engine's FusionStage adds the merge
// cache and anytime fusion: engine/fusion_stage.hpp).
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include "vm/config.hpp"
#include "vm/instruction.hpp"
#include "vm/partition.hpp"

namespace arrvm {

namespace fusion {
class Graph;
}

// True for the fusers whose run is bounded by Config.fuse_time_limit rather
// than by the batch size (optimal, ilp).
bool is_exact_fuser(const std::string& name);

// Builds the WSP graph of `batch` and runs config.fuser under config.cost
// (time limit config.fuse_time_limit). Throws Error naming the fuser or the
// cost model if either is unknown.
Partition fuse_batch(std::span<const Instruction> batch, const Config& config);
// The same with the fuser named `fuser` instead of config.fuser.
Partition fuse_batch(const std::string& fuser, std::span<const Instruction> batch, const Config& config);
// The second half of fuse_batch: runs `fuser` on the WSP graph of the batch
// (the engine times building the graph and fusing as separate stages).
Partition fuse_graph(const std::string& fuser, const fusion::Graph& graph, const Config& config);

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
