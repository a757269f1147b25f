#include "fusion/driver.hpp"

#include "fusion/algorithms.hpp"
#include "fusion/cost.hpp"
#include "fusion/graph.hpp"
#include "vm/error.hpp"

namespace arrvm {

Partition singleton_partition(std::size_t n) {
  Partition p;
  p.blocks.reserve(n);
  for (std::size_t i = 0; i < n; ++i) p.blocks.push_back({static_cast<uint32_t>(i)});
  return p;
}

void check_fuser_name(const std::string& name) {
  if (fusion::find_algorithm(name) != nullptr) return;
  std::string known;
  for (const fusion::Algorithm& a : fusion::algorithms())
    known += (known.empty() ? "" : ", ") + std::string(a.name);
  throw Error("unknown fuser '" + name + "' (known: " + known + ")");
}

void check_cost_name(const std::string& name) {
  fusion::make_cost_model(name);
}

Partition fuse_batch(std::span<const Instruction> batch, const Config& config) {
  check_fuser_name(config.fuser);
  const fusion::Algorithm* algorithm = fusion::find_algorithm(config.fuser);
  const std::unique_ptr<fusion::CostModel> cost = fusion::make_cost_model(config.cost);
  const fusion::Graph graph(batch);
  fusion::Options options;
  options.time_limit = config.fuse_time_limit;
  Partition p = algorithm->fuse(graph, *cost, options);
#ifndef NDEBUG
  const std::string problem = fusion::check_partition(graph, p);
  if (!problem.empty())
    throw InternalError("fuser '" + config.fuser + "' returned an illegal partition: " + problem);
#endif
  return p;
}

int64_t partition_cost(std::span<const Instruction> batch, const Partition& partition,
                       const std::string& cost_model) {
  const std::unique_ptr<fusion::CostModel> cost = fusion::make_cost_model(cost_model);
  const fusion::Graph graph(batch);
  return cost->cost(graph, partition);
}

}  // namespace arrvm
