// optimal (seed 001 Fig. 11): branch and bound over the partitions of the
// unintrusive blocks ("units").
//
// The weight edges E are the unit pairs that are fusible and have a positive
// saving. A subset M of E stands for the partition closure(M): the connected
// components of M, with every strongly connected set of components of the
// dependency graph merged (the finest acyclic coarsening). Starting from
// M = E, each search node cuts one more edge at an index >= its offset, so
// every subset is visited at most once (Fig. 11's mask and offset). Fewer
// edges give a finer partition, so by Def. 6 (2) the cost of a node bounds
// its whole subtree from below: a node no cheaper than the best partition
// found is cut, and a legal node is a leaf. A node whose kept prefix
// (edges below the offset, never cut below it) is already illegal is cut too.
//
// Unlike Fig. 11 we keep edges that are not legal merges in the unintrusive
// partition and add the closure: every legal partition P >= units is then
// represented, up to cost, by the edges inside its blocks, so the search is
// exact (fusion/README.md has the argument). Pairs that can never share a
// legal block (BlockSet::never_together) are left out of E. The seeds are linear, greedy,
// unintrusive, and greedy from the unintrusive blocks.
//
// With a cost model that rewards every merge (robinson), every fusible pair
// is a weight edge and the masks repeat each partition many times; then the
// search is fusion/assignment_search, which visits each partition once.

#include "fusion/algorithms.hpp"

#include <algorithm>
#include <chrono>

#include "fusion/assignment_search.hpp"

namespace arrvm::fusion::optimal {

namespace {

using Clock = std::chrono::steady_clock;

class Search {
 public:
  Search(const BlockSet& units, Clock::time_point deadline) : g_(units.graph()), deadline_(deadline) {
    cost_ = &units.cost_model();
    const std::vector<uint32_t> ids = units.blocks();
    k_ = static_cast<uint32_t>(ids.size());
    std::vector<uint32_t> index(g_.size(), kNone);
    for (uint32_t u = 0; u < k_; ++u) index[ids[u]] = u;
    succ_.resize(k_);
    for (uint32_t u = 0; u < k_; ++u) {
      sum_.push_back(units.summary(ids[u]));
      members_.push_back(units.members(ids[u]));
      for (uint32_t s : units.successors(ids[u])) succ_[u].push_back(index[s]);
    }
    struct Weighted {
      Cost saving;
      uint32_t a, b;
    };
    std::vector<Weighted> w;
    for (uint32_t u = 0; u < k_; ++u) {
      std::vector<uint32_t> others;
      if (units.merge_bonus() > 0) {
        others = ids;  // every merge saves something
      } else {
        others = units.partners(ids[u]);
      }
      for (uint32_t p : others) {
        const uint32_t v = index[p];
        if (v <= u) continue;
        const Cost saving = units.saving(ids[u], p);
        // A pair that can never share a legal block is never inside one of
        // the blocks whose edges the search needs.
        if (saving > 0 && units.fusible(ids[u], p) && !units.never_together(ids[u], p))
          w.push_back({saving, u, v});
      }
    }
    std::stable_sort(w.begin(), w.end(),
                     [](const Weighted& x, const Weighted& y) { return x.saving > y.saving; });
    for (const Weighted& e : w) edges_.emplace_back(e.a, e.b);
    keep_.assign(edges_.size(), 1);
  }

  // Searches for a partition cheaper than `bound`; true if one was found
  // (then best() holds it).
  bool run(Cost bound) {
    best_cost_ = bound;
    visit(0);
    return found_;
  }
  bool timed_out() const { return timed_out_; }
  std::size_t nodes() const { return nodes_; }

  std::vector<Block> best() const {
    std::vector<Block> blocks;
    for (const std::vector<uint32_t>& units : best_) {
      Block b;
      for (uint32_t u : units) b.insert(b.end(), members_[u].begin(), members_[u].end());
      blocks.push_back(std::move(b));
    }
    return blocks;
  }

 private:
  void visit(std::size_t offset) {
    if (timed_out_ || (timed_out_ = Clock::now() >= deadline_)) return;
    ++nodes_;
    closure(edges_.size());
    Cost cost = 0;
    const bool legal = evaluate(&cost);
    if (cost >= best_cost_) return;
    if (legal) {
      best_cost_ = cost;
      best_ = groups();
      found_ = true;
      return;
    }
    closure(offset);
    Cost ignored;
    if (!evaluate(&ignored)) return;  // the edges that stay already break a block
    for (std::size_t i = offset; i < edges_.size(); ++i) {
      keep_[i] = 0;
      visit(i + 1);
      keep_[i] = 1;
      if (timed_out_) return;
    }
  }

  uint32_t root(uint32_t u) {
    while (uf_[u] != u) u = uf_[u] = uf_[uf_[u]];
    return u;
  }

  // block_[u] = the block of unit u in closure(kept edges with index < upto).
  void closure(std::size_t upto) {
    uf_.resize(k_);
    for (uint32_t u = 0; u < k_; ++u) uf_[u] = u;
    for (std::size_t i = 0; i < upto; ++i) {
      if (!keep_[i]) continue;
      const uint32_t a = root(edges_[i].first), b = root(edges_[i].second);
      if (a != b) uf_[std::max(a, b)] = std::min(a, b);
    }
    // Strongly connected components (Tarjan, iterative) of the component graph.
    comp_succ_.assign(k_, {});
    for (uint32_t u = 0; u < k_; ++u) {
      for (uint32_t v : succ_[u]) {
        const uint32_t a = root(u), b = root(v);
        if (a != b) comp_succ_[a].push_back(b);
      }
    }
    index_.assign(k_, kNone);
    low_.assign(k_, 0);
    on_stack_.assign(k_, 0);
    scc_.assign(k_, kNone);
    stack_.clear();
    uint32_t counter = 0, nscc = 0;
    std::vector<std::pair<uint32_t, uint32_t>> call;  // (node, next edge)
    for (uint32_t s = 0; s < k_; ++s) {
      if (root(s) != s || index_[s] != kNone) continue;
      call.emplace_back(s, 0);
      index_[s] = low_[s] = counter++;
      stack_.push_back(s);
      on_stack_[s] = 1;
      while (!call.empty()) {
        auto& [v, next] = call.back();
        if (next < comp_succ_[v].size()) {
          const uint32_t w = comp_succ_[v][next++];
          if (index_[w] == kNone) {
            index_[w] = low_[w] = counter++;
            stack_.push_back(w);
            on_stack_[w] = 1;
            call.emplace_back(w, 0);
          } else if (on_stack_[w]) {
            low_[v] = std::min(low_[v], index_[w]);
          }
          continue;
        }
        if (low_[v] == index_[v]) {
          uint32_t w;
          do {
            w = stack_.back();
            stack_.pop_back();
            on_stack_[w] = 0;
            scc_[w] = nscc;
          } while (w != v);
          ++nscc;
        }
        const uint32_t done = v;
        call.pop_back();
        if (!call.empty()) low_[call.back().first] = std::min(low_[call.back().first], low_[done]);
      }
    }
    nblocks_ = nscc;
    block_.resize(k_);
    for (uint32_t u = 0; u < k_; ++u) block_[u] = scc_[root(u)];
  }

  // Cost of the current closure and whether each block is fusible inside.
  bool evaluate(Cost* cost) {
    summaries_.assign(nblocks_, BlockSummary{});
    bool legal = true;
    for (uint32_t u = 0; u < k_; ++u) {
      BlockSummary& s = summaries_[block_[u]];
      if (legal && s.size > 0 && !blocks_fusible(g_, s, sum_[u])) legal = false;
      s.absorb(sum_[u]);
    }
    Cost c = cost_->constant(g_);
    for (const BlockSummary& s : summaries_) c += cost_->block_cost(g_, s);
    *cost = c;
    return legal;
  }

  std::vector<std::vector<uint32_t>> groups() const {
    std::vector<std::vector<uint32_t>> r(nblocks_);
    for (uint32_t u = 0; u < k_; ++u) r[block_[u]].push_back(u);
    return r;
  }

  const Graph& g_;
  const CostModel* cost_;
  Clock::time_point deadline_;
  uint32_t k_ = 0;
  std::vector<BlockSummary> sum_;
  std::vector<Block> members_;
  std::vector<std::vector<uint32_t>> succ_;
  std::vector<std::pair<uint32_t, uint32_t>> edges_;
  std::vector<char> keep_;
  Cost best_cost_ = 0;
  std::vector<std::vector<uint32_t>> best_;
  bool found_ = false, timed_out_ = false;
  std::size_t nodes_ = 0;
  // scratch
  std::vector<uint32_t> uf_, index_, low_, scc_, stack_, block_;
  std::vector<char> on_stack_;
  std::vector<std::vector<uint32_t>> comp_succ_;
  std::vector<BlockSummary> summaries_;
  uint32_t nblocks_ = 0;
};

}  // namespace

Partition fuse(const Graph& g, const CostModel& cost, const Options& options) {
  const auto deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                           std::chrono::duration<double>(options.time_limit));
  // The seeds always complete (greedy and linear first: optimal is never
  // worse than either); the time limit bounds what comes after.
  Partition best = linear::fuse(g, cost, options);
  Cost best_cost = cost.cost(g, best);
  auto offer = [&](const BlockSet& s) {
    const Cost c = s.cost();
    if (c < best_cost) {
      best_cost = c;
      best = s.partition();
    }
  };
  BlockSet from_singletons(g, cost);
  greedy::merge_all_both_orders(from_singletons);
  offer(from_singletons);
  BlockSet units(g, cost);
  unintrusive::merge_all(units);
  units.enable_reach_filter();
  offer(units);
  if (Clock::now() >= deadline) return best;
  BlockSet from_units = units;
  greedy::merge_all_both_orders(from_units);
  offer(from_units);
  if (Clock::now() >= deadline) return best;
  std::vector<Block> found;
  if (cost.merge_bonus(g) > 0) {
    if (!assignment_search(units, best_cost, deadline, &found)) return best;
    return ordered_partition(g, std::move(found));
  }
  Search search(units, deadline);
  if (!search.run(best_cost)) return best;
  return ordered_partition(g, search.best());
}

}  // namespace arrvm::fusion::optimal
