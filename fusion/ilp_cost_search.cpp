// A partition cheaper than a given one under machine's cost:
// fusion/ilp_cost_search.hpp describes the search and why it is exact.
#include "fusion/ilp_cost_search.hpp"

#include <algorithm>
#include <queue>
#include <tuple>
#include <unordered_map>

#include "fusion/ilp_items.hpp"

namespace arrvm::fusion::ilp {

namespace {

using namespace search;

class CostSearch {
 public:
  CostSearch(const CheaperProblem& p, const Items& it, std::chrono::steady_clock::time_point deadline,
             long max_states)
      : p_(p), it_(it), words_((it.n + 63) / 64), deadline_(deadline), max_states_(max_states) {
    // Each item's arrays and bases as bit rows over the part's own.
    std::unordered_map<ArrayId, uint32_t> array_index;
    std::unordered_map<uint32_t, uint32_t> base_index;
    auto array = [&](uint64_t key) {
      const auto [at, fresh] = array_index.emplace(key_array(key), static_cast<uint32_t>(bytes_.size()));
      if (fresh) {
        bytes_.push_back(p.graph->array(key_array(key)).bytes);
        base_of_.push_back(
            base_index.emplace(key_base(key), static_cast<uint32_t>(base_index.size())).first->second);
      }
      return at->second;
    };
    auto base = [&](uint32_t b) {
      return base_index.emplace(b, static_cast<uint32_t>(base_index.size())).first->second;
    };
    std::vector<BlockSummary> sum(it.n);
    for (uint32_t x = 0; x < it.n; ++x)
      for (uint32_t u : it.units[x]) sum[x].absorb(p.summary[u]);
    std::vector<std::vector<uint32_t>> reads(it.n), writes(it.n), news(it.n), dels(it.n);
    for (uint32_t x = 0; x < it.n; ++x) {
      for (const auto& [k, n] : sum[x].reads.items()) reads[x].push_back(array(k));
      for (const auto& [k, n] : sum[x].writes.items()) writes[x].push_back(array(k));
      for (uint32_t b : sum[x].news) news[x].push_back(base(b));
      for (uint32_t b : sum[x].dels) dels[x].push_back(base(b));
    }
    aw_ = (bytes_.size() + 63) / 64;
    bw_ = (base_index.size() + 63) / 64;
    rows_.assign(it.n, Access(aw_, bw_));
    for (uint32_t x = 0; x < it.n; ++x) {
      for (uint32_t a : reads[x]) put(rows_[x].reads, a);
      for (uint32_t a : writes[x]) put(rows_[x].writes, a);
      for (uint32_t b : news[x]) put(rows_[x].news, b);
      for (uint32_t b : dels[x]) put(rows_[x].dels, b);
      // The search prices blocks as bonus + bohrium's traffic: a cost model
      // that prices an item otherwise is not the one it is exact for.
      if (p.cost->block_cost(*p.graph, sum[x]) != p.bonus + traffic(rows_[x])) unpriced_ = true;
    }
  }

  bool unpriced() const { return unpriced_; }

  CheaperResult run() {
    CheaperResult res;
    add_state(Bits(words_, 0), 0, kNone, Bits());
    while (!open_.empty()) {
      const uint32_t s = std::get<2>(open_.top());
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
    res.proven = true;  // every state that could be cheaper was dropped: `upper` is the least cost
    res.states = expanded_;
    return res;
  }

 private:
  struct State {
    Bits key, block;  // the units placed; the block that led here
    uint32_t parent;
    Cost g;
    bool closed = false;
  };

  bool complete(const Bits& key) const {
    std::size_t placed = 0;
    for (std::size_t k = 0; k < words_; ++k) placed += static_cast<std::size_t>(__builtin_popcountll(key[k]));
    return placed == it_.n;
  }

  // What a set of items accesses, as bit rows (arrays; bases).
  struct Access {
    Bits reads, writes, news, dels;
    Access(std::size_t aw, std::size_t bw) : reads(aw, 0), writes(aw, 0), news(bw, 0), dels(bw, 0) {}
    void absorb(const Access& o) {
      for (std::size_t k = 0; k < reads.size(); ++k) {
        reads[k] |= o.reads[k];
        writes[k] |= o.writes[k];
      }
      for (std::size_t k = 0; k < news.size(); ++k) {
        news[k] |= o.news[k];
        dels[k] |= o.dels[k];
      }
    }
  };

  // bohrium's traffic of a block (fusion/cost.cpp): the bytes of each array
  // it reads outside the bases it creates and writes outside those it frees.
  Cost traffic(const Access& a) const {
    Cost c = 0;
    for (std::size_t k = 0; k < aw_; ++k) {
      for (uint64_t w = a.reads[k]; w != 0; w &= w - 1) {
        const uint32_t i = static_cast<uint32_t>(k * 64 + __builtin_ctzll(w));
        if (!has(a.news, base_of_[i])) c += bytes_[i];
      }
      for (uint64_t w = a.writes[k]; w != 0; w &= w - 1) {
        const uint32_t i = static_cast<uint32_t>(k * 64 + __builtin_ctzll(w));
        if (!has(a.dels, base_of_[i])) c += bytes_[i];
      }
    }
    return c;
  }

  // h, in two parts: per class, a launch per block of its longest chain
  // left (estimate), and the traffic of its units left with the free/sync
  // units left as one block (traffic_left).
  Cost estimate(const Bits& placed) const {
    uint32_t blocks = 0;
    bool any = false;
    for (std::size_t c = 0; c < it_.members.size(); ++c) {
      for (uint32_t x : it_.by_height[c]) {
        if (has(placed, x)) continue;
        blocks += it_.height[x];
        break;
      }
    }
    for (uint32_t x : it_.shapeless) any |= !has(placed, x);
    if (blocks == 0 && any) blocks = 1;
    return p_.bonus * static_cast<Cost>(blocks);
  }

  Cost traffic_left(const Bits& placed) const {
    Access shapeless(aw_, bw_);
    for (uint32_t x : it_.shapeless)
      if (!has(placed, x)) shapeless.absorb(rows_[x]);
    Cost h = 0;
    for (std::size_t c = 0; c < it_.members.size(); ++c) {
      Access a = shapeless;
      bool left = false;
      for (uint32_t x : it_.members[c]) {
        if (has(placed, x)) continue;
        a.absorb(rows_[x]);
        left = true;
      }
      if (left) h += traffic(a);
    }
    return h;
  }

  // Dropped when it cannot be cheaper than `upper`, or when another state
  // placed the same units at no more cost.
  void add_state(Bits key, Cost g, uint32_t parent, Bits block) {
    Cost f = g + estimate(key);
    if (f >= p_.upper) return;
    const uint64_t h = BitsIndex<uint32_t>::hash(key.data(), words_);
    uint32_t* same = index_.find(key.data(), h);
    if (same != nullptr && states_[*same].g <= g) return;
    f += traffic_left(key);
    if (f >= p_.upper) return;
    const uint32_t id = static_cast<uint32_t>(states_.size());
    if (same != nullptr) {
      states_[*same].closed = true;  // costlier: never needed
      *same = id;
    } else {
      index_.insert(key.data(), h, id);
    }
    open_.emplace(f, -g, id);
    states_.push_back({std::move(key), std::move(block), parent, g});
  }

  // x may join the block after `placed`: its predecessors are placed or in
  // the block, and it may share a block with every unit of it.
  bool includable(uint32_t x, const Bits& placed, const Bits& block) const {
    for (std::size_t k = 0; k < words_; ++k)
      if (it_.preds[x][k] & ~(placed[k] | block[k])) return false;
    for (uint32_t y : in_)
      if (!it_.compat.test(x, y)) return false;
    return true;
  }

  // Moving x into the block b adds no bytes to it and adds none to the block
  // x leaves: b reads (writes) each array x reads (writes) or creates
  // (frees) its base (the header has why).
  bool covered(uint32_t x, const Access& b) const {
    const Access& s = rows_[x];
    for (std::size_t k = 0; k < aw_; ++k) {
      for (uint64_t w = s.reads[k] & ~b.reads[k]; w != 0; w &= w - 1)
        if (!has(b.news, base_of_[k * 64 + __builtin_ctzll(w)])) return false;
      for (uint64_t w = s.writes[k] & ~b.writes[k]; w != 0; w &= w - 1)
        if (!has(b.dels, base_of_[k * 64 + __builtin_ctzll(w)])) return false;
    }
    return true;
  }

  void expand(uint32_t s) {
    const Bits key = states_[s].key;
    const Cost g = states_[s].g;
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
      // Only the units whose predecessors are placed or candidates can join.
      Bits reachable = key;
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
      found_.clear();
      Bits block(words_, 0);
      in_.clear();
      out_.clear();
      steps_ = 0;
      cls_ = c < it_.members.size() ? c : kNone;
      // The least cost of a child before its block's traffic: g, this
      // block's launch, and a launch per block of the other classes' chains
      // left; the class's own chain left is that of the units the block
      // leaves out (blocks() adds it as it goes).
      other_blocks_ = 1;
      rest_height_ = 0;
      for (std::size_t d = 0; d < it_.members.size(); ++d) {
        for (uint32_t x : it_.by_height[d]) {
          if (has(key, x) || (d == c && has(reachable, x))) continue;
          if (d == c) {
            rest_height_ = it_.height[x];
          } else {
            other_blocks_ += it_.height[x];
          }
          break;
        }
      }
      g_ = g;
      blocks(0, key, block, rest_height_);
      for (auto& [b, step] : found_) {
        Bits next = key;
        for (std::size_t k = 0; k < words_; ++k) next[k] |= b[k];
        add_state(std::move(next), g + step, s, std::move(b));
      }
      if (inexact_) return;
    }
  }

  // Every block of candidates cand_[i..] on top of in_ chosen and out_ left
  // out so far that no left-out unit could join at no cost (the header).
  void blocks(std::size_t i, const Bits& placed, Bits& block, uint32_t out_height) {
    if (g_ + p_.bonus * static_cast<Cost>(other_blocks_ + out_height) >= p_.upper) return;
    if (++steps_ > kMaxSteps || found_.size() >= kMaxBlocks) {
      inexact_ = true;
      return;
    }
    if (i == cand_.size()) {
      bool own = cls_ == kNone && !in_.empty();
      for (std::size_t k = 0; k < in_.size() && !own; ++k) own = it_.cls[in_[k]] == cls_;
      if (!own) return;
      Access a(aw_, bw_);
      for (uint32_t x : in_) a.absorb(rows_[x]);
      for (uint32_t x : out_)
        if (includable(x, placed, block) && covered(x, a) &&
            (!it_.filters || (it_.compresses[x].empty() && closed_with(it_, in_, x))))
          return;
      found_.emplace_back(block, p_.bonus + traffic(a));
      return;
    }
    const uint32_t x = cand_[i];
    // (With length classes the block so far must be closed: the items come
    // in topological order and a compress precedes its class, so a block
    // that is not cannot become closed.)
    if (includable(x, placed, block) && (!it_.filters || closed_with(it_, in_, x))) {
      put(block, x);
      in_.push_back(x);
      blocks(i + 1, placed, block, out_height);
      in_.pop_back();
      block[x / 64] &= ~(uint64_t{1} << (x % 64));
      if (inexact_) return;
    }
    out_.push_back(x);
    blocks(i + 1, placed, block, it_.cls[x] == cls_ ? std::max(out_height, it_.height[x]) : out_height);
    out_.pop_back();
  }

  static constexpr long kMaxSteps = 200000;
  static constexpr std::size_t kMaxBlocks = 4096;

  const CheaperProblem& p_;
  const Items& it_;
  const std::size_t words_;
  const std::chrono::steady_clock::time_point deadline_;
  const long max_states_;
  std::vector<int64_t> bytes_;     // by array of the part
  std::vector<uint32_t> base_of_;  // by array: its base's index
  std::size_t aw_ = 0, bw_ = 0;    // words of a row of arrays, of bases
  std::vector<Access> rows_;       // by item
  bool unpriced_ = false;
  long expanded_ = 0, steps_ = 0;
  uint32_t cls_ = kNone;
  Cost g_ = 0;                                   // the state's cost, while its blocks are enumerated
  uint32_t other_blocks_ = 0, rest_height_ = 0;  // (see expand)
  bool inexact_ = false;
  std::vector<uint32_t> cand_, in_, out_;
  std::vector<std::pair<Bits, Cost>> found_;  // blocks with their cost
  std::vector<State> states_;
  BitsIndex<uint32_t> index_{words_};  // by units placed: the state that placed them at least cost
  // (f, -g, state): smallest f first, deepest first among equal f.
  std::priority_queue<std::tuple<Cost, Cost, uint32_t>, std::vector<std::tuple<Cost, Cost, uint32_t>>,
                      std::greater<>>
      open_;
};

}  // namespace

CheaperResult cheaper_partition(const CheaperProblem& p, std::chrono::steady_clock::time_point deadline,
                                long max_states) {
  FewestBlocksProblem fb{p.units, p.edges, p.may, p.shape, {}, 0, {}, {}};
  if (p.graph->has_filters()) {
    for (const BlockSummary& s : p.summary) {
      fb.domains.push_back(s.domains);
      fb.compresses.push_back(s.filters);
    }
  }
  const Items it = make_items(fb, 0);
  if (!it.problem.empty()) {
    CheaperResult res;
    res.why = it.problem;
    return res;
  }
  CostSearch search(p, it, deadline, max_states);
  if (search.unpriced()) {
    CheaperResult res;
    res.why = "the cost model is not a bonus plus bohrium's traffic";
    return res;
  }
  return search.run();
}

}  // namespace arrvm::fusion::ilp
