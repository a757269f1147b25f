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

#include "fusion/ilp_model.hpp"
#include "vm/log.hpp"

namespace arrvm::fusion::ilp {

namespace {

using Clock = std::chrono::steady_clock;

// Parts above these sizes keep their warm start (see fuse_report).
constexpr std::size_t kMaxUnits = 1000;
constexpr std::size_t kMaxColumns = 8000;
// Valid rows added up front: transitivity triangles, then crossing pairs.
constexpr std::size_t kMaxTriangles = 5000;
constexpr std::size_t kMaxCrossings = 5000;
constexpr std::size_t kMaxCrossingChecks = 4'000'000;
// Walk-cut separation on the LP relaxation before each MIP solve.
constexpr int kCutRounds = 20;
constexpr std::size_t kCutsPerRound = 200;

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

// A square bit matrix (rows of 64-bit words).
class BitMatrix {
 public:
  explicit BitMatrix(std::size_t n = 0) : words_((n + 63) / 64), bits_(n * words_, 0) {}
  bool test(uint32_t a, uint32_t b) const { return (bits_[a * words_ + b / 64] >> (b % 64)) & 1; }
  void set(uint32_t a, uint32_t b) { bits_[a * words_ + b / 64] |= uint64_t{1} << (b % 64); }
  void reset(uint32_t a, uint32_t b) { bits_[a * words_ + b / 64] &= ~(uint64_t{1} << (b % 64)); }
  uint64_t* row(uint32_t a) { return bits_.data() + a * words_; }
  const uint64_t* row(uint32_t a) const { return bits_.data() + a * words_; }
  std::size_t words() const { return words_; }

 private:
  std::size_t words_;
  std::vector<uint64_t> bits_;
};

// One independent part as a MIP over pair variables only. Units are local
// indices 0..m-1 (ascending global unit order).
class PartModel {
 public:
  PartModel(const UnitGraph& ug, const std::vector<uint32_t>& part, bool bohrium)
      : ug_(ug), part_(part), m_(static_cast<uint32_t>(part.size())) {
    local_.assign(ug.ids.size(), kNone);
    for (uint32_t i = 0; i < m_; ++i) local_[part[i]] = i;
    for (uint32_t a = 0; a < m_; ++a)
      for (uint32_t v : ug.succ[part[a]]) succ_.emplace_back(a, local_[v]);
    build_reach();
    build_may();
    add_pairs(bohrium);
    add_triangles();
    add_crossings();
    if (ug.bonus > 0) add_leaders();
    if (bohrium) add_access_terms();
  }

  MipProblem& problem() { return p_; }
  std::size_t pair_count() const { return y_.size(); }
  uint32_t unit_count() const { return m_; }

  // Σ over the part's units of their block cost minus what the MIP counts,
  // so that objective + offset = the part's share of the exact cost.
  Cost offset(const CostModel& cost, bool bohrium) const {
    if (bohrium) return 0;
    Cost c = 0;
    for (uint32_t u : part_) c += cost.block_cost(ug_.units->graph(), ug_.units->summary(ug_.ids[u])) - ug_.bonus;
    return c;
  }

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
  std::vector<MipCut> separate(const std::vector<double>& x, std::size_t limit, Clock::time_point deadline) const {
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
    std::vector<std::vector<uint32_t>> csucc(m_);
    for (const auto& [a, b] : succ_) {
      const uint32_t ra = uf_root(uf, a), rb = uf_root(uf, b);
      if (ra != rb) csucc[ra].push_back(rb);
    }
    // Tarjan's algorithm (iterative) over the components; it numbers the
    // strongly connected sets in reverse topological order.
    std::vector<int> index(m_, -1), low(m_, 0), scc(m_, -1);
    std::vector<char> on_stack(m_, 0);
    std::vector<uint32_t> stack;
    std::vector<std::pair<uint32_t, std::size_t>> call;
    int counter = 0, nscc = 0;
    for (uint32_t s = 0; s < m_; ++s) {
      if (uf_root(uf, s) != s || index[s] >= 0) continue;
      call.emplace_back(s, 0);
      index[s] = low[s] = counter++;
      stack.push_back(s);
      on_stack[s] = 1;
      while (!call.empty()) {
        auto& [v, next] = call.back();
        if (next < csucc[v].size()) {
          const uint32_t w = csucc[v][next++];
          if (index[w] < 0) {
            index[w] = low[w] = counter++;
            stack.push_back(w);
            on_stack[w] = 1;
            call.emplace_back(w, 0);
          } else if (on_stack[w]) {
            low[v] = std::min(low[v], index[w]);
          }
          continue;
        }
        if (low[v] == index[v]) {
          uint32_t w;
          do {
            w = stack.back();
            stack.pop_back();
            on_stack[w] = 0;
            scc[w] = nscc;
          } while (w != v);
          ++nscc;
        }
        const uint32_t done = v;
        call.pop_back();
        if (!call.empty()) low[call.back().first] = std::min(low[call.back().first], low[done]);
      }
    }
    std::vector<std::vector<uint32_t>> blocks(nscc);
    for (uint32_t a = 0; a < m_; ++a) blocks[nscc - 1 - scc[uf_root(uf, a)]].push_back(a);
    return blocks;
  }

  // Splits every block holding two units that may not share a block into
  // single units: what is left is legal (a legal partition stays legal when
  // a block is split into single units, and these blocks are acyclic).
  std::vector<std::vector<uint32_t>> legal_part(std::vector<std::vector<uint32_t>> blocks) const {
    std::vector<std::vector<uint32_t>> r;
    for (auto& b : blocks) {
      bool ok = true;
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
        if (s.fusible(ia, ib) && !s.never_together(ia, ib)) {
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
  void add_pairs(bool bohrium) {
    for (const Pair& pr : ug_.pairs) {
      const uint32_t a = local_[pr.u], b = local_[pr.w];
      if (a == kNone || !may_.test(a, b)) continue;
      const double coef = bohrium ? 0.0 : -static_cast<double>(pr.saving - ug_.bonus);
      y_.emplace(key(a, b), p_.add_column(0, 1, coef, true));
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
  void add_max_column(double weight, const std::vector<int>& ys) {
    // Integer, so that CBC sees an integral objective and prunes by whole units.
    const int z = p_.add_column(0, 1, weight, true);
    std::vector<std::pair<int, double>> terms{{z, 1.0}};
    for (int y : ys) terms.emplace_back(y, 1.0);
    p_.add_row(std::move(terms), 1, MipProblem::kInf);
    max_columns_.push_back({z, ys});
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
      add_max_column(static_cast<double>(ug_.bonus), ys);
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
  std::vector<uint32_t> local_;
  std::vector<std::pair<uint32_t, uint32_t>> succ_;  // dependency edges between local units
  BitMatrix reach_, reached_by_, may_;
  MipProblem p_;
  std::map<uint64_t, int> y_;
  std::vector<MaxColumn> max_columns_;
};

using Blocks = std::vector<std::vector<uint32_t>>;

// What solving one part gave.
struct PartResult {
  Blocks blocks;  // legal, local units, topological order; empty: none better than the warm start
  bool optimal = false;
  bool failed = false;
  std::string message;
  double objective = 0;  // the MIP lower bound, when optimal
  int mip_solves = 0, cuts = 0;
};

// How solve_part scores and improves legal blocks of the part.
struct PartScoring {
  std::function<double(const Blocks&)> value;  // exact cost, on the MIP's scale
  std::function<Blocks(const Blocks&)> improve;  // greedy merges on top
};

// Cutting-plane loop: separate walk cuts on the LP, solve the MIP, and
// repeat while its solution links units into an illegal block (then its
// walk cuts are added). Every cut is valid for every legal partition, so
// each MIP optimum is a lower bound of the part's optimum: it is proven
// when a legal solution reaches it. An illegal solution is repaired
// (PartModel::legal_part, greedy merges) into the incumbent that the next
// MIP starts from.
PartResult solve_part(PartModel& model, const Blocks& warm, const PartScoring& scoring,
                      Clock::time_point deadline, bool verbose) {
  PartResult res;
  Blocks incumbent = warm;
  double incumbent_value = scoring.value(warm);
  auto group_of = [&](const Blocks& blocks) {
    std::vector<uint32_t> group(model.unit_count());
    for (uint32_t i = 0; i < blocks.size(); ++i)
      for (uint32_t a : blocks[i]) group[a] = i;
    return group;
  };
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
    const MipResult r =
        solve_mip(model.problem(), model.solution_of(group_of(incumbent)), std::max(left, 0.0), verbose);
    ++res.mip_solves;
    if (r.status == MipResult::Status::Failed) {
      res.failed = true;
      res.message = r.message;
      return res;
    }
    const bool bound = r.status == MipResult::Status::Optimal;
    std::vector<MipCut> cuts = model.separate(r.x, kCutsPerRound, Clock::time_point::max());
    Blocks found = model.blocks_of(r.x);
    if (!cuts.empty()) found = scoring.improve(model.legal_part(std::move(found)));
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

  const bool bohrium = cost.name() == "bohrium";
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
    PartModel model(ug, part, bohrium);
    if (model.pair_count() == 0 && !options.ilp_force_failure) {
      // No two units that may share a block save anything together:
      // single units are optimal.
      std::vector<std::vector<uint32_t>> singles;
      for (uint32_t u : part) singles.push_back({u});
      ++rep.solved;
      ++rep.proven_optimal;
      keep(singles);
      continue;
    }
    if (options.ilp_force_failure) {
      // Test hook: a column that no value satisfies.
      const int col = model.problem().add_column(0, 1, 0, true);
      model.problem().add_row({{col, 1.0}}, 2, MipProblem::kInf);
    }
    const Cost offset = model.offset(cost, bohrium);
    PartScoring scoring;
    scoring.value = [&](const Blocks& blocks) { return static_cast<double>(groups_cost(to_units(blocks)) - offset); };
    scoring.improve = [&](const Blocks& blocks) {
      // Greedy merges on a block set holding these blocks (the rest of the
      // batch as units), read back for the part.
      BlockSet s = units;
      merge_blocks(s, to_units(blocks), ug.ids, unit_pos);
      greedy::merge_all(s);
      std::map<uint32_t, std::vector<uint32_t>> by_block;
      for (uint32_t a = 0; a < part.size(); ++a) by_block[s.find(ug.ids[part[a]])].push_back(a);
      Blocks r;
      for (auto& [b, grp] : by_block) r.push_back(std::move(grp));
      return r;
    };
    const PartResult r = solve_part(model, seed_groups, scoring, part_deadline, verbose);
    rep.columns += model.problem().columns();
    rep.rows += model.problem().rows();
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
      if (std::abs(r.objective - scoring.value(found)) > 0.5) ++rep.inexact;
    }
    if (verbose) {
      logger().debug("fuser 'ilp': part of {} units, {} columns, {} rows, {} MIP solves, {} cuts: {}, cost {}, greedy {}",
                     part.size(), model.problem().columns(), model.problem().rows(), r.mip_solves, r.cuts,
                     r.optimal ? "optimal" : "stopped", scoring.value(found) + offset,
                     scoring.value(seed_groups) + offset);
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
