// greedy (seed 001 Fig. 7): while a weight edge is left, take the heaviest;
// merge over it if the merge is legal (Lemma 1), else remove it.
//
// The weight graph Ew starts as the fusible pairs of blocks with a positive
// related saving, less the pairs BlockSet::never_together proves can never
// be merged legally (Fig. 7 would pop them and remove them, with no other
// effect). MERGE (Def. 16, 17) contracts Ew: the merged block keeps the
// edges of both blocks, with their weights recomputed; a removed edge stays
// removed for the round. A merge can make a removed edge legal again (the
// block on the path between its ends joins one of them: Black-Scholes' DEL
// of a temporary whose reader sat between writer and DEL), so when a round
// removed an edge and merged afterwards, the weight graph is rebuilt over
// the current blocks and another round runs; rounds end when none merges
// after a removal (each round but the last merges, so there are fewer
// rounds than blocks; in practice two or three). Edges live in a max-heap
// of (saving, pair, versions); a merge bumps the versions of its blocks, so
// only the edges incident to the merged block are ever re-weighed, and legality is only tested for the
// edge being taken (most illegal edges are rejected by BlockSet's bitset
// reach filter without a path search). Ties: larger saving first, then the
// pair with the smaller instructions (Ties::FirstInStream, the order that
// reproduces seed 001's published partitions), or the larger
// (Ties::LastInStream). With a merge bonus (robinson) the unrelated merges
// follow, in block order (see run()).
//
// The `greedy` fuser runs both orders and keeps the cheaper partition. Under
// the byte-counting models most savings are equal (one array of the loop's
// size), so the tie order decides which of many equal merges comes first,
// and a merge taken early can make a heavier one illegal later. Taking ties
// first-in-stream, a batch that starts in the middle of a loop iteration
// can chain each iteration's tail to the next iteration's head and split
// every iteration's main kernel: water_ice from Python, forced flushes
// every 3500 instructions, cost 1.92e9 against 1.59e9 for one batch; the
// other order 1.57e9 (fusion/README.md, greedy's tie order). Neither order
// is better on every batch (seed 001 Fig. 3: 38 first-in-stream, 46
// last-in-stream), so both run: twice greedy's time, on a merge-cache miss.
// Complexity: see fusion/algorithms.hpp.

#include "fusion/algorithms.hpp"

#include <algorithm>
#include <queue>
#include <unordered_set>

namespace arrvm::fusion::greedy {

namespace {

struct Edge {
  Cost saving;
  uint32_t a, b;  // a < b
  uint32_t va, vb;
};

// The heap's order: the larger saving on top; of equal savings the pair
// first (or last) in the stream.
struct Lighter {
  bool last_first = false;
  bool operator()(const Edge& x, const Edge& y) const {
    if (x.saving != y.saving) return x.saving < y.saving;
    if (x.a != y.a) return (x.a > y.a) != last_first;
    return (x.b > y.b) != last_first;
  }
};

using Heap = std::priority_queue<Edge, std::vector<Edge>, Lighter>;

class Greedy {
 public:
  Greedy(BlockSet& s, Ties ties)
      : s_(s), adj_(s.graph().size()), order_{ties == Ties::LastInStream}, heap_(order_) {}

  void run() {
    s_.enable_reach_filter();
    do {
      initial_edges();
    } while (take_weight_edges());
    if (s_.merge_bonus() <= 0) return;
    // With a merge bonus every legal merge saves something. After the
    // related merges, the unrelated ones (all of the same weight, the bonus)
    // are taken in block order: each block absorbs every later block it can,
    // taking any related merges that opens up at once; passes repeat until
    // one merges nothing (a merge can make an earlier-rejected pair legal).
    for (bool merged = true; merged;) {
      merged = false;
      const std::vector<uint32_t> blocks = s_.blocks();
      for (std::size_t i = 0; i < blocks.size(); ++i) {
        const uint32_t a = blocks[i];
        for (std::size_t j = i + 1; j < blocks.size() && s_.is_block(a); ++j) {
          const uint32_t b = blocks[j];
          if (!s_.is_block(b) || !s_.legal_merge(a, b)) continue;
          merge(a, b);
          take_weight_edges();
          merged = true;
        }
      }
    }
  }

 private:
  // Takes edges until none is left. True if a merge followed a removal: the
  // removed edge may have become legal, so another round may pay.
  bool take_weight_edges() {
    bool merged_after_removal = false, removed = false;
    while (!heap_.empty()) {
      const Edge e = heap_.top();
      heap_.pop();
      if (!current(e)) continue;
      if (!s_.legal_merge(e.a, e.b)) {
        remove_edge(e.a, e.b);
        removed = true;
        continue;
      }
      merge(e.a, e.b);
      merged_after_removal = merged_after_removal || removed;
    }
    return merged_after_removal;
  }

  // The weight graph over the current blocks (adj_ and the heap are empty or
  // hold only edges of a finished round).
  void initial_edges() {
    for (auto& a : adj_) a.clear();
    heap_ = Heap(order_);
    for (uint32_t b : s_.blocks()) {
      for (uint32_t p : s_.partners(b)) {
        if (p < b || s_.related_saving(b, p) <= 0 || !s_.fusible(b, p) || s_.never_together(b, p)) continue;
        adj_[b].insert(p);
        adj_[p].insert(b);
        push(b, p);
      }
    }
  }

  void push(uint32_t a, uint32_t b) {
    if (a > b) std::swap(a, b);
    heap_.push(Edge{s_.saving(a, b), a, b, s_.version(a), s_.version(b)});
  }

  bool current(const Edge& e) const {
    return s_.is_block(e.a) && s_.is_block(e.b) && s_.version(e.a) == e.va && s_.version(e.b) == e.vb &&
           adj_[e.a].count(e.b) != 0;
  }

  void remove_edge(uint32_t a, uint32_t b) {
    adj_[a].erase(b);
    adj_[b].erase(a);
  }

  // Merges two blocks and contracts their weight edges into the merged one.
  void merge(uint32_t a, uint32_t b) {
    const uint32_t z = s_.merge(a, b);
    const uint32_t o = z == a ? b : a;
    adj_[z].erase(o);
    for (uint32_t w : adj_[o]) {
      if (w == z) continue;
      adj_[w].erase(o);
      adj_[w].insert(z);
      adj_[z].insert(w);
    }
    adj_[o].clear();
    // Sorted so that the removals below happen in a deterministic order.
    std::vector<uint32_t> nbrs(adj_[z].begin(), adj_[z].end());
    std::sort(nbrs.begin(), nbrs.end());
    for (uint32_t w : nbrs) {
      // An edge that can never be taken would only be removed when popped.
      if (s_.never_together(z, w)) {
        remove_edge(z, w);
      } else {
        push(z, w);
      }
    }
  }

  BlockSet& s_;
  std::vector<std::unordered_set<uint32_t>> adj_;
  Lighter order_;
  Heap heap_;
};

}  // namespace

void merge_all(BlockSet& s, Ties ties) {
  Greedy(s, ties).run();
}

void merge_all_both_orders(BlockSet& s) {
  BlockSet last = s;
  merge_all(s, Ties::FirstInStream);
  merge_all(last, Ties::LastInStream);
  if (last.cost() < s.cost()) s = std::move(last);
}

Partition fuse(const Graph& g, const CostModel& cost, const Options&) {
  BlockSet s(g, cost);
  merge_all_both_orders(s);
  return s.partition();
}

}  // namespace arrvm::fusion::greedy
