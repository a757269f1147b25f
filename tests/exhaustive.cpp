#include "tests/exhaustive.hpp"

#include <unordered_map>
#include <vector>

#include "fusion/block.hpp"
#include "vm/error.hpp"

namespace arrvm::testing {

namespace {

class Enumerator {
 public:
  Enumerator(const fusion::Graph& g, const fusion::CostModel& cost)
      : g_(g), cost_(cost), n_(static_cast<uint32_t>(g.size())), group_of_(n_, 0) {}

  ExhaustiveResult run() {
    if (n_ > 64) throw Error("exhaustive_optimum: at most 64 instructions");
    constant_ = cost_.constant(g_);
    fusible_.assign(n_ * n_, 0);
    for (uint32_t a = 0; a < n_; ++a) {
      for (uint32_t b = 0; b < n_; ++b) fusible_[a * n_ + b] = g_.fusible(a, b);
    }
    assign(0);
    return result_;
  }

 private:
  void assign(uint32_t v) {
    if (v == n_) {
      fusion::Cost c = constant_;
      for (const Block& b : groups_) c += block_cost(b);
      if (result_.legal_partitions == 0 || c < result_.cost) {
        result_.cost = c;
        result_.partition.blocks = groups_;
      }
      ++result_.legal_partitions;
      return;
    }
    const uint32_t ngroups = static_cast<uint32_t>(groups_.size());
    for (uint32_t k = 0; k <= ngroups; ++k) {
      if (k == ngroups) groups_.emplace_back();
      if (fits(v, k)) {
        groups_[k].push_back(v);
        group_of_[v] = k;
        assign(v + 1);
        groups_[k].pop_back();
      }
      if (k == ngroups) groups_.pop_back();
    }
  }

  // v may join block k: fusible with its members, and no cycle. v's
  // predecessors are all assigned (they come earlier) and its successors are
  // not, so the new edges all point into k: a cycle appears iff k already
  // reaches the block of one of v's predecessors.
  bool fits(uint32_t v, uint32_t k) {
    for (uint32_t m : groups_[k]) {
      if (!fusible_[m * n_ + v]) return false;
    }
    // The transducer rule (rule 9) is a block condition, not a pair's: the
    // block with v must be closed. Exact as a cut: a prefix (in stream order)
    // of a legal block is legal, since a compress precedes its class.
    if (g_.has_filters() && !groups_[k].empty()) {
      fusion::BlockSummary before = fusion::BlockSummary::of(g_, groups_[k][0]);
      for (std::size_t i = 1; i < groups_[k].size(); ++i)
        before.absorb(fusion::BlockSummary::of(g_, groups_[k][i]));
      if (!fusion::transducers_closed(before, fusion::BlockSummary::of(g_, v))) return false;
    }
    std::vector<char>& into = into_;
    into.assign(groups_.size(), 0);
    bool any = false;
    for (uint32_t p : g_.predecessors(v)) {
      if (group_of_[p] != k) {
        into[group_of_[p]] = 1;
        any = true;
      }
    }
    if (!any) return true;
    // Blocks reachable from k through edges among assigned vertices.
    std::vector<char>& seen = seen_;
    seen.assign(groups_.size(), 0);
    std::vector<uint32_t>& stack = stack_;
    stack.assign(1, k);
    seen[k] = 1;
    while (!stack.empty()) {
      const uint32_t b = stack.back();
      stack.pop_back();
      for (uint32_t m : groups_[b]) {
        for (uint32_t s : g_.successors(m)) {
          if (s >= v) continue;  // not assigned yet
          const uint32_t c = group_of_[s];
          if (seen[c]) continue;
          if (into[c]) return false;
          seen[c] = 1;
          stack.push_back(c);
        }
      }
    }
    return true;
  }

  // A block's cost depends only on its members: memoized by member mask.
  fusion::Cost block_cost(const Block& b) {
    uint64_t mask = 0;
    for (uint32_t m : b) mask |= uint64_t{1} << m;
    auto [it, fresh] = memo_.emplace(mask, 0);
    if (fresh) it->second = cost_.block_cost(g_, b);
    return it->second;
  }

  const fusion::Graph& g_;
  const fusion::CostModel& cost_;
  fusion::Cost constant_ = 0;
  std::unordered_map<uint64_t, fusion::Cost> memo_;
  std::vector<char> fusible_, into_, seen_;
  std::vector<uint32_t> stack_;
  uint32_t n_;
  std::vector<uint32_t> group_of_;
  std::vector<Block> groups_;
  ExhaustiveResult result_;
};

}  // namespace

ExhaustiveResult exhaustive_optimum(const fusion::Graph& g, const fusion::CostModel& cost) {
  return Enumerator(g, cost).run();
}

}  // namespace arrvm::testing
