#include "fusion/block_set.hpp"

#include <algorithm>
#include <functional>
#include <queue>
#include <span>
#include <string>

#include "vm/error.hpp"
#include "vm/row_nest.hpp"

namespace arrvm::fusion {

BlockSet::BlockSet(const Graph& g, const CostModel& cost)
    : g_(&g), cost_(&cost), bonus_(cost.merge_bonus(g)) {
  const uint32_t n = static_cast<uint32_t>(g.size());
  parent_.resize(n);
  sum_.resize(n);
  members_.resize(n);
  succ_.resize(n);
  pred_.resize(n);
  pos_.resize(n);
  version_.assign(n, 0);
  mark_.assign(n, 0);
  for (uint32_t i = 0; i < n; ++i) {
    parent_[i] = i;
    sum_[i] = BlockSummary::of(g, i);
    members_[i] = {i};
    succ_[i] = g.successors(i);
    pred_[i] = g.predecessors(i);
    pos_[i] = i;  // stream order is topological
  }
  nblocks_ = n;
}

uint32_t BlockSet::find(uint32_t i) const {
  uint32_t r = i;
  while (parent_[r] != r) r = parent_[r];
  while (parent_[i] != r) {
    const uint32_t next = parent_[i];
    parent_[i] = r;
    i = next;
  }
  return r;
}

std::vector<uint32_t> BlockSet::blocks() const {
  std::vector<uint32_t> r;
  r.reserve(nblocks_);
  for (uint32_t i = 0; i < parent_.size(); ++i) {
    if (parent_[i] == i) r.push_back(i);
  }
  return r;
}

Cost BlockSet::cost() const {
  Cost c = cost_->constant(*g_);
  for (uint32_t b : blocks()) c += cost_->block_cost(*g_, sum_[b]);
  return c;
}

std::vector<uint32_t> BlockSet::resolve(const std::vector<uint32_t>& edges, uint32_t self) const {
  std::vector<uint32_t> r;
  r.reserve(edges.size());
  for (uint32_t e : edges) {
    const uint32_t c = find(e);
    if (c != self) r.push_back(c);
  }
  std::sort(r.begin(), r.end());
  r.erase(std::unique(r.begin(), r.end()), r.end());
  return r;
}

std::vector<uint32_t> BlockSet::successors(uint32_t b) const {
  return resolve(succ_[b], b);
}
std::vector<uint32_t> BlockSet::predecessors(uint32_t b) const {
  return resolve(pred_[b], b);
}

bool BlockSet::search(uint32_t from, bool forward, int64_t lo, int64_t hi, uint32_t target,
                      std::vector<uint32_t>* seen) const {
  if (++stamp_ == 0) {
    std::fill(mark_.begin(), mark_.end(), 0);
    stamp_ = 1;
  }
  std::vector<uint32_t> stack;
  auto expand = [&](uint32_t b, bool first) {
    for (uint32_t e : forward ? succ_[b] : pred_[b]) {
      const uint32_t c = find(e);
      if (c == b) continue;
      if (c == target) {
        if (!first) return true;
        continue;  // the direct edge: a path of length 1
      }
      if (pos_[c] <= lo || pos_[c] >= hi || mark_[c] == stamp_) continue;
      mark_[c] = stamp_;
      stack.push_back(c);
      if (seen) seen->push_back(c);
    }
    return false;
  };
  if (expand(from, true)) return true;
  while (!stack.empty()) {
    const uint32_t b = stack.back();
    stack.pop_back();
    if (expand(b, false)) return true;
  }
  return false;
}

void BlockSet::enable_reach_filter() {
  const std::size_t n = g_->size();
  if (words_ != 0 || n > 8192) return;
  words_ = (n + 63) / 64;
  // Instruction rows first (stream order is topological), then OR them per block.
  std::vector<std::vector<uint64_t>> from(n, std::vector<uint64_t>(words_, 0)), to = from;
  for (std::size_t i = n; i-- > 0;) {
    for (uint32_t t : g_->successors(static_cast<uint32_t>(i))) {
      from[i][t / 64] |= uint64_t{1} << (t % 64);
      for (std::size_t w = t / 64; w < words_; ++w) from[i][w] |= from[t][w];
    }
  }
  for (std::size_t j = 0; j < n; ++j) {
    for (uint32_t p : g_->predecessors(static_cast<uint32_t>(j))) {
      to[j][p / 64] |= uint64_t{1} << (p % 64);
      for (std::size_t w = 0; w <= p / 64; ++w) to[j][w] |= to[p][w];
    }
  }
  shape_bits_.assign(g_->shape_count(), std::vector<uint64_t>(words_, 0));
  shaped_bits_.assign(words_, 0);
  for (uint32_t i = 0; i < n; ++i) {
    const uint32_t shape = g_->access(i).shape;
    if (shape == kNone) continue;
    shape_bits_[shape][i / 64] |= uint64_t{1} << (i % 64);
    shaped_bits_[i / 64] |= uint64_t{1} << (i % 64);
  }
  members_bits_.assign(n, {});
  reach_from_.assign(n, {});
  reach_to_.assign(n, {});
  for (uint32_t b : blocks()) {
    members_bits_[b].assign(words_, 0);
    reach_from_[b].assign(words_, 0);
    reach_to_[b].assign(words_, 0);
    for (uint32_t i : members_[b]) {
      members_bits_[b][i / 64] |= uint64_t{1} << (i % 64);
      for (std::size_t w = 0; w < words_; ++w) {
        reach_from_[b][w] |= from[i][w];
        reach_to_[b][w] |= to[i][w];
      }
    }
  }
}

bool BlockSet::never_together(uint32_t a, uint32_t b) const {
  if (words_ == 0) return false;
  const uint32_t shape = sum_[a].shape != kNone ? sum_[a].shape : sum_[b].shape;
  if (shape == kNone) return false;
  if (sum_[b].shape != kNone && sum_[b].shape != shape) return true;
  const uint64_t *fa = reach_from_[a].data(), *ta = reach_to_[a].data();
  const uint64_t *fb = reach_from_[b].data(), *tb = reach_to_[b].data();
  const uint64_t* same = shape_bits_[shape].data();
  for (std::size_t w = 0; w < words_; ++w) {
    if (((fa[w] & tb[w]) | (fb[w] & ta[w])) & shaped_bits_[w] & ~same[w]) return true;
  }
  return false;
}

bool BlockSet::acyclic_merge(uint32_t a, uint32_t b) const {
  if (words_ != 0) {
    // An instruction outside both blocks on a path between them puts a third
    // block on a path between them: the merge would close a cycle.
    const uint64_t *ma = members_bits_[a].data(), *mb = members_bits_[b].data();
    const uint64_t *fa = reach_from_[a].data(), *ta = reach_to_[a].data();
    const uint64_t *fb = reach_from_[b].data(), *tb = reach_to_[b].data();
    for (std::size_t w = 0; w < words_; ++w) {
      if (((fa[w] & tb[w]) | (fb[w] & ta[w])) & ~ma[w] & ~mb[w]) return false;
    }
  }
  const uint32_t x = pos_[a] < pos_[b] ? a : b;
  const uint32_t y = x == a ? b : a;
  cached_after_.clear();
  if (search(x, true, pos_[x], pos_[y], y, &cached_after_)) {
    cached_x_ = kNone;
    return false;
  }
  cached_x_ = x;
  cached_y_ = y;
  cached_at_ = merges_;
  return true;
}

bool BlockSet::reaches(uint32_t a, uint32_t b) const {
  if (a == b) return true;
  if (pos_[a] > pos_[b]) return false;
  for (uint32_t e : succ_[a]) {
    if (find(e) == b) return true;
  }
  return search(a, true, pos_[a], pos_[b], b, nullptr);
}

uint32_t BlockSet::merge(uint32_t a, uint32_t b) {
  ARRVM_ASSERT(a != b && is_block(a) && is_block(b));
  const uint32_t x = pos_[a] < pos_[b] ? a : b;
  const uint32_t y = x == a ? b : a;
  // Repair the order: the blocks between x and y that reach y go before the
  // merged block, those reachable from x after it. The two sets are disjoint
  // because the merge is legal (no path x -> c -> y).
  std::vector<uint32_t> after, before;
  if (cached_x_ == x && cached_y_ == y && cached_at_ == merges_) {
    after.swap(cached_after_);
  } else {
    const bool cycle = search(x, true, pos_[x], pos_[y], y, &after);
    ARRVM_ASSERT(!cycle);
  }
  cached_x_ = kNone;
  ++merges_;
  const bool cycle = search(y, false, pos_[x], pos_[y], x, &before);
  ARRVM_ASSERT(!cycle);
  std::vector<int64_t> slots{pos_[x], pos_[y]};
  for (uint32_t c : after) slots.push_back(pos_[c]);
  for (uint32_t c : before) slots.push_back(pos_[c]);
  std::sort(slots.begin(), slots.end());
  auto by_pos = [this](uint32_t p, uint32_t q) { return pos_[p] < pos_[q]; };
  std::sort(after.begin(), after.end(), by_pos);
  std::sort(before.begin(), before.end(), by_pos);
  const uint32_t r = std::min(a, b), o = std::max(a, b);
  std::size_t k = 0;
  for (uint32_t c : before) pos_[c] = slots[k++];
  pos_[r] = slots[k++];
  for (uint32_t c : after) pos_[c] = slots[k++];

  parent_[o] = r;
  sum_[r].absorb(sum_[o]);
  sum_[o] = BlockSummary{};
  if (members_[r].size() < members_[o].size()) members_[r].swap(members_[o]);
  members_[r].insert(members_[r].end(), members_[o].begin(), members_[o].end());
  members_[o] = {};
  for (auto* adj : {&succ_, &pred_}) {
    std::vector<uint32_t>& e = (*adj)[r];
    e.insert(e.end(), (*adj)[o].begin(), (*adj)[o].end());
    (*adj)[o] = {};
    e = resolve(e, r);
  }
  if (words_ != 0) {
    for (auto* bits : {&members_bits_, &reach_from_, &reach_to_}) {
      for (std::size_t w = 0; w < words_; ++w) (*bits)[r][w] |= (*bits)[o][w];
      (*bits)[o] = {};
    }
  }
  ++version_[r];
  ++version_[o];
  --nblocks_;
  return r;
}

std::vector<uint32_t> BlockSet::partners(uint32_t b) const {
  if (++stamp_ == 0) {
    std::fill(mark_.begin(), mark_.end(), 0);
    stamp_ = 1;
  }
  mark_[b] = stamp_;
  std::vector<uint32_t> r;
  auto visit = [&](const std::vector<uint32_t>& users) {
    for (uint32_t i : users) {
      const uint32_t c = find(i);
      if (mark_[c] == stamp_) continue;
      mark_[c] = stamp_;
      r.push_back(c);
    }
  };
  const BlockSummary& s = sum_[b];
  uint32_t last_base = kNone;
  for (const auto& [key, n] : s.io.items()) {
    visit(g_->users_of_array(key_array(key)));
    if (key_base(key) == last_base) continue;
    // The other side of the base relations below, so that partners are symmetric.
    last_base = key_base(key);
    for (uint32_t i : {g_->creator(last_base), g_->releaser(last_base)}) {
      if (i == kNone) continue;
      const uint32_t c = find(i);
      if (mark_[c] != stamp_) {
        mark_[c] = stamp_;
        r.push_back(c);
      }
    }
  }
  for (uint32_t base : s.news) visit(g_->users_of_base(base));
  for (uint32_t base : s.dels) visit(g_->users_of_base(base));
  std::sort(r.begin(), r.end());
  return r;
}

Partition BlockSet::partition() const {
  std::vector<Block> blocks;
  blocks.reserve(nblocks_);
  for (uint32_t b : this->blocks()) blocks.push_back(members_[b]);
  return ordered_partition(*g_, std::move(blocks));
}

Partition ordered_partition(const Graph& g, std::vector<Block> blocks) {
  std::vector<uint32_t> block_of(g.size(), kNone);
  for (uint32_t k = 0; k < blocks.size(); ++k) {
    std::sort(blocks[k].begin(), blocks[k].end());
    for (uint32_t i : blocks[k]) block_of[i] = k;
  }
  std::vector<uint32_t> indegree(blocks.size(), 0);
  for (uint32_t i = 0; i < g.size(); ++i) {
    for (uint32_t j : g.successors(i)) {
      if (block_of[i] != block_of[j]) ++indegree[block_of[j]];
    }
  }
  // Kahn's algorithm, always taking the ready block with the smallest instruction.
  using Item = std::pair<uint32_t, uint32_t>;  // (first instruction, block)
  std::priority_queue<Item, std::vector<Item>, std::greater<Item>> ready;
  for (uint32_t k = 0; k < blocks.size(); ++k) {
    if (indegree[k] == 0 && !blocks[k].empty()) ready.emplace(blocks[k].front(), k);
  }
  const std::size_t nonempty = static_cast<std::size_t>(
      std::count_if(blocks.begin(), blocks.end(), [](const Block& b) { return !b.empty(); }));
  Partition p;
  p.blocks.reserve(blocks.size());
  while (!ready.empty()) {
    const uint32_t k = ready.top().second;
    ready.pop();
    for (uint32_t i : blocks[k]) {
      for (uint32_t j : g.successors(i)) {
        const uint32_t t = block_of[j];
        if (t != k && --indegree[t] == 0) ready.emplace(blocks[t].front(), t);
      }
    }
    p.blocks.push_back(std::move(blocks[k]));
  }
  // A block that never became ready means the blocks had a cycle.
  ARRVM_ASSERT(p.blocks.size() == nonempty);
  return p;
}

std::string check_partition(const Graph& g, const Partition& p) {
  std::vector<uint32_t> block_of(g.size(), kNone);
  std::vector<uint32_t> rows, rest;
  RowProgram program;
  std::vector<std::vector<uint32_t>> segments;
  for (uint32_t k = 0; k < p.blocks.size(); ++k) {
    const Block& b = p.blocks[k];
    if (b.empty()) return "block " + std::to_string(k) + " is empty";
    for (std::size_t m = 0; m < b.size(); ++m) {
      const uint32_t i = b[m];
      if (i >= g.size()) return "instruction " + std::to_string(i) + " is not in the batch";
      if (m > 0 && b[m - 1] >= i) return "block " + std::to_string(k) + " is not ascending";
      if (block_of[i] != kNone) return "instruction " + std::to_string(i) + " is in two blocks";
      block_of[i] = k;
    }
    // A row nest (FusionRules::row_nests): its rows and the rest are each
    // fusible, and the nest is legal (vm/row_nest.hpp).
    // A row program: each segment is fusible, and the program is legal.
    std::vector<std::span<const uint32_t>> parts = {b};
    bool rule8 = g.rules().sweeps_alone;  // (a row program's segments run whole, by rows)
    if (g.rules().row_nests && row_nest_split(g.batch(), b, &rows, &rest)) {
      if (!row_nest_legal(g.batch(), rows, rest))
        return "block " + std::to_string(k) + " is a row nest whose accesses leave their rows";
      parts = {rows, rest};
    } else if (g.rules().row_nests && row_program(g.batch(), b, &program) &&
               row_program_legal(g.batch(), b, program)) {
      // (An illegal one is checked as one loop below, and named there.)
      segments.assign(static_cast<std::size_t>(program.segments()), {});
      for (std::size_t m = 0; m < b.size(); ++m) {
        if (program.segment[m] >= 0) segments[static_cast<std::size_t>(program.segment[m])].push_back(b[m]);
      }
      parts.assign(segments.begin(), segments.end());
      rule8 = false;
    }
    for (std::span<const uint32_t> part : parts) {
      if (part.empty()) continue;
      // Each instruction against the summary of those before it (block
      // fusibility equals pairwise fusibility: fusion/block.hpp), so a block of
      // n instructions costs O(n) summary checks, not n^2 / 2 pairs; the pair
      // is looked up only to name it.
      BlockSummary before = BlockSummary::of(g, part[0]);
      for (std::size_t m = 1; m < part.size(); ++m) {
        const BlockSummary one = BlockSummary::of(g, part[m]);
        if (!blocks_fusible(g, before, one, rule8)) {
          for (std::size_t q = 0; q < m; ++q) {
            if (!g.fusible(part[q], part[m])) {
              return "block " + std::to_string(k) + " holds the fuse-preventing pair " +
                     std::to_string(part[q]) + ", " + std::to_string(part[m]);
            }
          }
          if (!transducers_closed(before, one)) {
            return "block " + std::to_string(k) + " iterates over instruction " + std::to_string(part[m]) +
                   "'s length class without the compress that makes it (the transducer rule)";
          }
          return "block " + std::to_string(k) + " is not fusible at instruction " + std::to_string(part[m]);
        }
        before.absorb(one);
      }
    }
  }
  for (uint32_t i = 0; i < g.size(); ++i) {
    if (block_of[i] == kNone) return "instruction " + std::to_string(i) + " is in no block";
  }
  return g.order_violation(block_of);
}

}  // namespace arrvm::fusion
