#include "engine/fusion_stage.hpp"

#include <optional>

#include "engine/anytime.hpp"
#include "fusion/block_set.hpp"
#include "fusion/graph.hpp"
#include "vm/error.hpp"
#include "vm/log.hpp"
#include "vm/timeline.hpp"

namespace arrvm {

namespace {

// The time limit changes what an exact fuser returns, so it is part of
// their keys; the other fusers ignore it.
double key_time_limit(const Config& c) {
  return is_exact_fuser(c.fuser) ? c.fuse_time_limit : 0.0;
}

}  // namespace

FusionStage::FusionStage(const Config& config, FusionRules rules)
    : config_(config),
      rules_(rules),
      keys_(config.fuser, config.cost, key_time_limit(config), rules),
      cache_(config.merge_cache_mode(), config.cache_dir) {
  check_fuser_name(config_.fuser);
  check_cost_name(config_.cost);
  // Without a cache there is nowhere to put the better partition.
  if (config_.anytime && is_exact_fuser(config_.fuser) && cache_.enabled()) {
    worker_ =
        std::make_unique<fusion::AnytimeWorker>(config_.fuser, config_.cost, config_.fuse_time_limit, rules_);
  }
}

FusionStage::~FusionStage() {
  if (!worker_) return;
  worker_->stop();
  // Solves that finished after the last flush: kept for the next process.
  for (const fusion::AnytimeResult& r : worker_->take_results())
    cache_.store_to_disk(r.key, r.partition, false);
}

void FusionStage::wait_for_background() {
  if (worker_) worker_->wait_idle();
}

Partition FusionStage::partition(std::span<const Instruction> batch, Profile& profile) {
  {
    ScopedTimer t(&profile.merge_cache_s);
    if (worker_) apply_background(profile);
    if (cache_.enabled()) {
      keys_.build(batch, &key_);
      bool from_disk = false;
      MergeEntry* e = cache_.find(key_, &from_disk);
      if (e != nullptr && from_disk) {
        // The disk may hold a partition from another build of libarrvm,
        // whose fusibility rules differed: never run an illegal one.
        const fusion::Graph graph(batch, rules_);
        if (const std::string problem = fusion::check_partition(graph, e->partition); !problem.empty()) {
          logger().warn("merge cache: ignoring an illegal partition in {} ({}); recomputing it",
                        cache_.file_of(key_), problem);
          cache_.erase(key_);
          e = nullptr;
        }
      }
      // Anytime off wants the exact fuser's partition, not greedy's.
      if (e != nullptr && e->provisional && !worker_) e = nullptr;
      if (e != nullptr) {
        logger().debug("merge cache: hit ({}{}) for a batch of {} instructions -> {} blocks",
                       from_disk ? "disk" : "memory", e->provisional ? ", provisional" : "", batch.size(),
                       e->partition.blocks.size());
        ++profile.merge_cache_hits;
        if (e->provisional && !e->upgrade_queued) e->upgrade_queued = submit(batch, key_, e->partition);
        return e->partition;
      }
    }
    ++profile.merge_cache_misses;
  }
  return fuse_miss(batch, profile);
}

Partition FusionStage::fuse_miss(std::span<const Instruction> batch, Profile& profile) {
  const bool provisional = worker_ != nullptr;
  Partition p;
  const double before = profile.fusion_s;
  // Two named stages, both fusion_s: the WSP graph, then the fuser on it.
  {
    std::optional<fusion::Graph> graph;
    {
      ScopedSpan t(profile, &profile.fusion_s, "graph", "arrvm",
                   {{"instructions", static_cast<int64_t>(batch.size())}});
      graph.emplace(batch, rules_);
    }
    ScopedSpan t(profile, &profile.fusion_s, "fuse");
    p = fuse_graph(provisional ? "greedy" : config_.fuser, *graph, config_);
    t.arg("blocks", static_cast<int64_t>(p.blocks.size()));
  }
  logger().debug(
      "fusion: {} on {} instructions -> {} blocks in {:.4f} s{}", provisional ? "greedy" : config_.fuser,
      batch.size(), p.blocks.size(), profile.fusion_s - before,
      provisional ? std::string(" (provisional; ") + config_.fuser + " runs in the background)" : "");
  if (!cache_.enabled()) return p;
  ScopedTimer t(&profile.merge_cache_s);
  MergeEntry* e = cache_.put(key_, p, provisional);
  if (provisional) e->upgrade_queued = submit(batch, key_, p);
  return e->partition;
}

bool FusionStage::submit(std::span<const Instruction> batch, const MergeKey& key,
                         const Partition& provisional) {
  fusion::AnytimeJob job;
  job.key = key;
  job.batch.assign(batch.begin(), batch.end());
  job.provisional = provisional;
  return worker_->submit(std::move(job));
}

void FusionStage::apply_background(Profile& profile) {
  for (fusion::AnytimeResult& r : worker_->take_results()) {
    profile.fusion_background_s += r.seconds;
    if (!r.error.empty()) logger().warn("anytime fusion: {}", r.error);
    if (r.improved) ++profile.merge_cache_upgrades;
    // Final either way: a failed or no better solve would fail again.
    cache_.put(r.key, std::move(r.partition), false);
  }
}

}  // namespace arrvm
