// Common subexpressions (rewrite/cse.hpp).
#include "rewrite/cse.hpp"

#include <algorithm>
#include <cstring>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include "fusion/cost_machine.hpp"
#include "rewrite/batch_users.hpp"
#include "rewrite/pass.hpp"
#include "vm/base_map.hpp"

namespace arrvm {
namespace {

struct WordsHash {
  std::size_t operator()(const std::vector<int64_t>& w) const {
    uint64_t h = 1469598103934665603ull;
    for (int64_t x : w) {
      h ^= static_cast<uint64_t>(x);
      h *= 1099511628211ull;
    }
    return h;
  }
};

void add_layout(std::vector<int64_t>* key, const View& v) {
  key->push_back(static_cast<int64_t>(v.dtype));
  key->push_back(v.offset);
  key->push_back(v.rank());
  for (int d = 0; d < v.rank(); ++d) {
    key->push_back(v.shape[d]);
    key->push_back(v.stride[d]);
  }
}

// An instruction the pass may remove: elementwise, and costly enough per
// element that a store and a load are cheaper than computing it again.
bool costly_elementwise(const Instruction& in) {
  return opcode_kind(in.op) == OpKind::Elementwise && in.length_class < 0 && in.nin > 0 &&
         fusion::op_class(in.op) == fusion::OpClass::Transcendental;
}

// Whether two such instructions may repeat each other, cheaply: the
// same opcode and first operand. Most batches have none, and skip the rest.
bool may_repeat(const std::vector<Instruction>& batch) {
  std::unordered_set<uint64_t> seen;
  for (const Instruction& in : batch) {
    if (!costly_elementwise(in)) continue;
    const Operand& o = in.in[0];
    uint64_t first;
    if (o.is_const) {
      std::memcpy(&first, &o.constant.u, sizeof first);
    } else {
      first = static_cast<uint64_t>(o.view.base) * 0x9E3779B97F4A7C15ull;
    }
    if (!seen.insert(first ^ (static_cast<uint64_t>(in.op) << 56)).second) return true;
  }
  return false;
}

}  // namespace

std::size_t share_common_subexpressions(std::vector<Instruction>& batch, std::vector<uint64_t>& origin,
                                        const std::function<int64_t(BaseId)>& live_nelem) {
  if (!may_repeat(batch)) return 0;
  const std::size_t n = batch.size();
  const BatchUsers users(batch);
  auto freed_at = [&](BaseId b) -> int64_t {
    const uint32_t last = users.at(b).back();
    return batch[last].op == Opcode::Free ? static_cast<int64_t>(last) : -1;
  };
  // Whether instruction i creates its output base as the header says.
  auto creates = [&](uint32_t i) {
    const Instruction& in = batch[i];
    const BaseId b = in.out.base;
    const std::span<const uint32_t> u = users.at(b);
    if (u[0] != i) return false;
    for (std::size_t k = 1; k < u.size(); ++k) {
      if (writes_base(batch[u[k]], b)) return false;
    }
    for (int k = 0; k < in.nin; ++k) {
      if (!in.in[k].is_const && in.in[k].view.base == b) return false;
    }
    const int64_t f = freed_at(b);
    const int64_t nelem = f >= 0 ? batch[f].out.nelem() : live_nelem(b);
    return in.out.offset == 0 && in.out.nelem() == nelem && in.out.stride == row_major_strides(in.out.shape);
  };

  BaseMap<uint32_t> version;  // writes so far
  BaseMap<BaseId> renamed;    // a removed output -> the kept one
  std::unordered_map<std::vector<int64_t>, uint32_t, WordsHash> seen;
  std::vector<std::pair<BaseId, uint32_t>> free_after;  // kept base, a renamed base's free
  std::vector<char> drop(n, 0);
  std::size_t removed = 0;
  std::vector<int64_t> key;
  for (uint32_t i = 0; i < n; ++i) {
    Instruction& in = batch[i];
    if (is_control(in.op)) continue;  // (a removed output's free stays)
    for (int k = 0; k < in.nin && !renamed.empty(); ++k) {
      if (in.in[k].is_const) continue;
      if (const BaseId* to = renamed.find(in.in[k].view.base)) in.in[k].view.base = *to;
    }
    if (costly_elementwise(in) && creates(i)) {
      key.clear();
      key.push_back(static_cast<int64_t>(in.op));
      add_layout(&key, in.out);
      key.push_back(in.nin);
      for (int k = 0; k < in.nin; ++k) {
        const Operand& o = in.in[k];
        if (o.is_const) {
          int64_t bits;
          std::memcpy(&bits, &o.constant.u, sizeof bits);
          key.insert(key.end(), {1, static_cast<int64_t>(o.constant.dtype), bits});
        } else {
          const uint32_t* v = version.find(o.view.base);
          key.insert(key.end(), {0, o.view.base, v != nullptr ? *v : 0});
          add_layout(&key, o.view);
        }
      }
      const auto [it, inserted] = seen.try_emplace(key, i);
      const int64_t f = freed_at(in.out.base);
      if (!inserted && f >= 0) {
        const BaseId kept = batch[it->second].out.base;
        renamed[in.out.base] = kept;
        free_after.emplace_back(kept, static_cast<uint32_t>(f));
        drop[i] = 1;
        ++removed;
        continue;
      }
    }
    ++version[in.out.base];
  }
  if (removed == 0) return 0;

  // A kept base freed before a renamed base's last reader: its free moves
  // to just after that base's free (the latest, if several).
  std::unordered_map<BaseId, uint32_t> latest;
  for (const auto& [kept, f] : free_after) latest[kept] = std::max(latest[kept], f);
  std::vector<std::pair<uint32_t, BaseId>> moves;  // (after position, base)
  for (const auto& [kept, f] : latest) {
    const int64_t own = freed_at(kept);
    if (own < 0 || own > static_cast<int64_t>(f)) continue;
    drop[static_cast<std::size_t>(own)] = 1;
    moves.emplace_back(f, kept);
  }
  std::sort(moves.begin(), moves.end());
  // In place, so that the batch keeps its buffer (a megabyte or more, which
  // a fresh vector would map and fault in on every flush). A moved free goes
  // after a later position than its own dropped one, so the write position
  // never passes the read position.
  std::vector<Instruction> moved;
  moved.reserve(moves.size());
  for (const auto& mv : moves) moved.push_back(batch[static_cast<std::size_t>(freed_at(mv.second))]);
  std::size_t w = 0, m = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const uint64_t o = origin[i];
    if (!drop[i]) {
      if (w != i) {
        batch[w] = std::move(batch[i]);
        origin[w] = o;
      }
      ++w;
    }
    for (; m < moves.size() && moves[m].first == i; ++m) {
      batch[w] = std::move(moved[m]);
      origin[w] = o;
      ++w;
    }
  }
  batch.resize(w);
  origin.resize(w);
  return removed;
}

uint64_t run_cse(RewriteBatch& batch, RewriteContext& ctx) {
  return share_common_subexpressions(batch.instrs, batch.origin,
                                     [&](BaseId b) { return ctx.plain_nelem(b); });
}

}  // namespace arrvm
