// The fewest blocks at the weighted optimum: fusion/ilp_blocks_search.hpp
// describes the search and why it is exact.
#include "fusion/ilp_blocks_search.hpp"

#include <algorithm>
#include <numeric>
#include <queue>
#include <tuple>
#include <unordered_map>

namespace arrvm::fusion::ilp {

namespace {

using Bits = std::vector<uint64_t>;

uint32_t root(std::vector<uint32_t>& uf, uint32_t u) {
  while (uf[u] != u) u = uf[u] = uf[uf[u]];
  return u;
}

bool has(const Bits& b, uint32_t i) { return (b[i / 64] >> (i % 64)) & 1; }
void put(Bits& b, uint32_t i) { b[i / 64] |= uint64_t{1} << (i % 64); }

struct BitsHash {
  std::size_t operator()(const Bits& b) const {
    uint64_t h = 0x9e3779b97f4a7c15ull;
    for (uint64_t w : b) h = (h ^ w) * 0xff51afd7ed558ccdull;
    return static_cast<std::size_t>(h ^ (h >> 29));
  }
};

// The items (see the header) and what the search needs about them.
struct Items {
  uint32_t n = 0;
  std::vector<std::vector<uint32_t>> units;  // by item, in topological order of the items
  std::vector<Bits> preds;                   // direct predecessors (items)
  BitMatrix compat;                          // may share a block
  std::vector<uint32_t> cls;                 // class: component of compat
  std::vector<std::vector<uint32_t>> members;  // by class, items in topological order
  std::vector<char> clique;                    // by class: every two items compatible
  std::vector<uint32_t> height;                // longest chain starting at the item, in its class
  std::string problem;                         // not empty: the items could not be formed
};

// Groups (units joined by weighted pairs), then items (groups reaching each
// other both ways), topologically ordered.
Items make_items(const FewestBlocksProblem& p) {
  Items it;
  const uint32_t m = p.units;
  std::vector<uint32_t> uf(m);
  std::iota(uf.begin(), uf.end(), 0u);
  for (const WeightedPair& w : p.weighted) {
    const uint32_t a = root(uf, w.a), b = root(uf, w.b);
    if (a != b) uf[std::max(a, b)] = std::min(a, b);
  }
  std::vector<uint32_t> group(m, kNone);
  uint32_t groups = 0;
  for (uint32_t u = 0; u < m; ++u)
    if (root(uf, u) == u) group[u] = groups++;
  for (uint32_t u = 0; u < m; ++u) group[u] = group[root(uf, u)];
  std::vector<std::vector<uint32_t>> gsucc(groups);
  for (const auto& [a, b] : *p.edges)
    if (group[a] != group[b]) gsucc[group[a]].push_back(group[b]);
  // Reachability between groups (the group graph may have cycles).
  const std::size_t gw = (groups + 63) / 64;
  std::vector<Bits> greach(groups, Bits(gw, 0));
  for (uint32_t s = 0; s < groups; ++s) {
    std::vector<uint32_t> stack{s};
    while (!stack.empty()) {
      const uint32_t v = stack.back();
      stack.pop_back();
      for (uint32_t w : gsucc[v]) {
        if (has(greach[s], w)) continue;
        put(greach[s], w);
        stack.push_back(w);
      }
    }
  }
  std::vector<uint32_t> item_of(groups, kNone);
  std::vector<std::vector<uint32_t>> item_groups;
  for (uint32_t g = 0; g < groups; ++g) {
    if (item_of[g] != kNone) continue;
    item_of[g] = static_cast<uint32_t>(item_groups.size());
    item_groups.push_back({g});
    for (uint32_t h = g + 1; h < groups; ++h) {
      if (item_of[h] == kNone && has(greach[g], h) && has(greach[h], g)) {
        item_of[h] = item_of[g];
        item_groups.back().push_back(h);
      }
    }
  }
  const uint32_t n = static_cast<uint32_t>(item_groups.size());
  // Topological order of the items (Kahn).
  std::vector<std::vector<uint32_t>> isucc(n);
  std::vector<uint32_t> indeg(n, 0), order;
  for (const auto& [a, b] : *p.edges) {
    const uint32_t x = item_of[group[a]], y = item_of[group[b]];
    if (x != y) {
      isucc[x].push_back(y);
      ++indeg[y];
    }
  }
  for (uint32_t x = 0; x < n; ++x)
    if (indeg[x] == 0) order.push_back(x);
  for (std::size_t i = 0; i < order.size(); ++i)
    for (uint32_t y : isucc[order[i]])
      if (--indeg[y] == 0) order.push_back(y);
  std::vector<uint32_t> pos(n);
  for (uint32_t i = 0; i < n; ++i) pos[order[i]] = i;
  it.n = n;
  it.units.assign(n, {});
  for (uint32_t u = 0; u < m; ++u) it.units[pos[item_of[group[u]]]].push_back(u);
  const std::size_t words = (n + 63) / 64;
  it.preds.assign(n, Bits(words, 0));
  for (const auto& [a, b] : *p.edges) {
    const uint32_t x = pos[item_of[group[a]]], y = pos[item_of[group[b]]];
    if (x != y) put(it.preds[y], x);
  }
  auto all_may = [&](const std::vector<uint32_t>& xs, const std::vector<uint32_t>& ys) {
    for (uint32_t a : xs)
      for (uint32_t b : ys)
        if (a != b && !p.may->test(a, b)) return false;
    return true;
  };
  it.compat = BitMatrix(n);
  for (uint32_t x = 0; x < n; ++x) {
    if (!all_may(it.units[x], it.units[x])) {
      it.problem = "a group of weighted pairs may not share a block";
      return it;
    }
    for (uint32_t y = x + 1; y < n; ++y) {
      if (all_may(it.units[x], it.units[y])) {
        it.compat.set(x, y);
        it.compat.set(y, x);
      }
    }
  }
  // Classes: components of compat.
  it.cls.assign(n, kNone);
  uint32_t classes = 0;
  for (uint32_t s = 0; s < n; ++s) {
    if (it.cls[s] != kNone) continue;
    std::vector<uint32_t> stack{s};
    it.cls[s] = classes;
    while (!stack.empty()) {
      const uint32_t v = stack.back();
      stack.pop_back();
      for (uint32_t w = 0; w < n; ++w) {
        if (it.cls[w] == kNone && it.compat.test(v, w)) {
          it.cls[w] = classes;
          stack.push_back(w);
        }
      }
    }
    ++classes;
  }
  it.members.assign(classes, {});
  for (uint32_t x = 0; x < n; ++x) it.members[it.cls[x]].push_back(x);
  it.clique.assign(classes, 1);
  for (uint32_t c = 0; c < classes; ++c) {
    const auto& ms = it.members[c];
    for (std::size_t i = 0; i < ms.size() && it.clique[c]; ++i)
      for (std::size_t j = i + 1; j < ms.size() && it.clique[c]; ++j)
        it.clique[c] = it.compat.test(ms[i], ms[j]);
  }
  // Reachability between items (topological indices) and chain heights.
  std::vector<Bits> reach(n, Bits(words, 0));
  for (uint32_t y = 0; y < n; ++y)
    for (uint32_t x = 0; x < y; ++x)
      if (has(it.preds[y], x)) put(reach[x], y);
  for (uint32_t x = n; x-- > 0;) {
    for (uint32_t y = x + 1; y < n; ++y) {
      if (!has(reach[x], y) || !has(it.preds[y], x)) continue;
      for (std::size_t k = 0; k < words; ++k) reach[x][k] |= reach[y][k];
    }
  }
  it.height.assign(n, 1);
  for (uint32_t x = n; x-- > 0;)
    for (uint32_t y = x + 1; y < n; ++y)
      if (has(reach[x], y) && it.cls[y] == it.cls[x] && !it.compat.test(x, y))
        it.height[x] = std::max(it.height[x], it.height[y] + 1);
  return it;
}

class Search {
 public:
  Search(const Items& it, std::chrono::steady_clock::time_point deadline, long max_states)
      : it_(it), words_((it.n + 63) / 64), deadline_(deadline), max_states_(max_states) {}

  FewestBlocksResult run() {
    FewestBlocksResult res;
    Bits start(words_, 0);
    add_state(std::move(start), 0, kNone, Bits());
    while (!open_.empty()) {
      const auto [f, neg_g, s] = open_.top();
      open_.pop();
      if (states_[s].closed) continue;
      states_[s].closed = true;
      if (complete(states_[s].placed)) {
        res.proven = !inexact_;
        if (!res.proven) res.why = "too many maximal blocks";
        for (uint32_t t = s; states_[t].parent != kNone; t = states_[t].parent) {
          std::vector<uint32_t> block;
          for (uint32_t x = 0; x < it_.n; ++x)
            if (has(states_[t].block, x)) block.insert(block.end(), it_.units[x].begin(), it_.units[x].end());
          std::sort(block.begin(), block.end());
          res.blocks.push_back(std::move(block));
        }
        std::reverse(res.blocks.begin(), res.blocks.end());
        res.states = expanded_;
        return res;
      }
      if (++expanded_ > max_states_ || ((expanded_ & 255) == 0 && std::chrono::steady_clock::now() >= deadline_)) {
        res.why = expanded_ > max_states_ ? "state limit" : "time limit";
        res.states = expanded_;
        return res;
      }
      expand(s);
    }
    res.why = "no complete partition";  // cannot happen: single items always complete
    res.states = expanded_;
    return res;
  }

 private:
  struct State {
    Bits placed, block;  // items placed; the block that led here
    uint32_t parent, g;
    bool closed = false;
  };

  bool complete(const Bits& placed) const {
    for (uint32_t x = 0; x < it_.n; ++x)
      if (!has(placed, x)) return false;
    return true;
  }

  uint32_t bound(const Bits& placed) const {
    std::vector<uint32_t> best(it_.members.size(), 0);
    for (uint32_t x = 0; x < it_.n; ++x)
      if (!has(placed, x)) best[it_.cls[x]] = std::max(best[it_.cls[x]], it_.height[x]);
    return std::accumulate(best.begin(), best.end(), 0u);
  }

  void add_state(Bits placed, uint32_t g, uint32_t parent, Bits block) {
    auto found = index_.find(placed);
    if (found != index_.end()) {
      State& st = states_[found->second];
      if (st.closed || st.g <= g) return;
      st.g = g;
      st.parent = parent;
      st.block = std::move(block);
      open_.emplace(g + bound(st.placed), -static_cast<int64_t>(g), found->second);
      return;
    }
    const uint32_t id = static_cast<uint32_t>(states_.size());
    const uint32_t h = bound(placed);
    index_.emplace(placed, id);
    states_.push_back({std::move(placed), std::move(block), parent, g});
    open_.emplace(g + h, -static_cast<int64_t>(g), id);
  }

  // x may join `block` after `placed`: its predecessors are placed or in
  // the block, and it may share a block with every item of it.
  bool includable(uint32_t x, const Bits& placed, const Bits& block, const std::vector<uint32_t>& in) const {
    for (std::size_t k = 0; k < words_; ++k)
      if (it_.preds[x][k] & ~(placed[k] | block[k])) return false;
    for (uint32_t y : in)
      if (!it_.compat.test(x, y)) return false;
    return true;
  }

  void expand(uint32_t s) {
    const Bits placed = states_[s].placed;
    const uint32_t g = states_[s].g;
    for (uint32_t c = 0; c < it_.members.size(); ++c) {
      std::vector<uint32_t> cand;
      for (uint32_t x : it_.members[c])
        if (!has(placed, x)) cand.push_back(x);
      if (cand.empty()) continue;
      std::vector<Bits> blocks;
      if (it_.clique[c]) {
        Bits block(words_, 0);
        bool any = false;
        for (uint32_t x : cand) {
          if (includable(x, placed, block, {})) {
            put(block, x);
            any = true;
          }
        }
        if (any) blocks.push_back(std::move(block));
      } else {
        Bits block(words_, 0);
        std::vector<uint32_t> in;
        long steps = 0;
        maximal_blocks(cand, 0, placed, block, in, &blocks, &steps);
      }
      for (Bits& block : blocks) {
        Bits next = placed;
        for (std::size_t k = 0; k < words_; ++k) next[k] |= block[k];
        add_state(std::move(next), g + 1, s, std::move(block));
      }
    }
  }

  // Every maximal block among cand[i..] given the items `in` chosen so far
  // (topological order: a candidate's predecessors among them come first).
  void maximal_blocks(const std::vector<uint32_t>& cand, std::size_t i, const Bits& placed, Bits& block,
                      std::vector<uint32_t>& in, std::vector<Bits>* out, long* steps) {
    if (++*steps > kMaxSteps || out->size() >= kMaxBlocks) {
      inexact_ = true;
      return;
    }
    if (i == cand.size()) {
      if (in.empty()) return;
      for (uint32_t x : cand)
        if (!has(block, x) && includable(x, placed, block, in)) return;  // not maximal
      out->push_back(block);
      return;
    }
    const uint32_t x = cand[i];
    if (includable(x, placed, block, in)) {
      put(block, x);
      in.push_back(x);
      maximal_blocks(cand, i + 1, placed, block, in, out, steps);
      in.pop_back();
      block[x / 64] &= ~(uint64_t{1} << (x % 64));
    }
    maximal_blocks(cand, i + 1, placed, block, in, out, steps);
  }

  static constexpr long kMaxSteps = 4096;
  static constexpr std::size_t kMaxBlocks = 64;

  const Items& it_;
  const std::size_t words_;
  const std::chrono::steady_clock::time_point deadline_;
  const long max_states_;
  long expanded_ = 0;
  bool inexact_ = false;
  std::vector<State> states_;
  std::unordered_map<Bits, uint32_t, BitsHash> index_;
  // (f, -g, state): smallest f first, deepest first among equal f.
  std::priority_queue<std::tuple<uint32_t, int64_t, uint32_t>, std::vector<std::tuple<uint32_t, int64_t, uint32_t>>,
                      std::greater<>>
      open_;
};

}  // namespace

FewestBlocksResult fewest_blocks(const FewestBlocksProblem& p, std::chrono::steady_clock::time_point deadline,
                                 long max_states) {
  FewestBlocksResult res;
  Cost total = 0;
  for (const WeightedPair& w : p.weighted) total += w.weight;
  if (total != p.v) {
    res.why = "the weighted optimum separates weighted pairs";
    return res;
  }
  const Items it = make_items(p);
  if (!it.problem.empty()) {
    res.why = it.problem;
    return res;
  }
  res = Search(it, deadline, max_states).run();
  if (!res.proven) res.blocks.clear();
  return res;
}

}  // namespace arrvm::fusion::ilp
