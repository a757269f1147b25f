#include "fusion/fuse.hpp"

#include <memory>

#include "fusion/algorithms.hpp"
#include "fusion/block_set.hpp"
#include "fusion/cost.hpp"
#include "fusion/graph.hpp"
#include "fusion/row_nests.hpp"
#include "vm/error.hpp"

namespace arrvm {

void check_fuser_name(const std::string& name) {
  if (fusion::find_algorithm(name) != nullptr) return;
  std::string known;
  for (const fusion::Algorithm& a : fusion::algorithms()) {
    if (!known.empty()) known += ", ";
    known += a.name;  // (appended, not "" + name: GCC 12's false -Wstringop-overflow under LTO)
  }
  throw Error("unknown fuser '" + name + "' (known: " + known + ")");
}

void check_cost_name(const std::string& name) {
  fusion::make_cost_model(name);
}

Partition fuse_batch(const std::string& fuser, std::span<const Instruction> batch, const Config& config) {
  check_fuser_name(fuser);
  return fuse_graph(fuser, fusion::Graph(batch), config);
}

Partition fuse_graph(const std::string& fuser, const fusion::Graph& graph, const Config& config) {
  check_fuser_name(fuser);
  const fusion::Algorithm* algorithm = fusion::find_algorithm(fuser);
  const std::unique_ptr<fusion::CostModel> cost = fusion::make_cost_model(config.cost);
  fusion::Options options;
  options.time_limit = config.fuse_time_limit;
  Partition p = fusion::run_algorithm(*algorithm, graph, *cost, options);
#ifndef NDEBUG
  const std::string problem = fusion::check_partition(graph, p);
  if (!problem.empty())
    throw InternalError("fuser '" + fuser + "' returned an illegal partition: " + problem);
#endif
  return p;
}

bool is_exact_fuser(const std::string& name) {
  const fusion::Algorithm* a = fusion::find_algorithm(name);
  return a != nullptr && a->exact;
}

Partition fuse_batch(std::span<const Instruction> batch, const Config& config) {
  return fuse_batch(config.fuser, batch, config);
}

int64_t partition_cost(std::span<const Instruction> batch, const Partition& partition,
                       const std::string& cost_model) {
  const std::unique_ptr<fusion::CostModel> cost = fusion::make_cost_model(cost_model);
  const fusion::Graph graph(batch);
  return cost->cost(graph, partition);
}

}  // namespace arrvm
