#include "fusion/block.hpp"

#include <algorithm>

namespace arrvm::fusion {

namespace {

bool sorted_contains(const std::vector<uint32_t>& v, uint32_t x) {
  return std::binary_search(v.begin(), v.end(), x);
}

void sorted_insert(std::vector<uint32_t>& v, uint32_t x) {
  auto it = std::lower_bound(v.begin(), v.end(), x);
  if (it == v.end() || *it != x) v.insert(it, x);
}

void sorted_union(std::vector<uint32_t>& v, const std::vector<uint32_t>& o) {
  if (o.empty()) return;
  std::vector<uint32_t> r;
  r.reserve(v.size() + o.size());
  std::set_union(v.begin(), v.end(), o.begin(), o.end(), std::back_inserter(r));
  v.swap(r);
}

}  // namespace

uint32_t CountMap::count(uint64_t key) const {
  auto it = std::lower_bound(items_.begin(), items_.end(), key,
                             [](const Item& a, uint64_t k) { return a.first < k; });
  return (it != items_.end() && it->first == key) ? it->second : 0;
}

void CountMap::add(uint64_t key) {
  auto it = std::lower_bound(items_.begin(), items_.end(), key,
                             [](const Item& a, uint64_t k) { return a.first < k; });
  if (it != items_.end() && it->first == key) {
    ++it->second;
  } else {
    items_.insert(it, Item{key, 1});
  }
}

void CountMap::merge(const CountMap& o) {
  if (o.items_.empty()) return;
  std::vector<Item> r;
  r.reserve(items_.size() + o.items_.size());
  auto a = items_.cbegin();
  auto b = o.items_.cbegin();
  while (a != items_.cend() || b != o.items_.cend()) {
    if (b == o.items_.cend() || (a != items_.cend() && a->first < b->first)) {
      r.push_back(*a++);
    } else if (a == items_.cend() || b->first < a->first) {
      r.push_back(*b++);
    } else {
      r.push_back(Item{a->first, a->second + b->second});
      ++a;
      ++b;
    }
  }
  items_.swap(r);
}

std::pair<const CountMap::Item*, const CountMap::Item*> CountMap::base_range(uint32_t base) const {
  const uint64_t lo = uint64_t{base} << 32, hi = uint64_t{base + 1} << 32;
  auto cmp = [](const Item& a, uint64_t k) { return a.first < k; };
  if (items_.empty()) return {nullptr, nullptr};
  const Item* b = items_.data();
  const Item* e = b + items_.size();
  const Item* first = std::lower_bound(b, e, lo, cmp);
  const Item* last = std::lower_bound(first, e, hi, cmp);
  return {first, last};
}

BlockSummary BlockSummary::of(const Graph& g, uint32_t instr) {
  BlockSummary s;
  s.add(g, instr);
  return s;
}

void BlockSummary::add(const Graph& g, uint32_t i) {
  const Access& a = g.access(i);
  ++size;
  first = std::min(first, i);
  if (a.new_base != kNone) sorted_insert(news, a.new_base);
  if (a.del_base != kNone) sorted_insert(dels, a.del_base);
  if (a.is_control()) return;
  for (ArrayId r : a.read_ids()) {
    reads.add(array_key(g, r));
    if (r != a.write) io.add(array_key(g, r));
  }
  writes.add(array_key(g, a.write));
  io.add(array_key(g, a.write));
  shape = a.shape;
  if (a.axis >= 0) axis = a.axis;
  scatter = scatter || a.kind == OpKind::Scatter;
  special = special || a.kind != OpKind::Elementwise;
  if (a.reduce_out != kNone) reduce_outs.push_back(a.reduce_out);
  if (a.gather_src != kNone) gather_srcs.push_back(a.gather_src);
  if (a.scatter_target != kNone) scatter_targets.push_back(a.scatter_target);
  if (g.has_filters()) {
    sorted_insert(domains, a.domain);
    if (a.kind == OpKind::Compress) sorted_insert(filters, i);
  }
}

void BlockSummary::absorb(const BlockSummary& o) {
  size += o.size;
  first = std::min(first, o.first);
  reads.merge(o.reads);
  writes.merge(o.writes);
  io.merge(o.io);
  sorted_union(news, o.news);
  sorted_union(dels, o.dels);
  if (shape == kNone) shape = o.shape;
  if (axis < 0) axis = o.axis;
  scatter = scatter || o.scatter;
  special = special || o.special;
  reduce_outs.insert(reduce_outs.end(), o.reduce_outs.begin(), o.reduce_outs.end());
  gather_srcs.insert(gather_srcs.end(), o.gather_srcs.begin(), o.gather_srcs.end());
  scatter_targets.insert(scatter_targets.end(), o.scatter_targets.begin(), o.scatter_targets.end());
  sorted_union(domains, o.domains);
  sorted_union(filters, o.filters);
}

bool BlockSummary::is_new(uint32_t base) const {
  return sorted_contains(news, base);
}
bool BlockSummary::is_deleted(uint32_t base) const {
  return sorted_contains(dels, base);
}

namespace {

// Is any array of `m` on the base of `x` such that pred(array) holds?
template <typename Pred>
bool any_on_base(const Graph& g, const CountMap& m, ArrayId x, Pred&& pred) {
  auto [b, e] = m.base_range(g.array(x).base);
  for (; b != e; ++b) {
    if (pred(key_array(b->first))) return true;
  }
  return false;
}

// The special access rules of one block against the other's arrays.
bool special_conflict(const Graph& g, const BlockSummary& p, const BlockSummary& q) {
  for (ArrayId r : p.reduce_outs) {
    if (any_on_base(g, q.io, r, [&](ArrayId y) { return g.overlap(r, y); })) return true;
  }
  for (ArrayId s : p.gather_srcs) {
    if (any_on_base(g, q.writes, s, [&](ArrayId y) { return g.overlap(s, y); })) return true;
  }
  for (ArrayId t : p.scatter_targets) {
    if (any_on_base(g, q.io, t, [&](ArrayId y) { return g.overlap(t, y); })) return true;
  }
  return false;
}

}  // namespace

bool blocks_fusible(const Graph& g, const BlockSummary& a, const BlockSummary& b, bool sweeps_alone) {
  return blocks_fusible_but_filters(g, a, b, sweeps_alone) && transducers_closed(a, b);
}

bool blocks_fusible_but_filters(const Graph& g, const BlockSummary& a, const BlockSummary& b,
                                bool sweeps_alone) {
  if (a.shape != kNone && b.shape != kNone && a.shape != b.shape) return false;
  if (a.axis >= 0 && b.axis >= 0 && a.axis != b.axis) return false;
  // Rule 7: a scatter meets a sweep only along the last axis.
  if ((a.scatter && b.axis >= 0 && b.axis != g.shape_rank(b.shape) - 1) ||
      (b.scatter && a.axis >= 0 && a.axis != g.shape_rank(a.shape) - 1)) {
    return false;
  }
  // Rule 8: with FusionRules::sweeps_alone a block that is not only
  // elementwise meets only free/sync.
  if (sweeps_alone && ((a.special && b.shape != kNone) || (b.special && a.shape != kNone))) {
    return false;
  }
  const BlockSummary& small = a.io.size() <= b.io.size() ? a : b;
  const BlockSummary& large = &small == &a ? b : a;
  // Def. 12: an array written on one side may only meet identical arrays on
  // the other.
  for (const auto& [key, n] : small.io.items()) {
    const ArrayId x = key_array(key);
    const bool small_writes = small.writes.contains(key);
    auto [it, end] = large.io.base_range(key_base(key));
    for (; it != end; ++it) {
      const ArrayId y = key_array(it->first);
      if (y == x) continue;
      if (!small_writes && !large.writes.contains(it->first)) continue;
      if (g.overlap(x, y)) return false;
    }
  }
  return !special_conflict(g, a, b) && !special_conflict(g, b, a);
}

// The transducer rule (seed 003 §3.6; fusion/README.md): instructions of
// different length classes share a block only inside the loop of the
// compress that makes the class: in the union, at most one domain (the
// top: the block's loop runs over its length) lacks its compress.
bool transducers_closed(const BlockSummary& a, const BlockSummary& b) {
  if (a.domains.empty() || b.domains.empty()) return true;
  if (a.domains.size() == 1 && a.domains == b.domains) return true;
  std::vector<uint32_t> domains = a.domains, filters = a.filters;
  sorted_union(domains, b.domains);
  sorted_union(filters, b.filters);
  int tops = 0;
  for (uint32_t d : domains) tops += d == kNone || !sorted_contains(filters, d);
  return tops <= 1;
}

}  // namespace arrvm::fusion
