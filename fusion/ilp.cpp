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

// Parts above these sizes keep their warm start (see PartSolver).
constexpr std::size_t kMaxUnits = 1000;
constexpr std::size_t kMaxColumns = 8000;

// Merges the blocks of a legal partition of the units into `s`, each block's
// units in topological order (every step is then a legal merge: a unit on a
// path between the merged prefix and the next unit is in the block and
// comes before it).
void merge_blocks(BlockSet& s, const std::vector<std::vector<uint32_t>>& blocks,
                  const std::vector<uint32_t>& ids, const std::vector<uint32_t>& position) {
  for (std::vector<uint32_t> b : blocks) {
    std::sort(b.begin(), b.end(), [&](uint32_t x, uint32_t y) { return position[x] < position[y]; });
    uint32_t acc = ids[b[0]];
    for (std::size_t i = 1; i < b.size(); ++i) {
      const uint32_t next = s.find(ids[b[i]]);
      if (s.legal_merge(acc, next)) acc = s.merge(acc, next);
    }
  }
}

// Step 1, the fallback and the bound: the cheapest of greedy from single
// instructions, greedy from the units (`seed`, the warm start) and linear
// (O(n), and sometimes better than greedy: lattice_boltzmann at the default
// size is a batch too large for CBC that keeps the fallback, and linear's
// partition is 1% cheaper than greedy's), as optimal's seeds are.
struct Fallback {
  Partition partition;
  Cost cost = 0;
};

Fallback best_fallback(const Graph& g, const CostModel& cost, const Options& options, const BlockSet& seed) {
  BlockSet from_singletons(g, cost);
  greedy::merge_all_both_orders(from_singletons);
  Fallback best{from_singletons.partition(), from_singletons.cost()};
  if (seed.cost() < best.cost) best = {seed.partition(), seed.cost()};
  Partition lin = linear::fuse(g, cost, options);
  const Cost lc = cost.cost(g, lin);
  if (lc < best.cost) best = {std::move(lin), lc};
  return best;
}

// Step 2, the unit graph: the units (unintrusive blocks), their dependency
// successors, and the pairs of units that save something by sharing a block
// and may. False if the deadline struck first (the pair tests are O(k^2) for
// a model with a merge bonus).
bool build_unit_graph(const Graph& g, const CostModel& cost, const BlockSet& units,
                      Clock::time_point deadline, UnitGraph* ug) {
  ug->units = &units;
  ug->ids = units.blocks();
  ug->bonus = cost.merge_bonus(g);
  const bool filters = g.has_filters();
  const uint32_t k = static_cast<uint32_t>(ug->ids.size());
  ug->index.assign(g.size(), kNone);
  for (uint32_t u = 0; u < k; ++u) ug->index[ug->ids[u]] = u;
  ug->succ.resize(k);
  for (uint32_t u = 0; u < k; ++u)
    for (uint32_t s : units.successors(ug->ids[u])) ug->succ[u].push_back(ug->index[s]);
  for (uint32_t u = 0; u < k; ++u) {
    if (Clock::now() >= deadline) return false;
    const std::vector<uint32_t> others = ug->bonus > 0 ? ug->ids : units.partners(ug->ids[u]);
    for (uint32_t p : others) {
      const uint32_t w = ug->index[p];
      if (w <= u) continue;
      const Cost saving = units.saving(ug->ids[u], p);
      // (With a compress, a pair that shares a block only with the
      // compresses of its length classes is a pair too: the model adds
      // the rows that bring those in, PartModel::add_filter_rows.)
      const bool fusible = filters ? units.fusible_but_filters(ug->ids[u], p) : units.fusible(ug->ids[u], p);
      if (saving > 0 && fusible && !units.never_together(ug->ids[u], p)) ug->pairs.push_back({u, w, saving});
    }
  }
  return true;
}

// Step 3, the independent parts: components of the dependency edges and the
// pairs, small parts first, so that one hard part cannot starve the easy ones.
std::vector<std::vector<uint32_t>> independent_parts(const UnitGraph& ug) {
  const uint32_t k = static_cast<uint32_t>(ug.ids.size());
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
  std::stable_sort(parts.begin(), parts.end(),
                   [](const auto& a, const auto& b) { return a.size() < b.size(); });
  return parts;
}

// Step 4, the parts one by one: each gets its share of the time left, and
// keeps its warm start if it is trivial, too large, out of time or failed.
class PartSolver {
 public:
  PartSolver(const Graph& g, const CostModel& cost, const Options& options, const BlockSet& units,
             const UnitGraph& ug, const BlockSet& seed, Clock::time_point deadline, Report& rep)
      : g_(g),
        cost_(cost),
        options_(options),
        units_(units),
        ug_(ug),
        deadline_(deadline),
        rep_(rep),
        bohrium_(cost.counts_external_accesses()),
        verbose_(logger().should_log(spdlog::level::debug)) {
    // The warm start's block positions (topological over the whole batch),
    // and each unit's position in a topological order of the units.
    const Partition seed_partition = seed.partition();
    seed_pos_.assign(g.size(), 0);
    for (uint32_t i = 0; i < seed_partition.blocks.size(); ++i)
      for (uint32_t instr : seed_partition.blocks[i]) seed_pos_[instr] = i;
    unit_pos_.assign(ug.ids.size(), 0);
    const Partition order = units.partition();
    for (uint32_t i = 0; i < order.blocks.size(); ++i) unit_pos_[ug.index[order.blocks[i].front()]] = i;
    pairs_of_.assign(ug.ids.size(), 0);
    related_of_.assign(ug.ids.size(), 0);
    for (const Pair& p : ug.pairs) {
      ++pairs_of_[p.u];
      related_of_[p.u] += p.saving > ug.bonus;
    }
  }

  // The blocks of units chosen for all `parts`.
  Blocks solve(const std::vector<std::vector<uint32_t>>& parts) {
    big_parts_ = 0;
    for (const auto& part : parts) big_parts_ += part.size() >= 2;
    for (const auto& part : parts) solve_one(part);
    return std::move(chosen_);
  }

  const std::vector<uint32_t>& unit_pos() const { return unit_pos_; }

 private:
  void solve_one(const std::vector<uint32_t>& part) {
    // The warm start restricted to the part, as local groups in block order.
    std::map<uint32_t, std::vector<uint32_t>> seed_groups_by_pos;
    for (uint32_t i = 0; i < part.size(); ++i) seed_groups_by_pos[seed_pos_[ug_.ids[part[i]]]].push_back(i);
    Blocks seed_groups;
    for (auto& [pos, grp] : seed_groups_by_pos) seed_groups.push_back(std::move(grp));
    auto to_units = [&](Blocks groups) {
      for (auto& grp : groups)
        for (uint32_t& a : grp) a = part[a];
      return groups;
    };
    auto keep = [&](const Blocks& groups) { chosen_.insert(chosen_.end(), groups.begin(), groups.end()); };
    if (part.size() < 2) {
      keep(to_units(seed_groups));
      return;
    }
    ++rep_.parts;
    const auto now = Clock::now();
    if (now >= deadline_) {
      keep(to_units(seed_groups));
      --big_parts_;
      return;
    }
    // A part too large for CBC to make progress in the time we give it (and
    // whose model alone would take long to build) keeps its warm start.
    // With a merge bonus (robinson, machine) the stages before the full MIP
    // (the weighted or least-traffic stage, the fewest-blocks search) need
    // only the related pairs: a part too large for the full MIP still gets
    // them (search_only: the full MIP is not built).
    std::size_t part_pairs = 0, related_pairs = 0;
    for (uint32_t u : part) {
      part_pairs += pairs_of_[u];
      related_pairs += related_of_[u];
    }
    const bool too_large = part.size() > kMaxUnits || part.size() + part_pairs > kMaxColumns;
    const bool search_only = too_large && ug_.bonus > 0 && !options_.ilp_no_block_search &&
                             !options_.ilp_force_failure && part.size() <= kMaxUnits &&
                             part.size() + related_pairs <= kMaxColumns;
    if (too_large && !search_only) {
      ++rep_.too_large;
      keep(to_units(seed_groups));
      --big_parts_;
      return;
    }
    // This part's share of the time left.
    const auto part_deadline = now + (deadline_ - now) / std::max(big_parts_, 1);
    --big_parts_;
    // The exact cost of legal blocks of the part, and greedy merges on top
    // (on a block set holding these blocks, the rest of the batch as units).
    auto exact_cost = [&](const Blocks& blocks) { return groups_cost(to_units(blocks)); };
    auto improve = [&](const Blocks& blocks) {
      BlockSet s = units_;
      merge_blocks(s, to_units(blocks), ug_.ids, unit_pos_);
      greedy::merge_all(s);
      std::map<uint32_t, std::vector<uint32_t>> by_block;
      for (uint32_t a = 0; a < part.size(); ++a) by_block[s.find(ug_.ids[part[a]])].push_back(a);
      Blocks r;
      for (auto& [b, grp] : by_block) r.push_back(std::move(grp));
      return r;
    };
    // Legal: each block merges whole, in topological order, on the units.
    auto legal = [&](const Blocks& blocks) {
      BlockSet s = units_;
      merge_blocks(s, to_units(blocks), ug_.ids, unit_pos_);
      for (const auto& b : blocks)
        for (uint32_t a : b)
          if (s.find(ug_.ids[part[a]]) != s.find(ug_.ids[part[b.front()]])) return false;
      return true;
    };
    const PartResult r =
        solve_part(ug_, part, bohrium_, cost_, seed_groups, exact_cost, improve, legal, part_deadline,
                   verbose_, options_.ilp_force_failure, !options_.ilp_no_block_search, !search_only);
    rep_.columns += r.columns;
    rep_.rows += r.rows;
    rep_.mip_solves += r.mip_solves;
    rep_.cuts += r.cuts;
    rep_.block_searches += r.by_search;
    if (search_only && !r.optimal) {
      // Too large for the MIP, and the search gave up: the warm start, or the
      // weighted stage's partition if cheaper.
      ++rep_.too_large;
      keep(to_units(r.blocks.empty() ? seed_groups : r.blocks));
      return;
    }
    if (r.failed) {
      ++rep_.failed;
      logger().warn("fuser 'ilp': CBC failed on a part of {} units ({}); using the greedy partition",
                    part.size(), r.message);
      keep(to_units(seed_groups));
      return;
    }
    ++rep_.solved;
    const Blocks& found = r.blocks.empty() ? seed_groups : r.blocks;
    if (r.optimal) {
      ++rep_.proven_optimal;
      // At a proven optimum the MIP value is the exact cost of the part.
      if (std::abs(r.objective - static_cast<double>(exact_cost(found) - r.offset)) > 0.5) ++rep_.inexact;
    }
    if (verbose_) {
      logger().debug(
          "fuser 'ilp': part of {} units, {} columns, {} rows, {} MIP solves, {} cuts: {}, cost {}, greedy "
          "{}",
          part.size(), r.columns, r.rows, r.mip_solves, r.cuts, r.optimal ? "optimal" : "stopped",
          exact_cost(found), exact_cost(seed_groups));
    }
    keep(to_units(found));
  }

  Cost groups_cost(const Blocks& groups) const {
    Cost c = 0;
    for (const auto& group : groups) {
      BlockSummary s;
      for (uint32_t u : group) s.absorb(units_.summary(ug_.ids[u]));
      c += cost_.block_cost(g_, s);
    }
    return c;
  }

  const Graph& g_;
  const CostModel& cost_;
  const Options& options_;
  const BlockSet& units_;
  const UnitGraph& ug_;
  const Clock::time_point deadline_;
  Report& rep_;
  const bool bohrium_, verbose_;
  std::vector<uint32_t> seed_pos_, unit_pos_;
  std::vector<std::size_t> pairs_of_, related_of_;  // pairs (saving above the bonus) by their first unit
  int big_parts_ = 0;
  Blocks chosen_;  // blocks of units
};

}  // namespace

Partition fuse_report(const Graph& g, const CostModel& cost, const Options& options, Report* report) {
  Report local_report;
  Report& rep = report != nullptr ? *report : local_report;
  rep = Report{};
  const auto deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                           std::chrono::duration<double>(options.time_limit));
  BlockSet units(g, cost);
  unintrusive::merge_all(units);
  units.enable_reach_filter();
  BlockSet seed = units;  // greedy from the units: the warm start
  greedy::merge_all_both_orders(seed);
  const Fallback best = best_fallback(g, cost, options, seed);

  UnitGraph ug;
  const bool built = build_unit_graph(g, cost, units, deadline, &ug);
  rep.units = static_cast<int>(ug.ids.size());
  if (!built) return best.partition;
  rep.searched = true;

  PartSolver solver(g, cost, options, units, ug, seed, deadline, rep);
  const Blocks chosen = solver.solve(independent_parts(ug));

  // Step 5, the result: the chosen blocks into a block set (each part's
  // blocks are legal and no dependency edge joins two parts, so the whole is
  // legal), then greedy merges on top: nothing for proven parts, maybe
  // something after a part stopped at the limit. The fallback wins unless
  // this is legal and cheaper.
  BlockSet result_set = units;
  merge_blocks(result_set, chosen, ug.ids, solver.unit_pos());
  if (rep.solved > rep.proven_optimal) greedy::merge_all(result_set);
  Partition result = result_set.partition();
  const std::string problem = check_partition(g, result);
  if (!problem.empty()) {
    logger().warn("fuser 'ilp': the solver's partition is illegal ({}); using greedy", problem);
    return best.partition;
  }
  return cost.cost(g, result) < best.cost ? result : best.partition;
}

Partition fuse(const Graph& g, const CostModel& cost, const Options& options) {
  return fuse_report(g, cost, options, nullptr);
}

}  // namespace arrvm::fusion::ilp
