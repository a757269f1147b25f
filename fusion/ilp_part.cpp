#include "fusion/ilp_part.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <optional>
#include <queue>
#include <set>

#include "fusion/ilp_blocks_search.hpp"
#include "fusion/ilp_cost_search.hpp"
#include "fusion/ilp_model.hpp"
#include "fusion/ilp_part_model.hpp"
#include "vm/log.hpp"

namespace arrvm::fusion::ilp {

namespace {

// Walk-cut separation on the LP relaxation before each MIP solve.
constexpr int kCutRounds = 20;
constexpr std::size_t kCutsPerRound = 200;
// States the fewest-blocks search may expand before CBC takes over.
constexpr long kMaxSearchStates = 200'000;

// Each unit's block index.
std::vector<uint32_t> groups(uint32_t units, const Blocks& blocks) {
  std::vector<uint32_t> group(units);
  for (uint32_t i = 0; i < blocks.size(); ++i)
    for (uint32_t a : blocks[i]) group[a] = i;
  return group;
}

// The walk cuts x violates (at most kCutsPerRound, separated until
// `until`) and the closure cuts of `blocks`, x's blocks (needed only when
// the batch has a compress).
std::vector<MipCut> violated(const PartModel& model, const std::vector<double>& x, const Blocks& blocks,
                             Clock::time_point until) {
  std::vector<MipCut> cuts = model.separate(x, kCutsPerRound, until);
  for (MipCut& c : model.closure_cuts(x, blocks)) cuts.push_back(std::move(c));
  return cuts;
}

// How solve_part scores and improves legal blocks of the part.
struct PartScoring {
  std::function<double(const Blocks&)> value;    // exact cost, on the MIP's scale
  std::function<Blocks(const Blocks&)> improve;  // greedy merges on top
  std::function<bool(const Blocks&)> legal;      // whether the blocks are legal
};

// Cutting-plane loop: separate walk cuts on the LP, solve the MIP, and
// repeat while its solution links units into an illegal block (then its
// walk cuts are added). Every cut is valid for every legal partition, so
// each MIP optimum is a lower bound of the part's optimum: it is proven
// when a legal solution reaches it. An illegal solution is repaired
// (PartModel::legal_part, greedy merges) into the incumbent that the next
// MIP starts from.
PartResult solve_loop(PartModel& model, const Blocks& warm, const PartScoring& scoring,
                      Clock::time_point deadline, bool verbose) {
  PartResult res;
  Blocks incumbent = warm;
  double incumbent_value = scoring.value(warm);
  auto group_of = [&](const Blocks& blocks) { return groups(model.unit_count(), blocks); };
  bool improved = false;
  for (;;) {
    // Separation rounds get at most a quarter of the time left.
    const auto rounds_end = Clock::now() + (deadline - Clock::now()) / 4;
    for (int round = 0; round < kCutRounds && Clock::now() < rounds_end; ++round) {
      double lp = 0;
      const std::vector<double> x = solve_lp(model.problem(), &lp);
      if (x.empty()) break;
      std::vector<MipCut> cuts = model.separate(x, kCutsPerRound, rounds_end);
      if (cuts.empty()) break;
      res.cuts += static_cast<int>(cuts.size());
      model.add_cuts(std::move(cuts));
    }
    const double left = std::chrono::duration<double>(deadline - Clock::now()).count();
    if (left <= 0) break;
    // The same rows inside CBC's tree, on every node's LP solution: the
    // bound rises there, instead of one MIP solve a round of rows.
    const Separator separate = [&model, deadline](const std::vector<double>& x) {
      return violated(model, x, model.has_filters() ? model.blocks_of(x) : Blocks{}, deadline);
    };
    const MipResult r = solve_mip(model.problem(), model.solution_of(group_of(incumbent)),
                                  std::max(left, 0.0), verbose, separate);
    ++res.mip_solves;
    if (r.status == MipResult::Status::Failed) {
      res.failed = true;
      res.message = r.message;
      return res;
    }
    const bool bound = r.status == MipResult::Status::Optimal;
    Blocks found = model.blocks_of(r.x);
    std::vector<MipCut> cuts = violated(model, r.x, found, Clock::time_point::max());
    if (!cuts.empty()) {
      // Two repairs, the cheaper kept: split the illegal blocks into single
      // units, or into groups that may share a block, then greedy merges.
      Blocks split = scoring.improve(model.legal_part(found));
      Blocks grouped = scoring.improve(model.may_groups(std::move(found)));
      found = scoring.value(grouped) < scoring.value(split) ? std::move(grouped) : std::move(split);
    }
    const double found_value = scoring.value(found);
    if (found_value < incumbent_value) {
      incumbent = std::move(found);
      incumbent_value = found_value;
      improved = true;
    }
    if (bound && incumbent_value <= r.objective + 0.5) {
      res.optimal = true;
      res.objective = r.objective;
      break;
    }
    if (!bound || cuts.empty() || Clock::now() >= deadline) break;
    res.cuts += static_cast<int>(cuts.size());
    model.add_cuts(std::move(cuts));
  }
  if (improved || res.optimal) res.blocks = std::move(incumbent);
  return res;
}

// Robinson's |P| at the weighted optimum V, from the weighted stage's model
// (its pairs are the weighted ones): the fewest-blocks search, when it
// proves its result (checked against the exact cost), else nothing and CBC
// runs.
std::optional<PartResult> fewest_blocks_at(const PartModel& weighted, Cost v, Cost bonus,
                                           const PartScoring& scoring, Clock::time_point deadline,
                                           bool verbose) {
  const auto now = Clock::now();
  FewestBlocksResult fb =
      fewest_blocks(weighted.blocks_problem(v), now + (deadline - now) / 2, kMaxSearchStates);
  if (verbose)
    logger().debug("fuser 'ilp': fewest-blocks search on {} units: {} states, {}", weighted.unit_count(),
                   fb.states,
                   fb.proven ? std::to_string(fb.blocks.size()) + " blocks" : "gave up: " + fb.why);
  if (!fb.proven) return std::nullopt;
  const double value = static_cast<double>(bonus * static_cast<Cost>(fb.blocks.size()) - v);
  if (std::abs(scoring.value(fb.blocks) - value) > 0.5 ||
      !scoring.legal(fb.blocks)) {  // a bug: the MIP decides
    logger().warn("fuser 'ilp': the fewest-blocks search's partition costs {}, not {}, or is illegal",
                  scoring.value(fb.blocks), value);
    return std::nullopt;
  }
  PartResult r;
  r.optimal = r.by_search = true;
  r.objective = value;
  r.blocks = std::move(fb.blocks);
  return r;
}

// A large set of units no two of which may share a block (a greedy clique
// of the conflict graph of `may` over m units): every legal partition has
// at least this many blocks.
std::size_t conflict_clique(const BitMatrix& may, uint32_t m) {
  std::vector<uint32_t> degree(m, 0);
  for (uint32_t a = 0; a < m; ++a)
    for (uint32_t b = 0; b < m; ++b) degree[a] += !may.test(a, b);
  std::vector<uint32_t> order(m);
  std::iota(order.begin(), order.end(), 0u);
  std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) { return degree[a] > degree[b]; });
  std::size_t best = m > 0 ? 1 : 0;
  for (uint32_t start : order) {
    if (degree[start] + 1 <= best) break;
    std::vector<uint32_t> clique{start};
    for (uint32_t c : order) {
      bool all = c != start;
      for (std::size_t i = 0; i < clique.size() && all; ++i) all = !may.test(c, clique[i]);
      if (all) clique.push_back(c);
    }
    best = std::max(best, clique.size());
  }
  return best;
}

// What the launch stages give: bounds, and whether `start` is proven optimal.
struct LaunchBounds {
  std::optional<Cost> least_traffic;  // T, when proven
  std::size_t fewest = 0;             // no legal partition has fewer blocks
  bool proven = false;
  int mip_solves = 0, cuts = 0;
};

// Under a merge bonus with bohrium's access terms (machine: traffic plus a
// launch per block), two bounds first: the least traffic T of a legal
// partition (the model without leaders and with only the pairs that save
// bytes: an exact stage, as robinson's weighted one) and the fewest blocks K
// of a legal partition (a conflict clique, or the search of
// fusion/ilp_blocks_search.hpp with no weighted pairs). No partition costs
// less than T + bonus * K; the stages' partitions with greedy merges on top
// are candidates for `start`, and one that reaches the bound is optimal.
// Otherwise the search for a cheaper partition (fusion/ilp_cost_search.hpp)
// decides, when it finishes; the MIP takes the bounds as rows.
LaunchBounds launch_stages(const UnitGraph& ug, const std::vector<uint32_t>& part, const CostModel& cost,
                           const PartScoring& scoring, Blocks& start, Clock::time_point deadline,
                           bool verbose, bool block_search) {
  LaunchBounds lb;
  PartModel traffic(ug, part, true, true);
  auto traffic_of = [&](const Blocks& blocks) {
    return traffic.problem().objective_of(traffic.solution_of(groups(traffic.unit_count(), blocks)));
  };
  auto consider = [&](const Blocks& blocks) {
    Blocks found = scoring.improve(blocks);
    if (scoring.value(found) < scoring.value(start)) start = std::move(found);
  };
  const Blocks warm = start;
  const auto now = Clock::now();
  if (traffic.pair_count() == 0) {
    Blocks alone;
    for (uint32_t a = 0; a < part.size(); ++a) alone.push_back({a});
    lb.least_traffic = std::llround(traffic_of(alone));
  } else {
    PartScoring ts;
    ts.value = traffic_of;
    ts.improve = scoring.improve;
    const PartResult tr = solve_loop(traffic, warm, ts, now + (deadline - now) / 3, verbose);
    lb.mip_solves += tr.mip_solves;
    lb.cuts += tr.cuts;
    if (!tr.failed && !tr.blocks.empty()) consider(tr.blocks);
    if (tr.optimal) lb.least_traffic = std::llround(tr.objective);
  }
  // The search for K runs only when no candidate has as few blocks as a clique.
  lb.fewest = conflict_clique(traffic.may(), traffic.unit_count());
  const FewestBlocksProblem fbp = traffic.blocks_problem(0);
  if (block_search && start.size() > lb.fewest) {
    const auto later = Clock::now();
    FewestBlocksResult fb = fewest_blocks(fbp, later + (deadline - later) / 3, kMaxSearchStates);
    if (fb.proven) {
      lb.fewest = fb.blocks.size();
      consider(fb.blocks);
    }
  }
  const double bound =
      static_cast<double>(lb.least_traffic.value_or(0) + ug.bonus * static_cast<Cost>(lb.fewest));
  if (verbose)
    logger().debug(
        "fuser 'ilp': launch stages on {} units: least traffic {}, at least {} blocks; bound {}, best {}",
        part.size(), lb.least_traffic ? std::to_string(*lb.least_traffic) : "unknown", lb.fewest, bound,
        scoring.value(start));
  lb.proven = lb.least_traffic && scoring.value(start) <= bound + 0.5;
  if (lb.proven || !block_search) return lb;
  CheaperProblem cp{fbp.units, fbp.edges, fbp.may,
                    fbp.shape, {},        &ug.units->graph(),
                    &cost,     ug.bonus,  std::llround(scoring.value(start))};
  for (uint32_t u : part) cp.summary.push_back(ug.units->summary(ug.ids[u]));
  const auto later = Clock::now();
  CheaperResult cr = cheaper_partition(cp, later + (deadline - later) / 2, kMaxSearchStates);
  if (verbose)
    logger().debug("fuser 'ilp': cheaper-partition search on {} units: {} states, {}", part.size(), cr.states,
                   cr.proven ? (cr.blocks.empty() ? "none cheaper" : "cheaper") : "gave up: " + cr.why);
  if (cr.proven && !cr.blocks.empty()) {
    if (scoring.value(cr.blocks) < scoring.value(start) && scoring.legal(cr.blocks)) {
      start = std::move(cr.blocks);
    } else {  // a bug: the MIP decides
      logger().warn("fuser 'ilp': the cheaper-partition search's partition is not cheaper, or illegal");
      cr.proven = false;
    }
  }
  lb.proven = cr.proven;
  return lb;
}

// The sum over the part's units of their block cost minus what the MIP
// counts, so that objective + offset = the part's share of the exact cost.
Cost part_offset(const UnitGraph& ug, const std::vector<uint32_t>& part, const CostModel& cost,
                 bool bohrium) {
  Cost c = 0;
  for (uint32_t u : part)
    if (!bohrium) c += cost.block_cost(ug.units->graph(), ug.units->summary(ug.ids[u])) - ug.bonus;
  return c;
}

}  // namespace

PartResult solve_part(const UnitGraph& ug, const std::vector<uint32_t>& part, bool bohrium,
                      const CostModel& cost, const Blocks& warm,
                      const std::function<Cost(const Blocks&)>& exact_cost,
                      const std::function<Blocks(const Blocks&)>& improve,
                      const std::function<bool(const Blocks&)>& legal, Clock::time_point deadline,
                      bool verbose, bool force_failure, bool block_search, bool full_mip) {
  const Cost offset = part_offset(ug, part, cost, bohrium);
  PartScoring scoring;
  scoring.value = [&](const Blocks& blocks) { return static_cast<double>(exact_cost(blocks) - offset); };
  scoring.improve = improve;
  scoring.legal = legal;
  // With a merge bonus and the pairwise savings (robinson), first the
  // weighted stage: the largest saving above the bonus, V, over legal
  // partitions, from the model of the related pairs alone (no leaders: the
  // max-locality model, small and fast). Its partition with greedy merges on
  // top is the MIP's warm start. Then the fewest blocks at V by the search of
  // fusion/ilp_blocks_search.hpp; if it gives up, the MIP with V and a
  // conflict clique as bounds.
  const bool robinson = ug.bonus > 0 && !bohrium && !force_failure;
  Blocks start = warm;
  int stage_mips = 0, stage_cuts = 0;
  std::optional<Cost> v;  // V, when proven
  if (robinson) {
    PartModel weighted(ug, part, false, true);
    if (weighted.pair_count() == 0) v = 0;
    if (weighted.pair_count() > 0) {
      PartScoring ws;
      ws.value = [&](const Blocks& blocks) {
        return weighted.problem().objective_of(weighted.solution_of(groups(weighted.unit_count(), blocks)));
      };
      ws.improve = improve;
      const auto now = Clock::now();
      const PartResult wr = solve_loop(weighted, warm, ws, now + (deadline - now) / 2, verbose);
      stage_mips += wr.mip_solves;
      stage_cuts += wr.cuts;
      if (!wr.failed) {
        Blocks found = improve(wr.blocks.empty() ? warm : wr.blocks);
        if (scoring.value(found) < scoring.value(start)) start = std::move(found);
      }
      if (wr.optimal) v = std::llround(-wr.objective);
    }
    if (v && block_search) {
      if (std::optional<PartResult> found =
              fewest_blocks_at(weighted, *v, ug.bonus, scoring, deadline, verbose)) {
        found->mip_solves = stage_mips;
        found->cuts = stage_cuts;
        found->columns = weighted.problem().columns();
        found->rows = weighted.problem().rows();
        found->offset = offset;
        return std::move(*found);
      }
    }
  }
  // With a merge bonus and bohrium's access terms (machine), the launch
  // stages first.
  LaunchBounds lb;
  if (ug.bonus > 0 && bohrium && !force_failure) {
    lb = launch_stages(ug, part, cost, scoring, start, deadline, verbose, block_search);
    stage_mips += lb.mip_solves;
    stage_cuts += lb.cuts;
    if (lb.proven) {
      PartResult r;  // optimal without the full MIP
      r.optimal = true;
      r.objective = scoring.value(start);
      r.blocks = std::move(start);
      r.mip_solves = stage_mips;
      r.cuts = stage_cuts;
      r.offset = offset;
      return r;
    }
  }
  if (!full_mip) {
    PartResult r;
    if (scoring.value(start) < scoring.value(warm)) r.blocks = std::move(start);
    r.mip_solves = stage_mips;
    r.cuts = stage_cuts;
    r.offset = offset;
    return r;
  }
  PartModel model(ug, part, bohrium);
  if (model.pair_count() == 0 && !force_failure) {
    PartResult r;
    for (uint32_t a = 0; a < part.size(); ++a) r.blocks.push_back({a});
    r.optimal = true;
    r.offset = offset;
    r.objective = static_cast<double>(exact_cost(r.blocks) - r.offset);
    return r;
  }
  if (force_failure) {
    const int col = model.problem().add_column(0, 1, 0, true);
    model.problem().add_row({{col, 1.0}}, 2, MipProblem::kInf);
  }
  double bound = -MipProblem::kInf;  // a lower bound on the MIP objective
  if (robinson) {
    if (v) {
      // No legal partition saves more than V: sum saving * y <= V. (Under
      // robinson, whose cost is lexicographic, the optimum saves exactly V,
      // but as an equation the row makes CBC's heuristics find fewer
      // solutions, and the LP bound is the same.)
      std::vector<std::pair<int, double>> terms;
      for (const auto& [col, w] : model.weighted_links())
        if (w != 0) terms.emplace_back(col, static_cast<double>(w));
      model.problem().add_row(std::move(terms), -MipProblem::kInf, static_cast<double>(*v));
    }
    // |P| >= a clique of units no two of which may share a block (a row on
    // the leaders); with V, a bound on the cost.
    const std::size_t clique = conflict_clique(model.may(), model.unit_count());
    std::vector<std::pair<int, double>> terms;
    for (int z : model.leaders()) terms.emplace_back(z, 1.0);
    model.problem().add_row(std::move(terms), static_cast<double>(clique), MipProblem::kInf);
    if (v) bound = static_cast<double>(ug.bonus * static_cast<Cost>(clique) - *v);
  }
  if (ug.bonus > 0 && bohrium && !force_failure) {
    // Traffic >= T and |P| >= K (or a conflict clique): valid rows, and
    // their sum bounds the objective.
    std::vector<std::pair<int, double>> terms;
    for (int z : model.leaders()) terms.emplace_back(z, 1.0);
    model.problem().add_row(std::move(terms), static_cast<double>(lb.fewest), MipProblem::kInf);
    if (lb.least_traffic)
      model.problem().add_row(model.access_terms(), static_cast<double>(*lb.least_traffic), MipProblem::kInf);
    bound = static_cast<double>(lb.least_traffic.value_or(0) + ug.bonus * static_cast<Cost>(lb.fewest));
  }
  PartResult r;
  if (scoring.value(start) <= bound + 0.5) {
    // The warm start reaches the bound: optimal without the MIP.
    r.optimal = true;
    r.objective = bound;
    r.blocks = std::move(start);
  } else {
    r = solve_loop(model, start, scoring, deadline, verbose);
    if (r.blocks.empty() && !r.failed && scoring.value(start) < scoring.value(warm))
      r.blocks = std::move(start);
  }
  r.mip_solves += stage_mips;
  r.cuts += stage_cuts;
  r.columns = model.problem().columns();
  r.rows = model.problem().rows();
  r.offset = offset;
  return r;
}

}  // namespace arrvm::fusion::ilp
