// Names alive at a sync and dead writes (rewrite/defer.hpp).
#include "rewrite/defer.hpp"

#include <algorithm>
#include <unordered_map>

#include "rewrite/batch_users.hpp"
#include "rewrite/pass.hpp"
#include "vm/base_map.hpp"

namespace arrvm {
namespace {

// A site's hash, a word at a time (xxHash64's round and avalanche): the
// byte-at-a-time FNV it replaces was a serial chain of 8 multiplies a word,
// about 0.3 us for a rank-3 instruction, on every instruction of every batch.
struct SiteHash {
  static constexpr uint64_t kP1 = 0x9E3779B185EBCA87ull, kP2 = 0xC2B2AE3D27D4EB4Full,
                            kP3 = 0x165667B19E3779F9ull;
  uint64_t h = kP3;
  static uint64_t rotl(uint64_t x, int r) { return (x << r) | (x >> (64 - r)); }
  void add(uint64_t v) { h = rotl(h + v * kP2, 31) * kP1; }
  void add(const View& v) {
    add(static_cast<uint64_t>(v.dtype));
    add(static_cast<uint64_t>(v.offset));
    add(static_cast<uint64_t>(v.rank()));
    for (int i = 0; i < v.rank(); ++i) {
      add(static_cast<uint64_t>(v.shape[i]));
      add(static_cast<uint64_t>(v.stride[i]));
    }
  }
  uint64_t value() const {
    uint64_t x = h;
    x ^= x >> 33;
    x *= kP2;
    x ^= x >> 29;
    x *= kP3;
    x ^= x >> 32;
    return x;
  }
};

Instruction free_of(BaseId base, DType dtype, int64_t nelem) {
  Instruction f;
  f.op = Opcode::Free;
  f.out = contiguous_view(base, dtype, Dims{nelem});  // (as validation writes a free)
  return f;
}

void rename(Instruction* in, BaseId from, BaseId to) {
  if (in->out.base == from) in->out.base = to;
  for (int k = 0; k < in->nin; ++k) {
    if (!in->in[k].is_const && in->in[k].view.base == from) in->in[k].view.base = to;
  }
}

}  // namespace

uint64_t site_key(const Instruction& in) {
  SiteHash f;
  f.add(static_cast<uint64_t>(in.op));
  f.add(static_cast<uint64_t>(in.axis));
  // (Not the seed or the constants' values: a loop's iterations vary them.)
  f.add(in.out);
  for (int k = 0; k < in.nin; ++k) {
    const Operand& o = in.in[k];
    f.add(o.is_const);
    if (o.is_const) {
      f.add(static_cast<uint64_t>(o.constant.dtype));
    } else {
      f.add(o.view);
    }
  }
  return f.value() | 1;
}

std::size_t remove_dead_writes(std::vector<Instruction>& batch, std::vector<uint64_t>& origin,
                               std::vector<uint64_t>& keys) {
  // Backwards: a base is dead from a write on if the next thing that
  // touches it is its free.
  BaseMap<uint8_t> dead;  // (open addressing: no allocation per base)
  auto is_dead = [&](BaseId b) { return dead.contains(b); };
  auto revive = [&](BaseId b) { dead.erase(b); };
  std::vector<char> keep(batch.size(), 1);
  std::size_t dropped = 0;
  for (std::size_t i = batch.size(); i-- > 0;) {
    const Instruction& in = batch[i];
    if (in.op == Opcode::Free) {
      dead[in.out.base] = 1;
      continue;
    }
    if (in.op == Opcode::Sync) {
      revive(in.out.base);
      continue;
    }
    if (is_dead(in.out.base)) {
      keep[i] = 0;
      ++dropped;
      continue;
    }
    for (int k = 0; k < in.nin; ++k) {
      if (!in.in[k].is_const) revive(in.in[k].view.base);
    }
  }
  if (dropped == 0) return 0;
  std::size_t w = 0;
  for (std::size_t i = 0; i < batch.size(); ++i) {
    if (!keep[i]) continue;
    if (w != i) batch[w] = batch[i], origin[w] = origin[i], keys[w] = keys[i];
    ++w;
  }
  batch.resize(w);
  origin.resize(w);
  keys.resize(w);
  return dropped;
}

Carry defer_at_sync(std::vector<Instruction>& batch, std::vector<uint64_t>& origin,
                    std::vector<uint64_t>& keys, const DeferInput& in) {
  Carry carry;
  const std::size_t n = batch.size();
  if (n < 2 || batch.back().op != Opcode::Sync || batch.back().out.base != in.synced) return carry;
  const BatchUsers users(batch);
  auto live = [&](BaseId b) { return in.live->find(b) != nullptr; };

  // Per base the batch creates: the position of its only write, which is
  // its first use, reads nothing of it and writes all of it; and its size.
  struct Born {
    uint32_t writer;
    int64_t nelem;
    std::vector<uint32_t> rewrites;  // later writes to it (a view written again: r[diag] = 1)
  };
  std::unordered_map<BaseId, Born> born;
  for (const BaseId b : users.bases()) {
    const std::span<const uint32_t> u = users.at(b);
    const Instruction& w = batch[u[0]];
    if (!writes_base(w, b) || w.length_class >= 0) continue;
    const OpKind kind = opcode_kind(w.op);
    if (kind == OpKind::Scatter || kind == OpKind::Compress) continue;
    bool ok = true;
    for (int k = 0; k < w.nin && ok; ++k) ok = w.in[k].is_const || w.in[k].view.base != b;
    std::vector<uint32_t> rewrites;
    for (std::size_t j = 1; j < u.size() && ok; ++j) {
      const Instruction& x = batch[u[j]];
      if (!writes_base(x, b)) continue;
      const OpKind xk = opcode_kind(x.op);
      ok = x.length_class < 0 && (xk == OpKind::Elementwise || xk == OpKind::Generator);
      rewrites.push_back(u[j]);
    }
    if (!ok) continue;
    int64_t nelem;
    if (const BaseInfo* info = in.live->find(b)) {
      if (info->klass >= 0) continue;
      nelem = info->nelem;
    } else {
      const Instruction& last = batch[u.back()];
      if (last.op != Opcode::Free) continue;
      nelem = last.out.nelem();
    }
    if (w.out.nelem() != nelem || !is_injective(w.out)) continue;
    born.emplace(b, Born{u[0], nelem, std::move(rewrites)});
  }

  std::vector<std::pair<uint32_t, BaseId>> candidates;  // by writer position
  for (const auto& [b, info] : born) {
    if (b != in.synced && live(b)) candidates.emplace_back(info.writer, b);
  }
  std::sort(candidates.begin(), candidates.end());

  std::vector<BaseId> accepted;
  std::unordered_set<BaseId> is_accepted;
  std::vector<char> in_carry(n, 0);
  std::vector<uint64_t> carry_key(n, 0);
  std::size_t carried = 0;
  std::vector<uint32_t> stamp(n, 0);
  std::vector<uint32_t> chain, stack;
  uint32_t round = 0;
  // Per base the accepted chains read from outside them, the first and last
  // positions of those reads. One written later in the batch is copied (a
  // snapshot) to a fresh base after the last, and the carry reads the copy.
  struct Reads {
    uint32_t first, last;
  };
  std::unordered_map<BaseId, Reads> outside, reads;
  auto written_in = [&](BaseId e, uint32_t from, uint32_t to) {  // (from, to]
    for (uint32_t j : users.at(e)) {
      if (j > from && j <= to && writes_base(batch[j], e)) return true;
    }
    return false;
  };
  // A base's writers: its birth and its later writes, all carried together.
  auto push_writers = [&](const Born& info) {
    stack.push_back(info.writer);
    for (uint32_t j : info.rewrites) stack.push_back(j);
  };
  for (const auto& [writer, b] : candidates) {
    const uint64_t key = site_key(batch[writer]);
    if (in.refused->count(key) != 0) continue;
    if (in.good != nullptr && in.good->count(key) == 0) {
      carry.watch.emplace_back(b, key);
      continue;
    }
    ++round;
    chain.clear();
    reads.clear();
    stack.clear();
    push_writers(born.at(b));
    bool ok = true, old = false, fresh = false;
    while (!stack.empty() && ok) {
      const uint32_t q = stack.back();
      stack.pop_back();
      if (stamp[q] == round) continue;
      stamp[q] = round;
      chain.push_back(q);
      (q < in.carried ? old : fresh) = true;
      const Instruction& ins = batch[q];
      for (int k = 0; k < ins.nin && ok; ++k) {
        if (ins.in[k].is_const) continue;
        const BaseId e = ins.in[k].view.base;
        const auto it = born.find(e);
        const bool temp = it != born.end() && !live(e);
        if (temp || is_accepted.count(e) != 0) {
          push_writers(it->second);
          continue;
        }
        // Read from outside the chain: must hold at the batch's end what
        // the chain read, or be small enough to snapshot (below).
        ok = live(e);
        auto [r, first] = reads.emplace(e, Reads{q, q});
        if (!first) r->second = Reads{std::min(r->second.first, q), std::max(r->second.last, q)};
      }
    }
    // Each outside base: not written between the reads of it by this
    // chain and the accepted ones; written after them, it is copied after
    // the last read, if the copies cost at most an eighth of b's store.
    int64_t copied = 0;
    std::vector<std::pair<BaseId, Reads>> merged;
    for (auto [e, r] : reads) {
      if (!ok) break;
      const auto o = outside.find(e);
      const bool had_copy = o != outside.end() && written_in(e, o->second.last, static_cast<uint32_t>(n));
      if (o != outside.end()) r = Reads{std::min(r.first, o->second.first), std::max(r.last, o->second.last)};
      const BaseInfo* info = in.live->find(e);
      ok = info != nullptr && info->klass < 0 && !written_in(e, r.first, r.last);
      if (!ok) break;
      if (!had_copy && written_in(e, r.last, static_cast<uint32_t>(n))) copied += info->nelem;
      merged.emplace_back(e, r);
    }
    ok = ok && copied * 8 <= born.at(b).nelem;
    if (!ok || (old && fresh)) continue;
    std::size_t added = 0;
    for (uint32_t q : chain) added += !in_carry[q];
    if (carried + added > in.max_carry) continue;
    accepted.push_back(b);
    is_accepted.insert(b);
    for (const auto& [e, r] : merged) outside[e] = r;
    carry.bases += writer >= in.carried;
    for (uint32_t q : chain) {
      if (in_carry[q]) continue;
      in_carry[q] = 1;
      carry_key[q] = key;
    }
    carried += added;
  }
  if (accepted.empty()) return carry;

  // The carry: the chains in batch order, their temporaries renamed and
  // freed at its end, their snapshotted inputs read from the copies.
  std::unordered_map<BaseId, BaseId> renamed;
  std::vector<Instruction> frees;
  std::vector<uint64_t> free_origin;
  std::vector<std::pair<uint32_t, BaseId>> copies;  // (after position, original) in batch order
  std::unordered_map<BaseId, BaseId> copy_of;
  for (const auto& [e, r] : outside) {
    if (!written_in(e, r.last, static_cast<uint32_t>(n))) continue;  // holds at the end: read as it is
    const BaseInfo* info = in.live->find(e);
    const BaseId c = in.new_temp(info->dtype, info->nelem);
    copy_of.emplace(e, c);
    copies.emplace_back(r.last, e);
    frees.push_back(free_of(c, info->dtype, info->nelem));
    free_origin.push_back(origin[r.last]);
  }
  std::sort(copies.begin(), copies.end());
  for (std::size_t q = 0; q < n; ++q) {
    if (!in_carry[q]) continue;
    Instruction c = batch[q];
    auto fresh_name = [&](BaseId e) {
      const auto it = born.find(e);
      if (it == born.end() || live(e)) return;
      auto [r, inserted] = renamed.emplace(e, -1);
      if (inserted) {
        const DType t = batch[it->second.writer].out.dtype;
        r->second = in.new_temp(t, it->second.nelem);
        frees.push_back(free_of(r->second, t, it->second.nelem));
        free_origin.push_back(origin[q]);
      }
      rename(&c, e, r->second);
    };
    fresh_name(c.out.base);
    for (int k = 0; k < c.nin; ++k) {
      if (c.in[k].is_const) continue;
      fresh_name(c.in[k].view.base);
      if (const auto it = copy_of.find(c.in[k].view.base); it != copy_of.end())
        c.in[k].view.base = it->second;
    }
    carry.batch.push_back(c);
    carry.origin.push_back(origin[q]);
    carry.keys.push_back(carry_key[q]);
  }
  for (std::size_t i = 0; i < frees.size(); ++i) {
    carry.batch.push_back(frees[i]);
    carry.origin.push_back(free_origin[i]);
    carry.keys.push_back(0);
  }

  // This batch computes each deferred base under a fresh name it frees.
  const uint64_t at = origin.back();
  for (BaseId b : accepted) {
    const Born& info = born.at(b);
    const DType t = batch[info.writer].out.dtype;
    const BaseId b2 = in.new_temp(t, info.nelem);
    for (uint32_t q : users.at(b)) rename(&batch[q], b, b2);
    batch.insert(batch.end() - 1, free_of(b2, t, info.nelem));
    origin.insert(origin.end() - 1, at);
    keys.insert(keys.end() - 1, 0);
  }
  // ... and copies each snapshotted input after the chains' last read of
  // it (from the back, so the positions before stay valid).
  for (auto it = copies.rbegin(); it != copies.rend(); ++it) {
    const auto [pos, e] = *it;
    const BaseInfo* info = in.live->find(e);
    Instruction copy;
    copy.op = Opcode::Identity;
    copy.out = contiguous_view(copy_of.at(e), info->dtype, Dims{info->nelem});
    copy.add_input(Operand::of(contiguous_view(e, info->dtype, Dims{info->nelem})));
    batch.insert(batch.begin() + pos + 1, copy);
    origin.insert(origin.begin() + pos + 1, origin[pos]);
    keys.insert(keys.begin() + pos + 1, 0);
  }
  return carry;
}

uint64_t run_defer(RewriteBatch& batch, RewriteContext& ctx) {
  if (ctx.synced < 0) return 0;
  DeferInput d;
  d.synced = ctx.synced;
  d.live = ctx.bases;
  d.carried = ctx.deferral.carried;
  d.max_carry = ctx.deferral.max_carry;
  d.good = ctx.deferral.every_site ? nullptr : ctx.deferral.good;
  d.refused = ctx.deferral.refused;
  d.new_temp = ctx.new_temp;
  Carry carry = defer_at_sync(batch.instrs, batch.origin, batch.keys, d);
  ctx.carry_batch = std::move(carry.batch);
  ctx.carry_origin = std::move(carry.origin);
  ctx.carry_keys = std::move(carry.keys);
  ctx.watch = std::move(carry.watch);
  return carry.bases;
}

uint64_t run_dead_writes(RewriteBatch& batch, RewriteContext&) {
  return remove_dead_writes(batch.instrs, batch.origin, batch.keys);
}

}  // namespace arrvm
