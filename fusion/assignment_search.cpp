#include "fusion/assignment_search.hpp"

#include <algorithm>

namespace arrvm::fusion {

namespace {

using Clock = std::chrono::steady_clock;

class Assigner {
 public:
  Assigner(const BlockSet& units, Clock::time_point deadline)
      : g_(units.graph()), cost_(units.cost_model()), deadline_(deadline) {
    // Units in topological order: a unit's predecessors are assigned before it.
    std::vector<uint32_t> index(g_.size(), kNone);
    for (const Block& b : units.partition().blocks) {
      index[b.front()] = static_cast<uint32_t>(ids_.size());
      ids_.push_back(b.front());
    }
    k_ = static_cast<uint32_t>(ids_.size());
    succ_.resize(k_);
    pred_.resize(k_);
    for (uint32_t u = 0; u < k_; ++u) {
      sum_.push_back(units.summary(ids_[u]));
      for (uint32_t s : units.successors(ids_[u])) {
        succ_[u].push_back(index[s]);
        pred_[index[s]].push_back(u);
      }
      members_.push_back(units.members(ids_[u]));
    }
    constant_ = cost_.constant(g_);
    rest_.assign(k_ + 1, 0);
    for (uint32_t u = k_; u-- > 0;) {
      if (Clock::now() >= deadline_) {
        timed_out_ = true;
        return;
      }
      BlockSummary others;
      for (uint32_t w = 0; w < k_; ++w) {
        if (w != u) others.absorb(sum_[w]);
      }
      const Cost most = std::max<Cost>(0, cost_.saving(g_, sum_[u], others));
      rest_[u] = rest_[u + 1] + cost_.block_cost(g_, sum_[u]) - most;
    }
    group_of_.assign(k_, kNone);
  }

  bool run(Cost bound) {
    if (timed_out_) return false;
    best_cost_ = bound;
    assign(0, 0);
    return found_;
  }

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
  struct Group {
    std::vector<uint32_t> units;
    BlockSummary summary;
    Cost cost = 0;
  };

  void assign(uint32_t v, Cost groups_cost) {
    if (timed_out_ || (timed_out_ = (++nodes_ % 64 == 0 && Clock::now() >= deadline_))) return;
    if (constant_ + groups_cost + rest_[v] >= best_cost_) return;
    if (v == k_) {
      best_cost_ = constant_ + groups_cost;
      best_.clear();
      for (const Group& grp : groups_) best_.push_back(grp.units);
      found_ = true;
      return;
    }
    // Options: join a group (cheapest first), or open a new one.
    struct Option {
      Cost delta;
      uint32_t group;
      BlockSummary summary;
      Cost cost;
    };
    std::vector<Option> options;
    for (uint32_t k = 0; k < groups_.size(); ++k) {
      if (!fits(v, k)) continue;
      BlockSummary s = groups_[k].summary;
      s.absorb(sum_[v]);
      const Cost c = cost_.block_cost(g_, s);
      options.push_back(Option{c - groups_[k].cost, k, std::move(s), c});
    }
    std::stable_sort(options.begin(), options.end(),
                     [](const Option& a, const Option& b) { return a.delta < b.delta; });
    for (Option& o : options) {
      // Deeper levels append groups: index groups_ afresh after recursing.
      BlockSummary old = std::move(groups_[o.group].summary);
      const Cost old_cost = groups_[o.group].cost;
      groups_[o.group].summary = std::move(o.summary);
      groups_[o.group].cost = o.cost;
      groups_[o.group].units.push_back(v);
      group_of_[v] = o.group;
      assign(v + 1, groups_cost + o.delta);
      Group& grp = groups_[o.group];
      grp.units.pop_back();
      grp.summary = std::move(old);
      grp.cost = old_cost;
      if (timed_out_) return;
    }
    Group fresh;
    fresh.units = {v};
    fresh.summary = sum_[v];
    fresh.cost = cost_.block_cost(g_, fresh.summary);
    const Cost c = fresh.cost;
    groups_.push_back(std::move(fresh));
    group_of_[v] = static_cast<uint32_t>(groups_.size() - 1);
    assign(v + 1, groups_cost + c);
    groups_.pop_back();
  }

  // Unit v may join group k: fusible, and no cycle. v's predecessors are
  // assigned and its successors are not, so the new edges all point into k:
  // a cycle appears iff k already reaches the group of a predecessor.
  bool fits(uint32_t v, uint32_t k) {
    if (!blocks_fusible(g_, groups_[k].summary, sum_[v])) return false;
    into_.assign(groups_.size(), 0);
    bool any = false;
    for (uint32_t p : pred_[v]) {
      if (group_of_[p] != k) {
        into_[group_of_[p]] = 1;
        any = true;
      }
    }
    if (!any) return true;
    seen_.assign(groups_.size(), 0);
    stack_.assign(1, k);
    seen_[k] = 1;
    while (!stack_.empty()) {
      const uint32_t b = stack_.back();
      stack_.pop_back();
      for (uint32_t m : groups_[b].units) {
        for (uint32_t s : succ_[m]) {
          if (s >= v) continue;  // not assigned yet
          const uint32_t c = group_of_[s];
          if (seen_[c]) continue;
          if (into_[c]) return false;
          seen_[c] = 1;
          stack_.push_back(c);
        }
      }
    }
    return true;
  }

  const Graph& g_;
  const CostModel& cost_;
  Clock::time_point deadline_;
  uint32_t k_ = 0;
  std::vector<uint32_t> ids_;
  std::vector<BlockSummary> sum_;
  std::vector<Block> members_;
  std::vector<std::vector<uint32_t>> succ_, pred_;
  std::vector<Cost> rest_;
  Cost constant_ = 0;
  Cost best_cost_ = 0;
  std::vector<std::vector<uint32_t>> best_;
  std::vector<Group> groups_;
  std::vector<uint32_t> group_of_;
  std::vector<char> into_, seen_;
  std::vector<uint32_t> stack_;
  bool found_ = false, timed_out_ = false;
  uint64_t nodes_ = 0;
};

}  // namespace

bool assignment_search(const BlockSet& units, Cost bound, Clock::time_point deadline,
                       std::vector<Block>* best) {
  Assigner a(units, deadline);
  if (!a.run(bound)) return false;
  *best = a.best();
  return true;
}

}  // namespace arrvm::fusion
