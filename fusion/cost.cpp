#include "fusion/cost.hpp"

#include <algorithm>

#include "fusion/cost_machine.hpp"
#include "vm/error.hpp"

namespace arrvm::fusion {

Cost CostModel::cost(const Graph& g, const Partition& p) const {
  Cost c = constant(g);
  for (const Block& b : p.blocks) c += block_cost(g, b);
  return c;
}

Cost CostModel::block_cost(const Graph& g, std::span<const uint32_t> members) const {
  BlockSummary s;
  for (uint32_t i : members) s.add(g, i);
  return block_cost(g, s);
}

namespace {

// |x ∩ y| of two sorted vectors.
Cost intersection_size(const std::vector<uint32_t>& x, const std::vector<uint32_t>& y) {
  Cost n = 0;
  auto a = x.begin(), b = y.begin();
  while (a != x.end() && b != y.end()) {
    if (*a < *b) {
      ++a;
    } else if (*b < *a) {
      ++b;
    } else {
      ++n;
      ++a;
      ++b;
    }
  }
  return n;
}

// Def. 13. ext[B] = (in[B] \ new[B]) ⊔ (out[B] \ del[B]): an array read and
// written is counted twice; new and del remove every array of their base.
class BohriumCost final : public CostModel {
 public:
  std::string_view name() const override { return "bohrium"; }
  bool counts_external_accesses() const override { return true; }

  Cost block_cost(const Graph& g, const BlockSummary& b) const override {
    Cost c = 0;
    for (const auto& [key, n] : b.reads.items()) {
      if (!b.is_new(key_base(key))) c += g.array(key_array(key)).bytes;
    }
    for (const auto& [key, n] : b.writes.items()) {
      if (!b.is_deleted(key_base(key))) c += g.array(key_array(key)).bytes;
    }
    return c;
  }

  // Prop. 1 without its assumption that a runs before b: the exact
  // difference ||ext[a]|| + ||ext[b]|| - ||ext[a ∪ b]||, which is, for the
  // reads (and likewise for the writes with del in place of new),
  //   ||in[a] ∩ in[b]|| + ||(in[a] \ in[b]) on new[b]|| + ||(in[b] \ in[a]) on new[a]||.
  Cost saving(const Graph& g, const BlockSummary& a, const BlockSummary& b) const override {
    return side_saving(g, a.reads, a.news, b.reads, b.news) +
           side_saving(g, a.writes, a.dels, b.writes, b.dels);
  }

 private:
  static Cost side_saving(const Graph& g, const CountMap& xa, const std::vector<uint32_t>& ka,
                          const CountMap& xb, const std::vector<uint32_t>& kb) {
    // Walk the smaller map, look up in the larger one.
    const bool a_small = xa.size() <= xb.size();
    const CountMap& s = a_small ? xa : xb;
    const CountMap& l = a_small ? xb : xa;
    const std::vector<uint32_t>& ks = a_small ? ka : kb;
    const std::vector<uint32_t>& kl = a_small ? kb : ka;
    Cost c = 0;
    for (const auto& [key, n] : s.items()) {
      const Cost bytes = g.array(key_array(key)).bytes;
      if (l.contains(key) || std::binary_search(kl.begin(), kl.end(), key_base(key))) c += bytes;
    }
    // Arrays only the larger side has, on a base the smaller side creates
    // (or deletes).
    for (uint32_t base : ks) {
      auto [it, end] = l.base_range(base);
      for (; it != end; ++it) {
        if (!s.contains(it->first)) c += g.array(key_array(it->first)).bytes;
      }
    }
    return c;
  }
};

// Def. 19: |new[A]| - sum over B of |new[B] ∩ del[B]| (arrays, not bytes).
class MaxContractCost final : public CostModel {
 public:
  std::string_view name() const override { return "max-contract"; }
  Cost constant(const Graph& g) const override { return static_cast<Cost>(g.new_base_count()); }
  Cost block_cost(const Graph&, const BlockSummary& b) const override {
    return -intersection_size(b.news, b.dels);
  }
  Cost saving(const Graph&, const BlockSummary& a, const BlockSummary& b) const override {
    // A base is new in at most one instruction and freed by at most one.
    return intersection_size(a.news, b.dels) + intersection_size(b.news, a.dels);
  }
};

// Def. 20, counting each unordered pair of instructions once (so that fusing
// four identical accesses saves 6, as the paper says): the number of pairs
// {f, f'} in different blocks, weighted by |io[f] ∩ io[f']|. For a single
// instruction ext[f] = io[f] as sets, so this is the paper's sum halved.
// As pairs within blocks: total pairs - sum over B, arrays v of C(n_B(v), 2).
class MaxLocalityCost final : public CostModel {
 public:
  std::string_view name() const override { return "max-locality"; }
  Cost constant(const Graph& g) const override {
    Cost c = 0;
    for (ArrayId a = 0; a < g.array_count(); ++a) c += pairs(g.users_of_array(a).size());
    return c;
  }
  Cost block_cost(const Graph&, const BlockSummary& b) const override {
    Cost c = 0;
    for (const auto& [key, n] : b.io.items()) c -= pairs(n);
    return c;
  }
  Cost saving(const Graph&, const BlockSummary& a, const BlockSummary& b) const override {
    const CountMap& s = a.io.size() <= b.io.size() ? a.io : b.io;
    const CountMap& l = &s == &a.io ? b.io : a.io;
    Cost c = 0;
    for (const auto& [key, n] : s.items()) c += Cost{n} * l.count(key);
    return c;
  }

 private:
  static Cost pairs(std::size_t n) { return static_cast<Cost>(n) * static_cast<Cost>(n - (n > 0)) / 2; }
};

// Def. 21 with N = 1 + max(#arrays, #instructions): large enough that one
// unit of max-locality outweighs any change of N * max-contract + |P|, and
// one unit of max-contract any change of |P| (the paper's N = #arrays does
// not guarantee that when a batch has more instructions than arrays).
class RobinsonCost final : public CostModel {
 public:
  std::string_view name() const override { return "robinson"; }
  Cost constant(const Graph& g) const override {
    const Cost n = weight(g);
    return n * contract_.constant(g) + n * n * locality_.constant(g);
  }
  Cost block_cost(const Graph& g, const BlockSummary& b) const override {
    const Cost n = weight(g);
    return 1 + n * contract_.block_cost(g, b) + n * n * locality_.block_cost(g, b);
  }
  Cost saving(const Graph& g, const BlockSummary& a, const BlockSummary& b) const override {
    const Cost n = weight(g);
    return 1 + n * contract_.saving(g, a, b) + n * n * locality_.saving(g, a, b);
  }
  Cost merge_bonus(const Graph&) const override { return 1; }

 private:
  static Cost weight(const Graph& g) { return 1 + static_cast<Cost>(std::max(g.array_count(), g.size())); }
  MaxContractCost contract_;
  MaxLocalityCost locality_;
};

}  // namespace

std::unique_ptr<CostModel> make_cost_model(std::string_view name) {
#define ARRVM_COST_MODEL(Class, model_name) \
  if (name == model_name) return std::make_unique<Class>();
#include "fusion/cost_models.def"
#undef ARRVM_COST_MODEL
  std::string known;
  for (const std::string& n : cost_model_names()) known += (known.empty() ? "" : ", ") + n;
  throw Error("unknown cost model '" + std::string(name) + "' (known: " + known + ")");
}

std::vector<std::string> cost_model_names() {
  return {
#define ARRVM_COST_MODEL(Class, name) name,
#include "fusion/cost_models.def"
#undef ARRVM_COST_MODEL
  };
}

}  // namespace arrvm::fusion
