// The fewest blocks at the weighted optimum: fusion/ilp_blocks_search.hpp
// describes the search and why it is exact.
#include "fusion/ilp_blocks_search.hpp"

#include <algorithm>
#include <queue>
#include <tuple>

#include "fusion/ilp_items.hpp"
#include "fusion/ilp_part.hpp"

namespace arrvm::fusion::ilp {

namespace {

using namespace search;

class Search {
 public:
  Search(const Items& it, std::chrono::steady_clock::time_point deadline, long max_states)
      : it_(it), words_((it.n + 63) / 64), deadline_(deadline), max_states_(max_states) {}

  FewestBlocksResult run() {
    FewestBlocksResult res;
    add_state(Bits(words_ + 1, 0), 0, kNone, Bits());
    while (!open_.empty()) {
      const auto [f, neg_g, s] = open_.top();
      open_.pop();
      if (states_[s].closed) continue;
      states_[s].closed = true;
      if (complete(states_[s].key)) {
        res.proven = true;
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
      if (++expanded_ > max_states_ ||
          ((expanded_ & 63) == 0 && std::chrono::steady_clock::now() >= deadline_)) {
        res.why = expanded_ > max_states_ ? "state limit" : "time limit";
        res.states = expanded_;
        return res;
      }
      expand(s);
      if (inexact_) {
        res.why = "too many blocks to choose from";
        res.states = expanded_;
        return res;
      }
    }
    res.why = "no complete partition";  // cannot happen: the weighted optimum is one
    res.states = expanded_;
    return res;
  }

 private:
  // key: the items placed, then one word: the weight lost so far.
  struct State {
    Bits key, block;  // the block that led here
    uint32_t parent, g;
    bool closed = false;
  };

  bool complete(const Bits& key) const {
    std::size_t placed = 0;
    for (std::size_t k = 0; k < words_; ++k) placed += static_cast<std::size_t>(__builtin_popcountll(key[k]));
    return placed == it_.n;
  }

  // Per class, the largest chain height among the items not placed.
  uint32_t bound(const Bits& placed) const {
    uint32_t h = 0;
    for (const std::vector<uint32_t>& by_height : it_.by_height) {
      for (uint32_t x : by_height) {
        if (has(placed, x)) continue;
        h += it_.height[x];
        break;
      }
    }
    return h;
  }

  // A lower bound on the weight the items not placed lose: each loses at
  // least the smaller weight of its first conflict among them, and a pair
  // lost counts for both its items.
  Cost loss_bound(const Bits& placed) const {
    Cost sum = 0;
    for (uint32_t x = 0; x < it_.n; ++x) {
      if (has(placed, x)) continue;
      Cost pairwise = 0, grouped = 0;
      for (const auto& [wmin, y, z] : it_.conflicts[x]) {
        if (has(placed, y) || has(placed, z)) continue;
        pairwise = wmin;
        break;
      }
      for (const auto& group : it_.exclusive[x]) {
        Cost total = 0, most = 0;
        for (const auto& [y, wy] : group) {
          if (has(placed, y)) continue;
          total += wy;
          most = std::max(most, wy);
        }
        grouped += total - most;
      }
      sum += std::max(pairwise, grouped);
    }
    return (sum + 1) / 2;
  }

  // A state (items placed, weight lost) is dropped when another with the
  // same items placed lost no more with no more blocks.
  void add_state(Bits key, uint32_t g, uint32_t parent, Bits block) {
    const uint64_t h = BitsIndex<Downset>::hash(key.data(), words_);
    Downset* d = index_.find(key.data(), h);
    if (d == nullptr) d = &index_.insert(key.data(), h, Downset{{}, loss_bound(key)});
    add_state(std::move(key), g, parent, std::move(block), d->ids);
  }
  void add_state(Bits key, uint32_t g, uint32_t parent, Bits block, std::vector<uint32_t>& same) {
    const uint64_t lost = key[words_];
    for (uint32_t id : same)
      if (states_[id].key[words_] <= lost && states_[id].g <= g) return;
    std::size_t kept = 0;
    for (uint32_t id : same) {
      State& st = states_[id];
      if (!st.closed && lost <= st.key[words_] && g <= st.g) {
        st.closed = true;  // dominated before its expansion
      } else {
        same[kept++] = id;
      }
    }
    same.resize(kept);
    const uint32_t id = static_cast<uint32_t>(states_.size());
    same.push_back(id);
    const uint32_t h = bound(key);
    states_.push_back({std::move(key), std::move(block), parent, g});
    open_.emplace(g + h, -static_cast<int64_t>(g), id);
  }

  Cost w(uint32_t x, uint32_t y) const { return it_.weight[std::size_t{x} * it_.n + y]; }

  // x may join `in` after `placed`: its predecessors are placed or in the
  // block, and it may share a block with every item of it.
  bool includable(uint32_t x, const Bits& placed, const Bits& block) const {
    for (std::size_t k = 0; k < words_; ++k)
      if (it_.preds[x][k] & ~(placed[k] | block[k])) return false;
    for (uint32_t y : in_)
      if (!it_.compat.test(x, y)) return false;
    return true;
  }

  void expand(uint32_t s) {
    const Bits key = states_[s].key;
    const uint32_t g = states_[s].g;
    const Cost lost = static_cast<Cost>(key[words_]);
    // One class at a time, with the items of no shape; those alone when
    // no other is left.
    bool shaped = false;
    for (uint32_t c = 0; c <= it_.members.size(); ++c) {
      if (c == it_.members.size() && shaped) break;
      cand_.clear();
      bool own = false;
      for (uint32_t x : it_.cands[c]) {
        if (has(key, x)) continue;
        cand_.push_back(x);
        own |= it_.cls[x] != kNone;
      }
      if (c < it_.members.size() && !own) continue;
      shaped |= own;
      // Only the items whose predecessors are placed or candidates can join
      // the block; what the others weigh with a candidate is lost if it does.
      Bits reachable(key.begin(), key.end() - 1);
      std::size_t kept = 0;
      for (uint32_t x : cand_) {
        bool ok = true;
        for (std::size_t k = 0; k < words_ && ok; ++k) ok = (it_.preds[x][k] & ~reachable[k]) == 0;
        if (!ok) continue;
        put(reachable, x);
        cand_[kept++] = x;
      }
      cand_.resize(kept);
      if (cand_.empty()) continue;
      for (uint32_t x : cand_) {
        rest_[x] = 0;
        for (const auto& [y, wy] : it_.partners[x])
          if (!has(reachable, y)) rest_[x] += wy;
      }
      later_.assign(cand_.size(), Bits(words_, 0));
      for (std::size_t j = cand_.size(); j-- > 1;) {
        later_[j - 1] = later_[j];
        put(later_[j - 1], cand_[j]);
      }
      found_.clear();
      Bits block(words_, 0);
      in_.clear();
      out_.clear();
      steps_ = 0;
      cls_ = c < it_.members.size() ? c : kNone;
      blocks(0, key, block, 0, it_.budget - lost);
      for (auto& [b, loss] : found_) {
        Bits next = key;
        for (std::size_t k = 0; k < words_; ++k) next[k] |= b[k];
        next[words_] = static_cast<uint64_t>(lost + loss);
        // (The bound depends on the items placed alone: kept per downset
        // with states.)
        const uint64_t h = BitsIndex<Downset>::hash(next.data(), words_);
        Downset* d = index_.find(next.data(), h);
        const Cost bound = d != nullptr ? d->loss_bound : loss_bound(next);
        if (lost + loss + bound > it_.budget) continue;
        if (d == nullptr) d = &index_.insert(next.data(), h, Downset{{}, bound});
        add_state(std::move(next), g + 1, s, std::move(b), d->ids);
      }
    }
  }

  // Every block of candidates cand_[i..] (one class, topological order) on
  // top of the items in_ chosen and out_ left out so far, that loses at most
  // `left` (pairs between the block and the rest of the class) and that no
  // left-out item could join without losing more than it keeps (some
  // optimal sequence has only such blocks: moving that item into the block
  // loses no more and leaves every prefix a downset).
  void blocks(std::size_t i, const Bits& placed, Bits& block, Cost loss, Cost left) {
    if (++steps_ > kMaxSteps || found_.size() >= kMaxBlocks) {
      inexact_ = true;
      return;
    }
    if (i == cand_.size()) {
      // A block of only free/sync items while items of a shape are left is
      // never needed: merged into the next block it stays legal.
      bool own = cls_ == kNone;
      for (std::size_t k = 0; k < in_.size() && !own; ++k) own = it_.cls[in_[k]] == cls_;
      if (!own) return;
      for (uint32_t x : out_) {
        if (!includable(x, placed, block)) continue;
        // (With length classes: x holds no compress, so the block it leaves
        // stays closed, and this block with x is closed.)
        if (it_.filters && (!it_.compresses[x].empty() || !closed_with(it_, in_, x))) continue;
        Cost keep = 0, lose = rest_[x];
        for (uint32_t y : in_) keep += w(x, y);
        for (uint32_t y : out_)
          if (y != x) lose += w(x, y);
        if (keep >= lose) return;
      }
      found_.emplace_back(block, loss);
      return;
    }
    const uint32_t x = cand_[i];
    const bool can_join = includable(x, placed, block) && (!it_.filters || closed_with(it_, in_, x));
    Cost lose = rest_[x];  // what x joining loses (with the rest and the items left out)
    for (uint32_t y : out_) lose += w(x, y);
    if (can_join && loss + lose <= left) {
      put(block, x);
      in_.push_back(x);
      blocks(i + 1, placed, block, loss + lose, left);
      in_.pop_back();
      block[x / 64] &= ~(uint64_t{1} << (x % 64));
    }
    Cost keep = 0;  // what x left out loses (with the items in the block)
    for (uint32_t y : in_) keep += w(x, y);
    // Left out, x would end every such block at the leaf's rule when it may
    // join now, keeps at least what it loses, and no later candidate can
    // change either (none is its partner, each may share a block with it).
    if (can_join && !it_.filters && keep >= lose && settled(x, i)) return;
    if (loss + keep <= left) {
      out_.push_back(x);
      blocks(i + 1, placed, block, loss + keep, left);
      out_.pop_back();
    }
  }

  // x (candidate i) may share a block with every later candidate and weighs
  // nothing with any of them.
  bool settled(uint32_t x, std::size_t i) const {
    const uint64_t* compat = it_.compat.row(x);
    for (std::size_t k = 0; k < words_; ++k)
      if ((later_[i][k] & ~compat[k]) != 0 || (later_[i][k] & it_.partner_bits[x][k]) != 0) return false;
    return true;
  }

  static constexpr long kMaxSteps = 200000;
  static constexpr std::size_t kMaxBlocks = 4096;

  const Items& it_;
  const std::size_t words_;
  const std::chrono::steady_clock::time_point deadline_;
  const long max_states_;
  long expanded_ = 0, steps_ = 0;
  uint32_t cls_ = kNone;  // the class whose blocks are enumerated (kNone: only free/sync are left)
  bool inexact_ = false;
  std::vector<uint32_t> cand_, in_, out_;
  std::vector<Bits> later_;                               // by candidate position: the candidates after it
  std::vector<Cost> rest_ = std::vector<Cost>(it_.n, 0);  // by candidate: weight with non-candidates
  std::vector<std::pair<Bits, Cost>> found_;
  std::vector<State> states_;
  struct Downset {
    std::vector<uint32_t> ids;  // its states
    Cost loss_bound = -1;       // loss_bound() of it, once computed
  };
  BitsIndex<Downset> index_{words_};  // by items placed (the key's words before the weight lost)
  // (f, -g, state): smallest f first, deepest first among equal f.
  std::priority_queue<std::tuple<uint32_t, int64_t, uint32_t>,
                      std::vector<std::tuple<uint32_t, int64_t, uint32_t>>, std::greater<>>
      open_;
};

}  // namespace

std::vector<std::vector<uint32_t>> condense(std::vector<uint32_t>& uf,
                                            const std::vector<std::pair<uint32_t, uint32_t>>& edges) {
  const uint32_t m = static_cast<uint32_t>(uf.size());
  std::vector<std::vector<uint32_t>> csucc(m);
  for (const auto& [a, b] : edges) {
    const uint32_t ra = uf_root(uf, a), rb = uf_root(uf, b);
    if (ra != rb) csucc[ra].push_back(rb);
  }
  // Tarjan's algorithm (iterative) over the sets; it numbers the strongly
  // connected groups in reverse topological order.
  std::vector<int> index(m, -1), low(m, 0), scc(m, -1);
  std::vector<char> on_stack(m, 0);
  std::vector<uint32_t> stack;
  std::vector<std::pair<uint32_t, std::size_t>> call;
  int counter = 0, nscc = 0;
  for (uint32_t s = 0; s < m; ++s) {
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
  std::vector<std::vector<uint32_t>> groups(nscc);
  for (uint32_t a = 0; a < m; ++a) groups[nscc - 1 - scc[uf_root(uf, a)]].push_back(a);
  return groups;
}

FewestBlocksResult fewest_blocks(const FewestBlocksProblem& p, std::chrono::steady_clock::time_point deadline,
                                 long max_states) {
  FewestBlocksResult res;
  Cost total = 0;
  for (const WeightedPair& w : p.weighted) total += w.weight;
  if (total < p.v) {
    res.why = "V above the total weight";
    return res;
  }
  const Items it = make_items(p, total);
  if (!it.problem.empty()) {
    res.why = it.problem;
    return res;
  }
  res = Search(it, deadline, max_states).run();
  if (!res.proven) res.blocks.clear();
  return res;
}

}  // namespace arrvm::fusion::ilp
