// ilp, one part's model (internal to fusion/ilp_part.cpp): the MIP over the
// pair variables of its units, its rows up front (pairs, transitivity,
// crossings, robinson's leaders, bohrium's access terms, the filter rows of
// fusion/ilp_filters.hpp), the walk and closure cuts it separates, and the
// blocks of a solution. fusion/ilp.hpp has the formulation.
#pragma once

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <queue>
#include <set>
#include <vector>

#include "fusion/ilp_blocks_search.hpp"
#include "fusion/ilp_filters.hpp"
#include "fusion/ilp_model.hpp"
#include "fusion/ilp_part.hpp"

namespace arrvm::fusion::ilp {

// Valid rows added up front: transitivity triangles, then crossing pairs.
inline constexpr std::size_t kMaxTriangles = 5000;
inline constexpr std::size_t kMaxCrossings = 5000;
inline constexpr std::size_t kMaxCrossingChecks = 4'000'000;

// One independent part as a MIP over pair variables only. Units are local
// indices 0..m-1 (ascending global unit order).
class PartModel {
 public:
  // related_only: only the pairs that save more than the merge bonus, and no
  // leaders: the model of the cost without its |P| term (the weighted stage).
  PartModel(const UnitGraph& ug, const std::vector<uint32_t>& part, bool bohrium, bool related_only = false)
      : ug_(ug),
        part_(part),
        m_(static_cast<uint32_t>(part.size())),
        filters_(ug.units->graph().has_filters()) {
    local_.assign(ug.ids.size(), kNone);
    for (uint32_t i = 0; i < m_; ++i) local_[part[i]] = i;
    for (uint32_t a = 0; a < m_; ++a)
      for (uint32_t v : ug.succ[part[a]]) succ_.emplace_back(a, local_[v]);
    build_reach();
    build_may();
    add_pairs(bohrium, related_only);
    if (filters_) {
      add_filter_pairs();
      add_filter_rows();
    }
    add_triangles();
    add_crossings();
    if (ug.bonus > 0 && !related_only) add_leaders();
    if (bohrium) add_access_terms();
  }

  // The columns of the pair links with their saving above the bonus.
  std::vector<std::pair<int, Cost>> weighted_links() const {
    std::vector<std::pair<int, Cost>> r;
    for (const auto& [k, y] : y_) r.emplace_back(y, weight_[y]);
    return r;
  }

  // The leader columns (empty without a merge bonus).
  const std::vector<int>& leaders() const { return leaders_; }

  // bohrium's access columns with their bytes (empty without them): the
  // part's traffic is the sum of bytes * column.
  const std::vector<std::pair<int, double>>& access_terms() const { return access_; }

  // may(a, b): units a and b may share a legal block.
  const BitMatrix& may() const { return may_; }

  // The fewest-blocks search's view of the part (fusion/ilp_blocks_search.hpp).
  FewestBlocksProblem blocks_problem(Cost v) const {
    FewestBlocksProblem fb{m_, &succ_, &may_, {}, {}, v, {}, {}};
    for (uint32_t u : part_) {
      const BlockSummary& s = ug_.units->summary(ug_.ids[u]);
      fb.shape.push_back(s.shape);
      if (filters_) {
        fb.domains.push_back(s.domains);
        fb.compresses.push_back(s.filters);
      }
    }
    for (const auto& [k, y] : y_)
      if (weight_[y] > 0)
        fb.weighted.push_back({static_cast<uint32_t>(k >> 32), static_cast<uint32_t>(k), weight_[y]});
    return fb;
  }

  MipProblem& problem() { return p_; }
  std::size_t pair_count() const { return y_.size(); }
  uint32_t unit_count() const { return m_; }

  // The MIP solution for a grouping of the units: y = "same group".
  std::vector<double> solution_of(const std::vector<uint32_t>& group) const {
    std::vector<double> x(p_.columns(), 0.0);
    for (const auto& [k, y] : y_) x[y] = group[k >> 32] == group[k & 0xffffffffu] ? 1.0 : 0.0;
    for (const MaxColumn& mc : max_columns_) {
      double v = 1;
      for (int y : mc.ys) v -= x[y];
      x[mc.col] = std::max(v, 0.0);
    }
    return x;
  }

  // Walk cuts violated by x (at most `limit`, most violated first). For two
  // units p, q that may not share a block, a closed walk p -> q -> p along
  // dependency edges (weight 0) and pair links (weight 1 - y): if every link
  // on it were 1, the blocks it visits would form a cycle unless they are
  // one block, which would hold p and q. So sum(links) <= |links| - 1. A
  // walk of weight < 1 is a violated cut. For an integral x, "no cut" means
  // the blocks of blocks_of(x) are legal. Stops early at `deadline`.
  std::vector<MipCut> separate(const std::vector<double>& x, std::size_t limit,
                               Clock::time_point deadline) const {
    std::vector<std::vector<std::pair<uint32_t, int>>> links(m_);
    for (const auto& [k, y] : y_) {
      if (x[y] <= 1e-9) continue;  // weight 1: such a link never helps a violated walk
      const uint32_t a = static_cast<uint32_t>(k >> 32), b = static_cast<uint32_t>(k & 0xffffffffu);
      links[a].emplace_back(b, y);
      links[b].emplace_back(a, y);
    }
    std::vector<std::vector<uint32_t>> out(m_);
    for (const auto& [a, b] : succ_) out[a].push_back(b);
    // Shortest walks from every unit, searched only below weight 1.
    constexpr double kFar = 2.0;
    std::vector<double> dist(std::size_t{m_} * m_, kFar);
    std::vector<std::pair<uint32_t, int>> from(std::size_t{m_} * m_, {kNone, -1});
    using Entry = std::pair<double, uint32_t>;
    for (uint32_t p = 0; p < m_; ++p) {
      if ((p & 15) == 0 && Clock::now() >= deadline) return {};
      double* d = &dist[std::size_t{p} * m_];
      auto* f = &from[std::size_t{p} * m_];
      std::priority_queue<Entry, std::vector<Entry>, std::greater<Entry>> heap;
      d[p] = 0;
      heap.push({0, p});
      while (!heap.empty()) {
        const auto [dv, v] = heap.top();
        heap.pop();
        if (dv > d[v]) continue;
        for (uint32_t b : out[v]) {
          if (dv < d[b]) {
            d[b] = dv;
            f[b] = {v, -1};
            heap.push({dv, b});
          }
        }
        for (const auto& [b, col] : links[v]) {
          const double nd = dv + std::max(0.0, 1.0 - x[col]);
          if (nd < 1.0 && nd < d[b] - 1e-12) {
            d[b] = nd;
            f[b] = {v, col};
            heap.push({nd, b});
          }
        }
      }
    }
    auto path = [&](uint32_t p, uint32_t q, std::vector<int>* support) {
      const auto* f = &from[std::size_t{p} * m_];
      for (uint32_t v = q; v != p; v = f[v].first)
        if (f[v].second >= 0) support->push_back(f[v].second);
    };
    std::set<std::vector<int>> seen;
    std::vector<std::pair<double, std::vector<int>>> found;
    for (uint32_t p = 0; p < m_; ++p) {
      for (uint32_t q = p + 1; q < m_; ++q) {
        if (may_.test(p, q)) continue;
        if (dist[std::size_t{p} * m_ + q] + dist[std::size_t{q} * m_ + p] >= 1.0 - 1e-6) continue;
        std::vector<int> support;
        path(p, q, &support);
        path(q, p, &support);
        std::sort(support.begin(), support.end());
        support.erase(std::unique(support.begin(), support.end()), support.end());
        double violation = 1.0 - static_cast<double>(support.size());
        for (int col : support) violation += x[col];
        if (violation <= 1e-6 || !seen.insert(support).second) continue;
        found.emplace_back(-violation, std::move(support));
      }
    }
    std::sort(found.begin(), found.end());
    std::vector<MipCut> cuts;
    for (std::size_t i = 0; i < found.size() && i < limit; ++i) {
      MipCut c;
      for (int col : found[i].second) c.terms.emplace_back(col, 1.0);
      c.upper = static_cast<double>(found[i].second.size()) - 1;
      cuts.push_back(std::move(c));
    }
    return cuts;
  }

  void add_cuts(std::vector<MipCut> cuts) {
    for (MipCut& c : cuts) p_.add_row(std::move(c.terms), -MipProblem::kInf, c.upper);
  }

  // The blocks (lists of local units) of an integral solution, in
  // topological order: the connected components of the links with y = 1,
  // with every cycle of them merged (strongly connected components). Legal
  // when separate(x) finds no cut.
  std::vector<std::vector<uint32_t>> blocks_of(const std::vector<double>& x) const {
    std::vector<uint32_t> uf(m_);
    std::iota(uf.begin(), uf.end(), 0u);
    for (const auto& [k, y] : y_) {
      if (x[y] < 0.5) continue;
      const uint32_t a = uf_root(uf, static_cast<uint32_t>(k >> 32));
      const uint32_t b = uf_root(uf, static_cast<uint32_t>(k & 0xffffffffu));
      if (a != b) uf[std::max(a, b)] = std::min(a, b);
    }
    return condense(uf, succ_);
  }

  // Splits every block holding two units that may not share a block into
  // groups that may (first fit, in unit order). Not always legal (the groups
  // may form a cycle): the greedy merges that follow (merge_blocks) skip an
  // illegal step.
  std::vector<std::vector<uint32_t>> may_groups(std::vector<std::vector<uint32_t>> blocks) const {
    std::vector<std::vector<uint32_t>> r;
    for (auto& b : blocks) {
      std::vector<std::vector<uint32_t>> groups;
      for (uint32_t a : b) {
        bool placed = false;
        for (auto& grp : groups) {
          bool ok = true;
          for (std::size_t i = 0; i < grp.size() && ok; ++i) ok = may_.test(a, grp[i]);
          if (ok) {
            grp.push_back(a);
            placed = true;
            break;
          }
        }
        if (!placed) groups.push_back({a});
      }
      for (auto& grp : groups) {
        if (closed(grp)) {
          r.push_back(std::move(grp));
        } else {
          for (uint32_t a : grp) r.push_back({a});
        }
      }
    }
    return r;
  }

  bool has_filters() const { return filters_; }

  // Whether a block (local units) is closed under the transducer rule.
  bool closed(const std::vector<uint32_t>& block) const {
    if (!filters_ || block.size() <= 1) return true;
    std::vector<uint32_t> ids;
    for (uint32_t a : block) ids.push_back(ug_.ids[part_[a]]);
    return lacking_compresses(*ug_.units, ids).empty();
  }

  // Lazy rows for the blocks of an integral solution that lack a compress
  // (fusion/ilp_filters.hpp): sum(links in K) - (|links| - 1) <= sum_{v in
  // K} y[v, C(c)] for the first compress c that K lacks.
  std::vector<MipCut> closure_cuts(const std::vector<double>& x, const Blocks& blocks) const {
    std::vector<MipCut> cuts;
    if (!filters_) return cuts;
    std::vector<uint32_t> block_of(m_, kNone);
    for (uint32_t k = 0; k < blocks.size(); ++k)
      for (uint32_t a : blocks[k]) block_of[a] = k;
    for (uint32_t k = 0; k < blocks.size(); ++k) {
      const std::vector<uint32_t>& b = blocks[k];
      if (b.size() <= 1) continue;
      std::vector<uint32_t> ids;
      for (uint32_t a : b) ids.push_back(ug_.ids[part_[a]]);
      const std::vector<uint32_t> lacking = lacking_compresses(*ug_.units, ids);
      if (lacking.empty()) continue;
      const uint32_t c = compress_unit(lacking.front());
      MipCut cut;
      for (const auto& [key, y] : y_) {
        const uint32_t u = static_cast<uint32_t>(key >> 32), w = static_cast<uint32_t>(key & 0xffffffffu);
        if (x[y] >= 0.5 && block_of[u] == k && block_of[w] == k) cut.terms.emplace_back(y, 1.0);
      }
      cut.upper = static_cast<double>(cut.terms.size()) - 1;
      if (c != kNone) {
        for (uint32_t v : b) {
          auto it = y_.find(key(v, c));
          if (it != y_.end()) cut.terms.emplace_back(it->second, -1.0);
        }
      }
      if (!cut.terms.empty()) cuts.push_back(std::move(cut));
    }
    return cuts;
  }

  // Splits every block holding two units that may not share a block into
  // single units: what is left is legal (these blocks are acyclic).
  std::vector<std::vector<uint32_t>> legal_part(std::vector<std::vector<uint32_t>> blocks) const {
    std::vector<std::vector<uint32_t>> r;
    for (auto& b : blocks) {
      bool ok = closed(b);
      for (std::size_t i = 0; i < b.size() && ok; ++i)
        for (std::size_t j = i + 1; j < b.size() && ok; ++j) ok = may_.test(b[i], b[j]);
      if (ok) {
        r.push_back(std::move(b));
      } else {
        for (uint32_t a : b) r.push_back({a});
      }
    }
    return r;
  }

 private:
  struct MaxColumn {
    int col;
    std::vector<int> ys;
  };

  static uint64_t key(uint32_t a, uint32_t b) { return (uint64_t{std::min(a, b)} << 32) | std::max(a, b); }

  // reach_(a, b): a path of dependency edges leads from a to b (a != b).
  void build_reach() {
    std::vector<uint32_t> indeg(m_, 0), order;
    std::vector<std::vector<uint32_t>> out(m_);
    for (const auto& [a, b] : succ_) {
      out[a].push_back(b);
      ++indeg[b];
    }
    for (uint32_t a = 0; a < m_; ++a)
      if (indeg[a] == 0) order.push_back(a);
    for (std::size_t i = 0; i < order.size(); ++i)
      for (uint32_t b : out[order[i]])
        if (--indeg[b] == 0) order.push_back(b);
    reach_ = BitMatrix(m_);
    reached_by_ = BitMatrix(m_);
    const std::size_t words = reach_.words();
    for (auto it = order.rbegin(); it != order.rend(); ++it) {
      uint64_t* r = reach_.row(*it);
      for (uint32_t b : out[*it]) {
        reach_.set(*it, b);
        const uint64_t* rb = reach_.row(b);
        for (std::size_t k = 0; k < words; ++k) r[k] |= rb[k];
      }
    }
    for (uint32_t a = 0; a < m_; ++a)
      for (uint32_t b = 0; b < m_; ++b)
        if (reach_.test(a, b)) reached_by_.set(b, a);
  }

  // may_(a, b): a and b are fusible, BlockSet::never_together is false, and
  // every unit on a dependency path between them may share a block with both
  // (it would have to join theirs: seed 003 §4.5's fusion-preventing paths,
  // to a fixpoint). A pair that fails can never share a legal block.
  void build_may() {
    const BlockSet& s = *ug_.units;
    may_ = BitMatrix(m_);
    for (uint32_t a = 0; a < m_; ++a) {
      may_.set(a, a);
      for (uint32_t b = a + 1; b < m_; ++b) {
        const uint32_t ia = ug_.ids[part_[a]], ib = ug_.ids[part_[b]];
        const bool fusible = filters_ ? s.fusible_but_filters(ia, ib) : s.fusible(ia, ib);
        if (fusible && !s.never_together(ia, ib)) {
          may_.set(a, b);
          may_.set(b, a);
        }
      }
    }
    const std::size_t words = may_.words();
    for (bool changed = true; changed;) {
      changed = false;
      for (uint32_t a = 0; a < m_; ++a) {
        const uint64_t* from_a = reach_.row(a);
        for (uint32_t b = 0; b < m_; ++b) {
          if (!reach_.test(a, b) || !may_.test(a, b)) continue;
          const uint64_t *to_b = reached_by_.row(b), *ma = may_.row(a), *mb = may_.row(b);
          for (std::size_t k = 0; k < words; ++k) {
            if (from_a[k] & to_b[k] & ~(ma[k] & mb[k])) {
              may_.reset(a, b);
              may_.reset(b, a);
              changed = true;
              break;
            }
          }
        }
      }
    }
  }

  // y[u,w] for the candidate pairs that may share a block. The pairwise
  // models put their saving on y; bohrium's cost is in add_access_terms.
  void add_pairs(bool bohrium, bool related_only) {
    for (const Pair& pr : ug_.pairs) {
      const uint32_t a = local_[pr.u], b = local_[pr.w];
      if (a == kNone || !may_.test(a, b)) continue;
      if (related_only && pr.saving <= ug_.bonus) continue;
      const double coef = bohrium ? 0.0 : -static_cast<double>(pr.saving - ug_.bonus);
      const int col = p_.add_column(0, 1, coef, true);
      y_.emplace(key(a, b), col);
      weight_.resize(col + 1, 0);
      weight_[col] = bohrium ? 0 : pr.saving - ug_.bonus;
    }
  }

  // The local unit holding compress `instr` (kNone: not in this part).
  uint32_t compress_unit(uint32_t instr) const {
    const uint32_t u = ug_.index[ug_.units->find(instr)];
    return u == kNone ? kNone : local_[u];
  }

  // y[v, C] for every unit C holding a compress and every unit v that may
  // share a block with it, saving or not (fusion/ilp_filters.hpp): the rows
  // below and the closure cuts need them.
  void add_filter_pairs() {
    std::vector<bool> holds(m_, false);
    for (uint32_t a = 0; a < m_; ++a) holds[a] = !ug_.units->summary(ug_.ids[part_[a]]).filters.empty();
    for (uint32_t c = 0; c < m_; ++c) {
      if (!holds[c]) continue;
      for (uint32_t v = 0; v < m_; ++v) {
        if (v == c || !may_.test(v, c) || y_.count(key(v, c)) != 0) continue;
        const int col = p_.add_column(0, 1, 0.0, true);
        y_.emplace(key(v, c), col);
        weight_.resize(col + 1, 0);
      }
    }
  }

  // Seed 003's "no more fused than" rows: a pair whose union lacks
  // compresses is linked only if both its units are linked to each of them.
  void add_filter_rows() {
    const std::vector<std::pair<uint64_t, int>> ys(y_.begin(), y_.end());
    for (const auto& [k, y] : ys) {
      const uint32_t a = static_cast<uint32_t>(k >> 32), b = static_cast<uint32_t>(k & 0xffffffffu);
      const uint32_t ids[2] = {ug_.ids[part_[a]], ug_.ids[part_[b]]};
      for (uint32_t c_instr : lacking_compresses(*ug_.units, ids)) {
        const uint32_t c = compress_unit(c_instr);
        const auto ac = c == kNone ? y_.end() : y_.find(key(a, c));
        const auto bc = c == kNone ? y_.end() : y_.find(key(b, c));
        if (ac == y_.end() || bc == y_.end()) {  // it cannot have them: never linked
          p_.add_row({{y, 1.0}}, -MipProblem::kInf, 0);
          break;
        }
        p_.add_row({{y, 1.0}, {ac->second, -1.0}}, -MipProblem::kInf, 0);
        p_.add_row({{y, 1.0}, {bc->second, -1.0}}, -MipProblem::kInf, 0);
      }
    }
  }

  // Transitivity of y (valid, since y = "same block" is always an optimal
  // choice): y[a,b] + y[b,c] - y[a,c] <= 1, and y[a,b] + y[b,c] <= 1 when a
  // and c may not share a block. Not needed for correctness (blocks are the
  // components of the links), but without them the LP bound of bohrium's
  // access terms is weak.
  void add_triangles() {
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
          } else if (!may_.test(a, c)) {
            p_.add_row({{nb[i].second, 1.0}, {nb[j].second, 1.0}}, -MipProblem::kInf, 1);
          } else {
            continue;
          }
          ++added;
        }
      }
    }
  }

  // Crossing pairs: links {a1,b1} and {a2,b2} (four units) whose blocks
  // would reach each other both ways. Both links at 1 force one block for all
  // four: impossible if some cross pair may not share a block
  // (y1 + y2 <= 1), else it implies that pair's link (y1 + y2 - y <= 1).
  // Walk cuts of two links, with the second form beyond them; at most
  // kMaxCrossings rows.
  void add_crossings() {
    const std::vector<std::pair<uint64_t, int>> ys(y_.begin(), y_.end());
    auto reaches = [&](uint32_t a, uint32_t b) { return a == b || reach_.test(a, b); };
    std::size_t added = 0, checked = 0;
    for (std::size_t i = 0; i < ys.size(); ++i) {
      const uint32_t a1 = static_cast<uint32_t>(ys[i].first >> 32), b1 = static_cast<uint32_t>(ys[i].first);
      for (std::size_t j = i + 1; j < ys.size(); ++j) {
        if (added >= kMaxCrossings || ++checked > kMaxCrossingChecks) return;
        const uint32_t a2 = static_cast<uint32_t>(ys[j].first >> 32), b2 = static_cast<uint32_t>(ys[j].first);
        if (a1 == a2 || a1 == b2 || b1 == a2 || b1 == b2) continue;  // a triangle's business
        const bool forth = reaches(a1, a2) || reaches(a1, b2) || reaches(b1, a2) || reaches(b1, b2);
        const bool back = reaches(a2, a1) || reaches(a2, b1) || reaches(b2, a1) || reaches(b2, b1);
        if (!forth || !back) continue;
        int link = -1;
        bool impossible = false;
        for (uint32_t p : {a1, b1}) {
          for (uint32_t q : {a2, b2}) {
            if (!may_.test(p, q)) impossible = true;
            auto it = y_.find(key(p, q));
            if (it != y_.end() && link < 0) link = it->second;
          }
        }
        if (impossible) {
          p_.add_row({{ys[i].second, 1.0}, {ys[j].second, 1.0}}, -MipProblem::kInf, 1);
        } else if (link >= 0) {
          p_.add_row({{ys[i].second, 1.0}, {ys[j].second, 1.0}, {link, -1.0}}, -MipProblem::kInf, 1);
        } else {
          continue;
        }
        ++added;
      }
    }
  }

  // A column z in [0, 1] with z >= 1 - sum ys and objective weight `weight`;
  // minimization makes z = max(0, 1 - sum ys).
  int add_max_column(double weight, const std::vector<int>& ys) {
    // Integer, so that CBC sees an integral objective and prunes by whole units.
    const int z = p_.add_column(0, 1, weight, true);
    std::vector<std::pair<int, double>> terms{{z, 1.0}};
    for (int y : ys) terms.emplace_back(y, 1.0);
    p_.add_row(std::move(terms), 1, MipProblem::kInf);
    max_columns_.push_back({z, ys});
    return z;
  }

  // |P| for a model with a merge bonus: a unit leads its block unless it is
  // linked to an earlier unit.
  void add_leaders() {
    for (uint32_t b = 0; b < m_; ++b) {
      std::vector<int> ys;
      for (uint32_t a = 0; a < b; ++a) {
        auto it = y_.find(key(a, b));
        if (it != y_.end()) ys.push_back(it->second);
      }
      leaders_.push_back(add_max_column(static_cast<double>(ug_.bonus), ys));
    }
  }

  // bohrium: per array, the readers (writers) other than the unit creating
  // (freeing) its base; the first of them in each block pays the bytes unless
  // the creator (releaser) is in the block.
  void add_access_terms() {
    const BlockSet& s = *ug_.units;
    const Graph& g = s.graph();
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
          access_.emplace_back(add_max_column(bytes, ys), bytes);
        }
      }
    };
    add(readers, creator);
    add(writers, releaser);
  }

  const UnitGraph& ug_;
  const std::vector<uint32_t>& part_;
  uint32_t m_;
  bool filters_;  // the batch has a compress (fusion/ilp_filters.hpp)
  std::vector<uint32_t> local_;
  std::vector<std::pair<uint32_t, uint32_t>> succ_;  // dependency edges between local units
  BitMatrix reach_, reached_by_, may_;
  MipProblem p_;
  std::map<uint64_t, int> y_;
  std::vector<Cost> weight_;  // by column: a link's saving above the bonus
  std::vector<int> leaders_;
  std::vector<std::pair<int, double>> access_;
  std::vector<MaxColumn> max_columns_;
};

}  // namespace arrvm::fusion::ilp
