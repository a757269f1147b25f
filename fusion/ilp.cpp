// ilp: the formulation and its reductions are described in fusion/ilp.hpp.
#include "fusion/ilp.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>
#include <numeric>
#include <string>

#include "fusion/ilp_model.hpp"
#include "vm/log.hpp"

namespace arrvm::fusion::ilp {

namespace {

using Clock = std::chrono::steady_clock;

// Parts above these sizes keep their warm start (see fuse_report).
constexpr std::size_t kMaxUnits = 1000;
constexpr std::size_t kMaxColumns = 8000;

struct Pair {
  uint32_t u, w;  // unit indices, u < w
  Cost saving;
};

// Everything about the units that every part needs.
struct UnitGraph {
  const BlockSet* units;
  std::vector<uint32_t> ids;    // unit -> block id
  std::vector<uint32_t> index;  // block id -> unit
  std::vector<std::vector<uint32_t>> succ;
  std::vector<Pair> pairs;
  Cost bonus = 0;
};

uint32_t uf_root(std::vector<uint32_t>& uf, uint32_t u) {
  while (uf[u] != u) u = uf[u] = uf[uf[u]];
  return u;
}

// One independent part as a MIP. Units are local indices 0..m-1 (ascending
// global unit order).
class PartModel {
 public:
  PartModel(const UnitGraph& ug, const std::vector<uint32_t>& part, bool bohrium)
      : ug_(ug), part_(part), m_(static_cast<uint32_t>(part.size())) {
    const BlockSet& s = *ug.units;
    const Graph& g = s.graph();
    local_.assign(ug.ids.size(), kNone);
    for (uint32_t i = 0; i < m_; ++i) local_[part[i]] = i;
    // Shape classes.
    std::map<uint32_t, int> shape_class;
    for (uint32_t u : part) {
      const uint32_t sh = s.summary(ug.ids[u]).shape;
      if (sh != kNone) shape_class.emplace(sh, 0);
    }
    int next = 0;
    for (auto& [sh, c] : shape_class) c = next++;
    S_ = std::max(next, 1);
    big_m_ = static_cast<double>(S_) * m_;
    for (uint32_t i = 0; i < m_; ++i) {
      const uint32_t sh = s.summary(ug.ids[part[i]]).shape;
      Pi pi;
      if (sh == kNone) {
        pi.col = p_.add_column(0, S_ * static_cast<double>(m_) - 1, 0, true);
      } else {
        pi.col = p_.add_column(0, m_ - 1.0, 0, true);
        pi.mult = S_;
        pi.add = shape_class[sh];
        pi.shaped = true;
      }
      pi_.push_back(pi);
    }
    // Pair variables.
    for (const Pair& pr : ug.pairs) {
      const uint32_t a = local_[pr.u], b = local_[pr.w];
      if (a == kNone) continue;
      const double coef = bohrium ? 0.0 : -static_cast<double>(pr.saving - ug.bonus);
      const int y = p_.add_column(0, 1, coef, true);
      y_.emplace(key(a, b), y);
      // y = 1 -> pi[a] = pi[b]:  pi[b] - pi[a] + M y <= M  and  pi[a] - pi[b] + M y <= M.
      add_pi_row(b, a, {{y, big_m_}}, -MipProblem::kInf, big_m_);
      add_pi_row(a, b, {{y, big_m_}}, -MipProblem::kInf, big_m_);
    }
    add_triangles(s, part);
    // Reachability between units of the part (bitsets), in topological order.
    const std::size_t words = (m_ + 63) / 64;
    std::vector<std::vector<uint64_t>> reach(m_, std::vector<uint64_t>(words, 0));
    std::vector<uint32_t> indeg(m_, 0), order;
    for (uint32_t a = 0; a < m_; ++a)
      for (uint32_t v : ug.succ[part[a]]) ++indeg[local_[v]];
    for (uint32_t a = 0; a < m_; ++a)
      if (indeg[a] == 0) order.push_back(a);
    for (std::size_t i = 0; i < order.size(); ++i) {
      for (uint32_t v : ug.succ[part[order[i]]])
        if (--indeg[local_[v]] == 0) order.push_back(local_[v]);
    }
    for (auto it = order.rbegin(); it != order.rend(); ++it) {
      const uint32_t a = *it;
      for (uint32_t v : ug.succ[part[a]]) {
        const uint32_t b = local_[v];
        reach[a][b / 64] |= uint64_t{1} << (b % 64);
        for (std::size_t k = 0; k < words; ++k) reach[a][k] |= reach[b][k];
      }
    }
    auto reaches = [&](uint32_t a, uint32_t b) { return (reach[a][b / 64] >> (b % 64)) & 1; };
    // Dependency edges: pi never decreases; strictly increases where the two
    // units can never share a block.
    for (uint32_t a = 0; a < m_; ++a) {
      for (uint32_t v : ug.succ[part[a]]) {
        const uint32_t b = local_[v];
        const uint32_t ia = ug.ids[part[a]], ib = ug.ids[v];
        const bool apart = !s.fusible(ia, ib) || s.never_together(ia, ib);
        add_pi_row(b, a, {}, apart ? 1.0 : 0.0, MipProblem::kInf);
      }
    }
    // Non-fusible pairs that the shape classes do not already separate
    // (with a unit of only free/sync: never, as these are fusible with all).
    for (uint32_t a = 0; a < m_; ++a) {
      for (uint32_t b = a + 1; b < m_; ++b) {
        if (pi_[a].shaped && pi_[b].shaped && pi_[a].add != pi_[b].add) continue;
        if (s.fusible(ug.ids[part[a]], ug.ids[part[b]])) continue;
        if (reaches(a, b)) {
          add_pi_row(b, a, {}, 1, MipProblem::kInf);
        } else if (reaches(b, a)) {
          add_pi_row(a, b, {}, 1, MipProblem::kInf);
        } else {
          // d = 1: a after b.  pi[b] - pi[a] + M d >= 1,  pi[a] - pi[b] - M d >= 1 - M.
          const int d = p_.add_column(0, 1, 0, true);
          disjunctions_.push_back({a, b, d});
          add_pi_row(b, a, {{d, big_m_}}, 1, MipProblem::kInf);
          add_pi_row(a, b, {{d, -big_m_}}, 1 - big_m_, MipProblem::kInf);
        }
      }
    }
    // Leaders (|P| for a model with a merge bonus).
    if (ug.bonus > 0) {
      for (uint32_t b = 0; b < m_; ++b) {
        std::vector<int> ys;
        for (uint32_t a = 0; a < b; ++a) {
          auto it = y_.find(key(a, b));
          if (it != y_.end()) ys.push_back(it->second);
        }
        add_max_column(static_cast<double>(ug.bonus), ys);
      }
    }
    if (bohrium) add_access_terms(g, s);
  }

  MipProblem& problem() { return p_; }

  // Σ over the part's units of their block cost minus what the MIP counts,
  // so that objective + offset = the part's share of the exact cost.
  Cost offset(const CostModel& cost, bool bohrium) const {
    if (bohrium) return 0;
    Cost c = 0;
    for (uint32_t u : part_) c += cost.block_cost(ug_.units->graph(), ug_.units->summary(ug_.ids[u])) - ug_.bonus;
    return c;
  }

  // The MIP solution for a grouping of the units: group[a] = the position
  // of a's block among the part's blocks (topological).
  std::vector<double> solution_of(const std::vector<uint32_t>& group) const {
    std::vector<double> x(p_.columns(), 0.0);
    std::vector<int> block_class(m_, 0);
    for (uint32_t a = 0; a < m_; ++a)
      if (pi_[a].shaped) block_class[group[a]] = pi_[a].add;
    auto pi_value = [&](uint32_t a) { return static_cast<double>(S_) * group[a] + block_class[group[a]]; };
    for (uint32_t a = 0; a < m_; ++a) x[pi_[a].col] = pi_[a].shaped ? group[a] : pi_value(a);
    for (const auto& [k, y] : y_) x[y] = group[k >> 32] == group[k & 0xffffffffu] ? 1.0 : 0.0;
    for (const Disjunction& d : disjunctions_) x[d.col] = pi_value(d.a) > pi_value(d.b) ? 1.0 : 0.0;
    for (const MaxColumn& mc : max_columns_) {
      double v = 1;
      for (int y : mc.ys) v -= x[y];
      x[mc.col] = std::max(v, 0.0);
    }
    return x;
  }

  // The blocks (lists of local units) of a MIP solution, in order of pi.
  std::vector<std::vector<uint32_t>> blocks_of(const std::vector<double>& x) const {
    std::map<long long, std::vector<uint32_t>> by_pi;
    for (uint32_t a = 0; a < m_; ++a) {
      const long long v = std::llround(x[pi_[a].col]) * pi_[a].mult + pi_[a].add;
      by_pi[v].push_back(a);
    }
    std::vector<std::vector<uint32_t>> r;
    for (auto& [v, units] : by_pi) r.push_back(std::move(units));
    return r;
  }

  uint32_t local(uint32_t unit) const { return local_[unit]; }

 private:
  struct Pi {
    int col = -1;
    long long mult = 1, add = 0;
    bool shaped = false;
  };
  struct Disjunction {
    uint32_t a, b;
    int col;
  };
  struct MaxColumn {
    int col;
    std::vector<int> ys;
  };

  static uint64_t key(uint32_t a, uint32_t b) { return (uint64_t{std::min(a, b)} << 32) | std::max(a, b); }

  // lower <= pi[b] - pi[a] + extra <= upper, with pi's constants moved to the bounds.
  void add_pi_row(uint32_t b, uint32_t a, std::vector<std::pair<int, double>> extra, double lower,
                  double upper) {
    const double shift = static_cast<double>(pi_[b].add - pi_[a].add);
    extra.emplace_back(pi_[b].col, static_cast<double>(pi_[b].mult));
    extra.emplace_back(pi_[a].col, -static_cast<double>(pi_[a].mult));
    p_.add_row(std::move(extra), lower - shift, upper == MipProblem::kInf ? upper : upper - shift);
  }

  // A column z in [0, 1] with z >= 1 - sum ys and objective weight `weight`;
  // minimization makes z = max(0, 1 - sum ys).
  void add_max_column(double weight, const std::vector<int>& ys) {
    // Integer, so that CBC sees an integral objective and prunes by whole units.
    const int z = p_.add_column(0, 1, weight, true);
    std::vector<std::pair<int, double>> terms{{z, 1.0}};
    for (int y : ys) terms.emplace_back(y, 1.0);
    p_.add_row(std::move(terms), 1, MipProblem::kInf);
    max_columns_.push_back({z, ys});
  }

  // Transitivity of y (valid: y = "same block" is always an optimal choice),
  // which the big-M rows give only weakly in the LP relaxation:
  // y[a,b] + y[b,c] - y[a,c] <= 1, and y[a,b] + y[b,c] <= 1 when a and c
  // can never share a block. At most kMaxTriangles rows.
  void add_triangles(const BlockSet& s, const std::vector<uint32_t>& part) {
    constexpr std::size_t kMaxTriangles = 5000;
    std::vector<std::vector<std::pair<uint32_t, int>>> adj(m_);
    for (const auto& [k, y] : y_) {
      const uint32_t a = static_cast<uint32_t>(k >> 32), c = static_cast<uint32_t>(k & 0xffffffffu);
      adj[a].emplace_back(c, y);
      adj[c].emplace_back(a, y);
    }
    std::size_t added = 0;
    for (uint32_t b = 0; b < m_; ++b) {
      const auto& nb = adj[b];
      for (std::size_t i = 0; i < nb.size(); ++i) {
        for (std::size_t j = i + 1; j < nb.size(); ++j) {
          if (added >= kMaxTriangles) return;
          const uint32_t a = nb[i].first, c = nb[j].first;
          auto it = y_.find(key(a, c));
          if (it != y_.end()) {
            p_.add_row({{nb[i].second, 1.0}, {nb[j].second, 1.0}, {it->second, -1.0}}, -MipProblem::kInf, 1);
            ++added;
          } else {
            const uint32_t ia = ug_.ids[part[a]], ic = ug_.ids[part[c]];
            if (s.fusible(ia, ic) && !s.never_together(ia, ic)) continue;
            p_.add_row({{nb[i].second, 1.0}, {nb[j].second, 1.0}}, -MipProblem::kInf, 1);
            ++added;
          }
        }
      }
    }
  }

  // bohrium: per array, the readers (writers) other than the unit creating
  // (freeing) its base; the first of them in each block pays the bytes unless
  // the creator (releaser) is in the block.
  void add_access_terms(const Graph& g, const BlockSet& s) {
    std::map<uint32_t, uint32_t> creator, releaser;  // base -> local unit
    std::map<uint64_t, std::vector<uint32_t>> readers, writers;
    for (uint32_t a = 0; a < m_; ++a) {
      const BlockSummary& sum = s.summary(ug_.ids[part_[a]]);
      for (uint32_t b : sum.news) creator[b] = a;
      for (uint32_t b : sum.dels) releaser[b] = a;
      for (const auto& [k, n] : sum.reads.items()) readers[k].push_back(a);
      for (const auto& [k, n] : sum.writes.items()) writers[k].push_back(a);
    }
    auto add = [&](const std::map<uint64_t, std::vector<uint32_t>>& users,
                   const std::map<uint32_t, uint32_t>& owner) {
      for (const auto& [k, list] : users) {
        const double bytes = static_cast<double>(g.array(key_array(k)).bytes);
        auto own = owner.find(key_base(k));
        const uint32_t c = own == owner.end() ? kNone : own->second;
        std::vector<uint32_t> r;
        for (uint32_t a : list)
          if (a != c) r.push_back(a);
        for (std::size_t i = 0; i < r.size(); ++i) {
          std::vector<int> ys;
          for (std::size_t j = 0; j < i; ++j) {
            auto it = y_.find(key(r[j], r[i]));
            if (it != y_.end()) ys.push_back(it->second);
          }
          if (c != kNone) {
            auto it = y_.find(key(r[i], c));
            if (it != y_.end()) ys.push_back(it->second);
          }
          add_max_column(bytes, ys);
        }
      }
    };
    add(readers, creator);
    add(writers, releaser);
  }

  const UnitGraph& ug_;
  const std::vector<uint32_t>& part_;
  uint32_t m_;
  int S_ = 1;
  double big_m_ = 0;
  std::vector<uint32_t> local_;
  MipProblem p_;
  std::vector<Pi> pi_;
  std::map<uint64_t, int> y_;
  std::vector<Disjunction> disjunctions_;
  std::vector<MaxColumn> max_columns_;
};

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

  // The warm start's block positions (topological over the whole batch).
  const Partition seed_partition = seed.partition();
  std::vector<uint32_t> seed_pos(g.size(), 0);
  for (uint32_t i = 0; i < seed_partition.blocks.size(); ++i)
    for (uint32_t instr : seed_partition.blocks[i]) seed_pos[instr] = i;

  const bool bohrium = cost.name() == "bohrium";
  const bool verbose = logger().should_log(spdlog::level::debug);
  int big_parts = 0;
  for (const auto& part : parts) big_parts += part.size() >= 2;
  std::vector<Block> blocks;
  auto emit = [&](const std::vector<std::vector<uint32_t>>& groups) {
    for (const auto& group : groups) {
      Block b;
      for (uint32_t u : group) {
        const Block& m = units.members(ug.ids[u]);
        b.insert(b.end(), m.begin(), m.end());
      }
      blocks.push_back(std::move(b));
    }
  };
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
    if (part.size() < 2) {
      emit(to_units(seed_groups));
      continue;
    }
    ++rep.parts;
    const double left = std::chrono::duration<double>(deadline - Clock::now()).count();
    if (left <= 0) {
      emit(to_units(seed_groups));
      --big_parts;
      continue;
    }
    // A part too large for CBC to make progress in the time we give it (and
    // whose model alone would take long to build) keeps its warm start.
    std::size_t part_pairs = 0;
    for (uint32_t u : part) part_pairs += pairs_of[u];
    if (part.size() > kMaxUnits || part.size() + part_pairs > kMaxColumns) {
      ++rep.too_large;
      emit(to_units(seed_groups));
      --big_parts;
      continue;
    }
    PartModel model(ug, part, bohrium);
    if (options.ilp_force_failure) {
      // Test hook: pi of the first unit above its upper bound.
      model.problem().add_row({{0, 1.0}}, 1e9, MipProblem::kInf);
    }
    std::vector<uint32_t> group(part.size());
    for (uint32_t gi = 0; gi < seed_groups.size(); ++gi)
      for (uint32_t a : seed_groups[gi]) group[a] = gi;
    const std::vector<double> warm = model.solution_of(group);
    rep.columns += model.problem().columns();
    rep.rows += model.problem().rows();
    const MipResult r = solve_mip(model.problem(), warm, left / std::max(big_parts, 1), verbose);
    --big_parts;
    if (r.status == MipResult::Status::Failed) {
      ++rep.failed;
      logger().warn("fuser 'ilp': CBC failed on a part of {} units ({}); using the greedy partition",
                    part.size(), r.message);
      emit(to_units(seed_groups));
      continue;
    }
    ++rep.solved;
    const std::vector<std::vector<uint32_t>> found = to_units(model.blocks_of(r.x));
    const std::vector<std::vector<uint32_t>> fallback = to_units(seed_groups);
    const Cost found_cost = groups_cost(found), seed_cost = groups_cost(fallback);
    if (r.status == MipResult::Status::Optimal) {
      ++rep.proven_optimal;
      // At a proven optimum the MIP value is the exact cost of the part.
      const double exact = static_cast<double>(found_cost - model.offset(cost, bohrium));
      if (std::abs(r.objective - exact) > 0.5) ++rep.inexact;
    }
    if (verbose) {
      logger().debug("fuser 'ilp': part of {} units, {} columns, {} rows: MIP {} + {}, exact {}, greedy {}",
                     part.size(), model.problem().columns(), model.problem().rows(), r.objective,
                     model.offset(cost, bohrium), found_cost, seed_cost);
    }
    emit(found_cost <= seed_cost ? found : fallback);
  }
  Partition result;
  result.blocks = std::move(blocks);
  for (Block& b : result.blocks) std::sort(b.begin(), b.end());
  // Within a part the blocks are in pi order (or the warm start's order),
  // both topological, and no dependency edge joins two parts: so the
  // emitted order already satisfies check_partition if the solution is
  // legal. Only then is it put in the canonical order.
  const std::string problem = check_partition(g, result);
  if (!problem.empty()) {
    logger().warn("fuser 'ilp': the solver's partition is illegal ({}); using greedy", problem);
    return best;
  }
  result = ordered_partition(g, std::move(result.blocks));
  const Cost c = cost.cost(g, result);
  return c < best_cost ? result : best;
}

Partition fuse(const Graph& g, const CostModel& cost, const Options& options) {
  return fuse_report(g, cost, options, nullptr);
}

}  // namespace arrvm::fusion::ilp
