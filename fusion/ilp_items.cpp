// The items both searches over downsets work on (fusion/ilp_items.hpp):
// units joined by the pairs a search may not separate, their classes, chain
// heights and candidates; and rule 9's check as items join a block.
#include "fusion/ilp_items.hpp"
#include "fusion/ilp_part.hpp"

#include <algorithm>
#include <functional>
#include <map>
#include <numeric>

namespace arrvm::fusion::ilp::search {

namespace {

// Reachability (bit rows) of a graph given as successor lists, cycles allowed.
std::vector<Bits> reachability(const std::vector<std::vector<uint32_t>>& succ) {
  const std::size_t n = succ.size(), words = (n + 63) / 64;
  std::vector<Bits> reach(n, Bits(words, 0));
  for (uint32_t s = 0; s < n; ++s) {
    std::vector<uint32_t> stack{s};
    while (!stack.empty()) {
      const uint32_t v = stack.back();
      stack.pop_back();
      for (uint32_t w : succ[v]) {
        if (has(reach[s], w)) continue;
        put(reach[s], w);
        stack.push_back(w);
      }
    }
  }
  return reach;
}

// Items from the units joined in `uf`, topologically ordered (condense);
// item_of by unit.
uint32_t form_items(const FewestBlocksProblem& p, std::vector<uint32_t>& uf, std::vector<uint32_t>* item_of) {
  const std::vector<std::vector<uint32_t>> items = condense(uf, *p.edges);
  item_of->assign(p.units, 0);
  for (uint32_t x = 0; x < items.size(); ++x)
    for (uint32_t u : items[x]) (*item_of)[u] = x;
  return static_cast<uint32_t>(items.size());
}

}  // namespace

// The items: units joined by every pair that weighs more than the weight
// the optimum may still lose (the total minus V, minus what pairs between
// items that may not share a block lose anyway), to a fixpoint.
Items make_items(const FewestBlocksProblem& p, Cost total) {
  Items it;
  const uint32_t m = p.units;
  std::vector<uint32_t> uf(m), item_of;
  std::iota(uf.begin(), uf.end(), 0u);
  auto join = [&](uint32_t a, uint32_t b) {
    a = uf_root(uf, a);
    b = uf_root(uf, b);
    if (a == b) return false;
    uf[std::max(a, b)] = std::min(a, b);
    return true;
  };
  auto all_may = [&](const std::vector<uint32_t>& xs, const std::vector<uint32_t>& ys) {
    for (uint32_t a : xs)
      for (uint32_t b : ys)
        if (a != b && !p.may->test(a, b)) return false;
    return true;
  };
  Cost budget = total - p.v;
  for (const WeightedPair& w : p.weighted)
    if (w.weight > budget) join(w.a, w.b);
  for (bool changed = true; changed;) {
    changed = false;
    const uint32_t n = form_items(p, uf, &item_of);
    it = Items();
    it.n = n;
    it.units.assign(n, {});
    for (uint32_t u = 0; u < m; ++u) it.units[item_of[u]].push_back(u);
    it.compat = BitMatrix(n);
    for (uint32_t x = 0; x < n; ++x) {
      if (!all_may(it.units[x], it.units[x])) {
        it.problem = "units that must share a block may not";
        return it;
      }
      for (uint32_t y = x + 1; y < n; ++y) {
        if (all_may(it.units[x], it.units[y])) {
          it.compat.set(x, y);
          it.compat.set(y, x);
        }
      }
    }
    it.weight.assign(std::size_t{n} * n, 0);
    Cost lost = 0;
    for (const WeightedPair& w : p.weighted) {
      const uint32_t x = item_of[w.a], y = item_of[w.b];
      if (x == y) continue;
      if (!it.compat.test(x, y)) {
        lost += w.weight;
      } else {
        it.weight[std::size_t{x} * n + y] += w.weight;
        it.weight[std::size_t{y} * n + x] += w.weight;
      }
    }
    budget = total - p.v - lost;
    if (budget < 0) {
      it.problem = "the items lose more than the weighted optimum allows";
      return it;
    }
    for (uint32_t x = 0; x < n; ++x)
      for (uint32_t y = x + 1; y < n; ++y)
        if (it.weight[std::size_t{x} * n + y] > budget) changed |= join(it.units[x][0], it.units[y][0]);
  }
  it.budget = budget;
  const uint32_t n = it.n;
  it.partners.assign(n, {});
  it.partner_bits.assign(n, Bits((n + 63) / 64, 0));
  for (uint32_t x = 0; x < n; ++x) {
    for (uint32_t y = 0; y < n; ++y) {
      if (it.weight[std::size_t{x} * n + y] > 0) {
        it.partners[x].emplace_back(y, it.weight[std::size_t{x} * n + y]);
        put(it.partner_bits[x], y);
      }
    }
  }
  it.conflicts.assign(n, {});
  for (uint32_t x = 0; x < n; ++x) {
    const auto& ps = it.partners[x];
    for (std::size_t i = 0; i < ps.size(); ++i)
      for (std::size_t j = i + 1; j < ps.size(); ++j)
        if (!it.compat.test(ps[i].first, ps[j].first))
          it.conflicts[x].emplace_back(std::min(ps[i].second, ps[j].second), ps[i].first, ps[j].first);
    std::sort(it.conflicts[x].begin(), it.conflicts[x].end(), std::greater<>());
  }
  it.exclusive.assign(n, {});
  for (uint32_t x = 0; x < n; ++x) {
    std::vector<std::pair<uint32_t, Cost>> ps = it.partners[x];
    std::sort(ps.begin(), ps.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
    auto& groups = it.exclusive[x];
    for (const auto& yw : ps) {
      bool placed = false;
      for (auto& group : groups) {
        bool apart = true;
        for (std::size_t i = 0; i < group.size() && apart; ++i)
          apart = !it.compat.test(yw.first, group[i].first);
        if (apart) {
          group.push_back(yw);
          placed = true;
          break;
        }
      }
      if (!placed) groups.push_back({yw});
    }
    // Groups of one partner bound nothing.
    groups.erase(std::remove_if(groups.begin(), groups.end(), [](const auto& g) { return g.size() < 2; }),
                 groups.end());
  }
  const std::size_t words = (n + 63) / 64;
  it.preds.assign(n, Bits(words, 0));
  std::vector<std::vector<uint32_t>> isucc(n);
  for (const auto& [a, b] : *p.edges) {
    const uint32_t x = item_of[a], y = item_of[b];
    if (x != y && !has(it.preds[y], x)) {
      put(it.preds[y], x);
      isucc[x].push_back(y);
    }
  }
  // Classes: iteration shapes (items of two shapes never share a block);
  // items of only free/sync have none (kNone) and may join any block.
  std::map<uint32_t, uint32_t> class_of_shape;
  it.cls.assign(n, kNone);
  for (uint32_t x = 0; x < n; ++x) {
    for (uint32_t u : it.units[x]) {
      if (p.shape[u] == kNone) continue;
      it.cls[x] = class_of_shape.emplace(p.shape[u], class_of_shape.size()).first->second;
      break;
    }
  }
  it.members.assign(class_of_shape.size(), {});
  for (uint32_t x = 0; x < n; ++x)
    if (it.cls[x] == kNone) {
      it.shapeless.push_back(x);
    } else {
      it.members[it.cls[x]].push_back(x);
    }
  // Chain heights, in reverse topological order.
  const std::vector<Bits> reach = reachability(isucc);
  it.height.assign(n, 1);
  for (uint32_t x = n; x-- > 0;)
    for (uint32_t y = x + 1; y < n; ++y)
      if (has(reach[x], y) && it.cls[x] != kNone && it.cls[y] == it.cls[x] && !it.compat.test(x, y))
        it.height[x] = std::max(it.height[x], it.height[y] + 1);
  for (const std::vector<uint32_t>& ms : it.members) {
    it.by_height.push_back(ms);
    std::stable_sort(it.by_height.back().begin(), it.by_height.back().end(),
                     [&](uint32_t x, uint32_t y) { return it.height[x] > it.height[y]; });
    it.cands.push_back(ms);
    it.cands.back().insert(it.cands.back().end(), it.shapeless.begin(), it.shapeless.end());
    std::sort(it.cands.back().begin(), it.cands.back().end());
  }
  it.cands.push_back(it.shapeless);
  it.filters = !p.domains.empty();
  if (it.filters) {
    it.domains.assign(n, {});
    it.compresses.assign(n, {});
    for (uint32_t x = 0; x < n; ++x) {
      for (uint32_t u : it.units[x]) {
        it.domains[x].insert(it.domains[x].end(), p.domains[u].begin(), p.domains[u].end());
        it.compresses[x].insert(it.compresses[x].end(), p.compresses[u].begin(), p.compresses[u].end());
      }
      for (auto* v : {&it.domains[x], &it.compresses[x]}) {
        std::sort(v->begin(), v->end());
        v->erase(std::unique(v->begin(), v->end()), v->end());
      }
    }
  }
  return it;
}

bool closed_with(const Items& it, const std::vector<uint32_t>& in, uint32_t x) {
  std::vector<uint32_t> domains = it.domains[x], compresses = it.compresses[x];
  for (uint32_t y : in) {
    domains.insert(domains.end(), it.domains[y].begin(), it.domains[y].end());
    compresses.insert(compresses.end(), it.compresses[y].begin(), it.compresses[y].end());
  }
  std::sort(domains.begin(), domains.end());
  domains.erase(std::unique(domains.begin(), domains.end()), domains.end());
  std::sort(compresses.begin(), compresses.end());
  int tops = 0;
  for (uint32_t d : domains)
    tops += d == kNone || !std::binary_search(compresses.begin(), compresses.end(), d);
  return tops <= 1;
}

}  // namespace arrvm::fusion::ilp::search
