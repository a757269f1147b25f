// ilp: the formulation and its reductions are described in fusion/ilp.hpp.
#include "fusion/ilp.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <functional>
#include <map>
#include <numeric>
#include <queue>
#include <set>
#include <string>

#include "fusion/ilp_part.hpp"
#include "vm/log.hpp"

namespace arrvm::fusion::ilp {

namespace {

// Parts above these sizes keep their warm start (see fuse_report).
constexpr std::size_t kMaxUnits = 1000;
constexpr std::size_t kMaxColumns = 8000;

// Merges the blocks of a legal partition of the units into `s`, each block's
// units in topological order (every step is then a legal merge: a unit on a
// path between the merged prefix and the next unit is in the block and
// comes before it).
void merge_blocks(BlockSet& s, const std::vector<std::vector<uint32_t>>& blocks, const std::vector<uint32_t>& ids,
                  const std::vector<uint32_t>& position) {
  for (std::vector<uint32_t> b : blocks) {
    std::sort(b.begin(), b.end(), [&](uint32_t x, uint32_t y) { return position[x] < position[y]; });
    uint32_t acc = ids[b[0]];
    for (std::size_t i = 1; i < b.size(); ++i) {
      const uint32_t next = s.find(ids[b[i]]);
      if (s.legal_merge(acc, next)) acc = s.merge(acc, next);
    }
  }
}

}  // namespace

Partition fuse_report(const Graph& g, const CostModel& cost, const Options& options, Report* report) {
  Report local_report;
  Report& rep = report != nullptr ? *report : local_report;
  rep = Report{};
  const auto deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                           std::chrono::duration<double>(options.time_limit));
  // Greedy from single instructions: the fallback and the bound.
  BlockSet from_singletons(g, cost);
  greedy::merge_all(from_singletons);
  Partition best = from_singletons.partition();
  Cost best_cost = from_singletons.cost();

  BlockSet units(g, cost);
  unintrusive::merge_all(units);
  units.enable_reach_filter();
  BlockSet seed = units;  // greedy from the units: the warm start
  greedy::merge_all(seed);
  if (seed.cost() < best_cost) {
    best = seed.partition();
    best_cost = seed.cost();
  }
  // Linear too, as optimal's seeds do: it is O(n) and sometimes beats greedy
  // (lattice_boltzmann at the default size: a batch too large for CBC keeps
  // the fallback, and linear's partition is 1% cheaper than greedy's).
  {
    Partition lin = linear::fuse(g, cost, options);
    const Cost lc = cost.cost(g, lin);
    if (lc < best_cost) {
      best = std::move(lin);
      best_cost = lc;
    }
  }

  UnitGraph ug;
  ug.units = &units;
  ug.ids = units.blocks();
  ug.bonus = cost.merge_bonus(g);
  const uint32_t k = static_cast<uint32_t>(ug.ids.size());
  rep.units = static_cast<int>(k);
  ug.index.assign(g.size(), kNone);
  for (uint32_t u = 0; u < k; ++u) ug.index[ug.ids[u]] = u;
  ug.succ.resize(k);
  for (uint32_t u = 0; u < k; ++u)
    for (uint32_t s : units.successors(ug.ids[u])) ug.succ[u].push_back(ug.index[s]);
  for (uint32_t u = 0; u < k; ++u) {
    // O(k^2) pair tests for a model with a merge bonus: bounded by the limit.
    if (Clock::now() >= deadline) return best;
    const std::vector<uint32_t> others = ug.bonus > 0 ? ug.ids : units.partners(ug.ids[u]);
    for (uint32_t p : others) {
      const uint32_t w = ug.index[p];
      if (w <= u) continue;
      const Cost saving = units.saving(ug.ids[u], p);
      if (saving > 0 && units.fusible(ug.ids[u], p) && !units.never_together(ug.ids[u], p))
        ug.pairs.push_back({u, w, saving});
    }
  }
  rep.searched = true;
  std::vector<std::size_t> pairs_of(k, 0);  // pairs by their first unit
  for (const Pair& p : ug.pairs) ++pairs_of[p.u];
  // Independent parts: components of the dependency edges and the pairs.
  std::vector<uint32_t> uf(k);
  std::iota(uf.begin(), uf.end(), 0u);
  auto join = [&](uint32_t a, uint32_t b) {
    a = uf_root(uf, a);
    b = uf_root(uf, b);
    if (a != b) uf[std::max(a, b)] = std::min(a, b);
  };
  for (uint32_t u = 0; u < k; ++u)
    for (uint32_t w : ug.succ[u]) join(u, w);
  for (const Pair& p : ug.pairs) join(p.u, p.w);
  std::map<uint32_t, std::vector<uint32_t>> parts_by_root;
  for (uint32_t u = 0; u < k; ++u) parts_by_root[uf_root(uf, u)].push_back(u);
  std::vector<std::vector<uint32_t>> parts;
  for (auto& [r, part] : parts_by_root) parts.push_back(std::move(part));
  // Small parts first, so that one hard part cannot starve the easy ones.
  std::stable_sort(parts.begin(), parts.end(),
                   [](const auto& a, const auto& b) { return a.size() < b.size(); });

  // The warm start's block positions (topological over the whole batch),
  // and each unit's position in a topological order of the units.
  const Partition seed_partition = seed.partition();
  std::vector<uint32_t> seed_pos(g.size(), 0);
  for (uint32_t i = 0; i < seed_partition.blocks.size(); ++i)
    for (uint32_t instr : seed_partition.blocks[i]) seed_pos[instr] = i;
  std::vector<uint32_t> unit_pos(k, 0);
  {
    const Partition order = units.partition();
    for (uint32_t i = 0; i < order.blocks.size(); ++i) unit_pos[ug.index[order.blocks[i].front()]] = i;
  }

  const bool bohrium = cost.counts_external_accesses();
  const bool verbose = logger().should_log(spdlog::level::debug);
  int big_parts = 0;
  for (const auto& part : parts) big_parts += part.size() >= 2;
  std::vector<std::vector<uint32_t>> chosen;  // blocks of units
  auto groups_cost = [&](const std::vector<std::vector<uint32_t>>& groups) {
    Cost c = 0;
    for (const auto& group : groups) {
      BlockSummary s;
      for (uint32_t u : group) s.absorb(units.summary(ug.ids[u]));
      c += cost.block_cost(g, s);
    }
    return c;
  };
  for (const auto& part : parts) {
    // The warm start restricted to the part, as local groups in block order.
    std::map<uint32_t, std::vector<uint32_t>> seed_groups_by_pos;
    for (uint32_t i = 0; i < part.size(); ++i) seed_groups_by_pos[seed_pos[ug.ids[part[i]]]].push_back(i);
    std::vector<std::vector<uint32_t>> seed_groups;
    for (auto& [pos, grp] : seed_groups_by_pos) seed_groups.push_back(std::move(grp));
    auto to_units = [&](std::vector<std::vector<uint32_t>> groups) {
      for (auto& grp : groups)
        for (uint32_t& a : grp) a = part[a];
      return groups;
    };
    auto keep = [&](const std::vector<std::vector<uint32_t>>& groups) {
      chosen.insert(chosen.end(), groups.begin(), groups.end());
    };
    if (part.size() < 2) {
      keep(to_units(seed_groups));
      continue;
    }
    ++rep.parts;
    const auto now = Clock::now();
    if (now >= deadline) {
      keep(to_units(seed_groups));
      --big_parts;
      continue;
    }
    // A part too large for CBC to make progress in the time we give it (and
    // whose model alone would take long to build) keeps its warm start.
    std::size_t part_pairs = 0;
    for (uint32_t u : part) part_pairs += pairs_of[u];
    if (part.size() > kMaxUnits || part.size() + part_pairs > kMaxColumns) {
      ++rep.too_large;
      keep(to_units(seed_groups));
      --big_parts;
      continue;
    }
    // This part's share of the time left.
    const auto part_deadline = now + (deadline - now) / std::max(big_parts, 1);
    --big_parts;
    // The exact cost of legal blocks of the part, and greedy merges on top
    // (on a block set holding these blocks, the rest of the batch as units).
    auto exact_cost = [&](const Blocks& blocks) { return groups_cost(to_units(blocks)); };
    auto improve = [&](const Blocks& blocks) {
      BlockSet s = units;
      merge_blocks(s, to_units(blocks), ug.ids, unit_pos);
      greedy::merge_all(s);
      std::map<uint32_t, std::vector<uint32_t>> by_block;
      for (uint32_t a = 0; a < part.size(); ++a) by_block[s.find(ug.ids[part[a]])].push_back(a);
      Blocks r;
      for (auto& [b, grp] : by_block) r.push_back(std::move(grp));
      return r;
    };
    const PartResult r = solve_part(ug, part, bohrium, cost, seed_groups, exact_cost, improve, part_deadline, verbose,
                                    options.ilp_force_failure);
    rep.columns += r.columns;
    rep.rows += r.rows;
    rep.mip_solves += r.mip_solves;
    rep.cuts += r.cuts;
    if (r.failed) {
      ++rep.failed;
      logger().warn("fuser 'ilp': CBC failed on a part of {} units ({}); using the greedy partition",
                    part.size(), r.message);
      keep(to_units(seed_groups));
      continue;
    }
    ++rep.solved;
    const Blocks& found = r.blocks.empty() ? seed_groups : r.blocks;
    if (r.optimal) {
      ++rep.proven_optimal;
      // At a proven optimum the MIP value is the exact cost of the part.
      if (std::abs(r.objective - static_cast<double>(exact_cost(found) - r.offset)) > 0.5) ++rep.inexact;
    }
    if (verbose) {
      logger().debug("fuser 'ilp': part of {} units, {} columns, {} rows, {} MIP solves, {} cuts: {}, cost {}, greedy {}",
                     part.size(), r.columns, r.rows, r.mip_solves, r.cuts, r.optimal ? "optimal" : "stopped",
                     exact_cost(found), exact_cost(seed_groups));
    }
    keep(to_units(found));
  }
  // The chosen blocks into a block set (each part's blocks are legal and no
  // dependency edge joins two parts, so the whole is legal), then greedy
  // merges on top: nothing for proven parts, maybe something after a part
  // stopped at the limit.
  BlockSet result_set = units;
  merge_blocks(result_set, chosen, ug.ids, unit_pos);
  if (rep.solved > rep.proven_optimal) greedy::merge_all(result_set);
  Partition result = result_set.partition();
  const std::string problem = check_partition(g, result);
  if (!problem.empty()) {
    logger().warn("fuser 'ilp': the solver's partition is illegal ({}); using greedy", problem);
    return best;
  }
  const Cost c = cost.cost(g, result);
  return c < best_cost ? result : best;
}

Partition fuse(const Graph& g, const CostModel& cost, const Options& options) {
  return fuse_report(g, cost, options, nullptr);
}

}  // namespace arrvm::fusion::ilp
