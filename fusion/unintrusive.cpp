// unintrusive (seed 001 Fig. 6, Theorem 3): merges only pairs (u, v) that
// some optimal partition keeps together, so that `optimal` can search over
// the result. Our condition (u is the "leaf"; proof in fusion/README.md):
//   1. u's only neighbour in the block dependency graph is v, or u has no
//      neighbour at all (pendant vertex, Theorem 3 (2));
//   2. v is a weight partner of u (related saving > 0), and every other
//      weight partner of u is dependency-connected to u, so it can never
//      share a block with u without v (Fig. 6: degree < 2 once the edges
//      that can never be legal are discounted);
//   3. every block that is not fusible with u is not fusible with v, so the
//      non-fusible set of the merged block is that of v (Theorem 3 (1)).
// Blocks are examined smallest first; a merge re-examines the merged block
// and its neighbours and partners, until nothing changes.
// Complexity: O(M * n * (p + r)) worst case (M merges, p partners, r the
// cost of a path search); linear-ish on loop-like batches.

#include "fusion/algorithms.hpp"

#include <algorithm>
#include <set>

namespace arrvm::fusion::unintrusive {

namespace {

// Condition 3. Only blocks on a base that `leaf` touches can conflict with
// it through arrays; shape and axis conflicts of `leaf` are conflicts of
// `other` as well when the two iterate alike.
bool theta_unchanged(const BlockSet& s, uint32_t leaf, uint32_t other) {
  const BlockSummary& u = s.summary(leaf);
  const BlockSummary& v = s.summary(other);
  const bool iteration_implied =
      u.shape == kNone ||
      (u.shape == v.shape && (u.axis < 0 || u.axis == v.axis) && (!u.scatter || v.scatter));
  std::vector<uint32_t> candidates;
  if (!iteration_implied) {
    candidates = s.blocks();
  } else {
    const Graph& g = s.graph();
    uint32_t last_base = kNone;
    for (const auto& [key, n] : u.io.items()) {
      if (key_base(key) == last_base) continue;
      last_base = key_base(key);
      for (uint32_t i : g.users_of_base(last_base)) candidates.push_back(s.find(i));
    }
    std::sort(candidates.begin(), candidates.end());
    candidates.erase(std::unique(candidates.begin(), candidates.end()), candidates.end());
  }
  for (uint32_t w : candidates) {
    if (w == leaf || w == other) continue;
    if (!s.fusible(leaf, w) && s.fusible(other, w)) return false;
  }
  return true;
}

// Conditions 1-3 with `u` as the leaf; sets *partner to v.
bool unintrusive_partner(const BlockSet& s, uint32_t u, uint32_t* partner) {
  const std::vector<uint32_t> succ = s.successors(u);
  const std::vector<uint32_t> pred = s.predecessors(u);
  if (succ.size() + pred.size() > 1) return false;
  std::vector<uint32_t> weighted;
  for (uint32_t p : s.partners(u)) {
    if (s.related_saving(u, p) > 0) weighted.push_back(p);
  }
  uint32_t v = kNone;
  if (succ.size() + pred.size() == 1) {
    v = succ.empty() ? pred[0] : succ[0];
    if (!std::binary_search(weighted.begin(), weighted.end(), v)) return false;
    for (uint32_t p : weighted) {
      if (p == v) continue;
      // Any path between u and p passes through v.
      if (!(succ.empty() ? s.reaches(p, v) : s.reaches(v, p))) return false;
    }
  } else {
    if (weighted.size() != 1) return false;
    v = weighted[0];
  }
  if (!s.fusible(u, v) || !theta_unchanged(s, u, v)) return false;
  *partner = v;
  return true;
}

}  // namespace

void merge_all(BlockSet& s) {
  const std::vector<uint32_t> all = s.blocks();
  std::set<uint32_t> work(all.begin(), all.end());
  while (!work.empty()) {
    const uint32_t u = *work.begin();
    work.erase(work.begin());
    uint32_t v;
    if (!s.is_block(u) || !unintrusive_partner(s, u, &v)) continue;
    const uint32_t z = s.merge(u, v);
    work.insert(z);
    for (uint32_t n : s.successors(z)) work.insert(n);
    for (uint32_t n : s.predecessors(z)) work.insert(n);
    for (uint32_t n : s.partners(z)) work.insert(n);
  }
}

Partition fuse(const Graph& g, const CostModel& cost, const Options&) {
  BlockSet s(g, cost);
  merge_all(s);
  return s.partition();
}

}  // namespace arrvm::fusion::unintrusive
