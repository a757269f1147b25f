// Stores forwarded to their readers, dead stores dropped (rewrite/store_forward.hpp).
#include "rewrite/store_forward.hpp"

#include <algorithm>
#include <climits>
#include <span>

#include "rewrite/batch_users.hpp"
#include "rewrite/pass.hpp"
#include "vm/base_map.hpp"

namespace arrvm {
namespace {

// The walk from a chain gives up after this many instructions that touch
// T but not W (a base written in many disjoint pieces, such as
// lattice_boltzmann's F by its rolls, would make every walk long).
constexpr int kMaxPassed = 16;

// Where a read view U lies in the chain's view W: rows [a, b) of W's first
// axis (same rank), or the plane W[a] (rank one less).
struct Part {
  bool plane = false;
  int64_t a = 0, b = 0;
};

bool part_of(const View& u, const View& w, Part* part) {
  if (u.base != w.base || u.dtype != w.dtype || w.rank() < 1 || w.stride[0] == 0) return false;
  const int64_t rel = u.offset - w.offset;
  if (rel % w.stride[0] != 0) return false;
  const int64_t a = rel / w.stride[0];
  if (u.rank() == w.rank() - 1) {
    if (!(u.shape == w.shape.without(0)) || !(u.stride == w.stride.without(0))) return false;
    if (a < 0 || a >= w.shape[0]) return false;
    *part = {true, a, a + 1};
    return true;
  }
  if (u.rank() != w.rank() || u.stride[0] != w.stride[0] || u.shape[0] < 1) return false;
  for (int d = 1; d < w.rank(); ++d) {
    if (u.shape[d] != w.shape[d] || u.stride[d] != w.stride[d]) return false;
  }
  if (a < 0 || a + u.shape[0] > w.shape[0]) return false;
  *part = {false, a, a + u.shape[0]};
  return true;
}

// View v (of W's shape) restricted as `part` restricts W.
View restrict(const View& v, const Part& part) {
  View r = v;
  r.offset = v.offset + part.a * v.stride[0];
  if (part.plane) {
    r.shape = v.shape.without(0);
    r.stride = v.stride.without(0);
  } else {
    r.shape[0] = part.b - part.a;
  }
  return r;
}

// Elementwise (not a generator), no length class, every input view of the
// output's shape (so that each restricts as the output does).
bool plain_elementwise(const Instruction& in) {
  if (opcode_kind(in.op) != OpKind::Elementwise || in.length_class >= 0) return false;
  for (int k = 0; k < in.nin; ++k) {
    if (!in.in[k].is_const && !(in.in[k].view.shape == in.out.shape)) return false;
  }
  return true;
}

// A chain accepted for rewriting.
struct Chain {
  std::vector<uint32_t> members;  // in order; P first
  View w;
};

// What instruction i reads of T: for each operand on T, whether it is a
// part of W (then *part per operand), or does not overlap W. Returns false
// if some operand overlaps W without being a part of it.
bool reads_parts(const Instruction& in, const View& w, std::vector<std::pair<int, Part>>* parts) {
  for (int k = 0; k < in.nin; ++k) {
    const Operand& o = in.in[k];
    if (o.is_const || o.view.base != w.base || !may_overlap(o.view, w)) continue;
    Part p;
    if (!part_of(o.view, w, &p)) return false;
    parts->emplace_back(k, p);
  }
  return true;
}

}  // namespace

std::size_t forward_stores(std::vector<Instruction>& batch, std::vector<uint64_t>& origin,
                           const std::function<BaseId(DType, int64_t)>& new_temp) {
  // Necessary conditions, checked by sorting (a flush's hot path: most
  // elementwise instructions are no chain's start): P's view W is written
  // again later (a cover), and some elementwise instruction reads W's base
  // through a view that could be a part of W (one axis fewer, or as many
  // with a first axis no longer than W's).
  std::vector<uint8_t> candidate(batch.size(), 0);
  {
    struct Write {
      BaseId base;
      int64_t offset, nelem;
      uint32_t index;
      bool operator<(const Write& o) const {
        return base != o.base       ? base < o.base
               : offset != o.offset ? offset < o.offset
               : nelem != o.nelem   ? nelem < o.nelem
                                    : index < o.index;
      }
    };
    struct PartRead {
      BaseId base;
      int rank;
      int64_t first;
      bool operator<(const PartRead& o) const {
        return base != o.base ? base < o.base : rank != o.rank ? rank < o.rank : first < o.first;
      }
    };
    std::vector<Write> writes;
    for (uint32_t i = 0; i < batch.size(); ++i) {
      const Instruction& in = batch[i];
      if (plain_elementwise(in) && in.out.rank() >= 1)
        writes.push_back({in.out.base, in.out.offset, in.out.nelem(), i});
    }
    std::sort(writes.begin(), writes.end());
    // The bases with a view written twice; only their reads are collected
    // (a batch's reads are three times its writes, and most bases have none).
    std::vector<BaseId> rewritten;
    for (std::size_t a = 0; a + 1 < writes.size(); ++a) {
      const Write &x = writes[a], &y = writes[a + 1];
      if (x.base == y.base && x.offset == y.offset && x.nelem == y.nelem &&
          (rewritten.empty() || rewritten.back() != x.base))
        rewritten.push_back(x.base);
    }
    if (rewritten.empty()) return 0;
    std::vector<PartRead> reads;
    for (const Instruction& in : batch) {
      if (!plain_elementwise(in)) continue;
      for (int k = 0; k < in.nin; ++k) {
        const View& v = in.in[k].view;
        if (!in.in[k].is_const && std::binary_search(rewritten.begin(), rewritten.end(), v.base))
          reads.push_back({v.base, v.rank(), v.rank() >= 1 ? v.shape[0] : 0});
      }
    }
    std::sort(reads.begin(), reads.end());
    bool any = false;
    for (std::size_t a = 0; a + 1 < writes.size(); ++a) {
      const Write &x = writes[a], &y = writes[a + 1];
      if (x.base != y.base || x.offset != y.offset || x.nelem != y.nelem) continue;
      const View& w = batch[x.index].out;
      // Reads of the base with rank w.rank() - 1, or rank w.rank() and a first axis <= w's.
      auto from = std::lower_bound(reads.begin(), reads.end(), PartRead{w.base, w.rank() - 1, INT64_MIN});
      const bool part = from != reads.end() && from->base == w.base &&
                        (from->rank == w.rank() - 1 || (from->rank == w.rank() && from->first <= w.shape[0]));
      candidate[x.index] = part;
      any |= part;
    }
    if (!any) return 0;
  }
  const BatchUsers users(batch);
  // 1: chain member (dropped), 2: reader (reads a temporary instead).
  std::vector<uint8_t> role(batch.size(), 0);
  std::vector<Chain> chains;
  // Per reader: its operands that read a part of a chain's W, and the chain.
  struct Read {
    uint32_t reader;
    std::size_t chain;
    std::vector<std::pair<int, Part>> parts;
  };
  std::vector<Read> reads;
  for (uint32_t i = 0; i < batch.size(); ++i) {
    const Instruction& p = batch[i];
    if (candidate[i] == 0 || role[i] != 0 || !plain_elementwise(p) || !is_injective(p.out)) continue;
    const View w = p.out;
    bool reads_own = false;
    for (int k = 0; k < p.nin; ++k) reads_own |= !p.in[k].is_const && p.in[k].view.base == w.base;
    if (reads_own) continue;
    const std::span<const uint32_t> tu = users.at(w.base);
    std::vector<uint32_t> members = {i};
    std::vector<Read> found;
    bool covered = false, ok = true;
    int passed = 0;
    for (auto it = std::upper_bound(tu.begin(), tu.end(), i); ok && it != tu.end(); ++it) {
      const uint32_t j = *it;
      const Instruction& u = batch[j];
      if (is_control(u.op)) {
        ok = false;
        break;
      }
      std::vector<std::pair<int, Part>> parts;
      const bool parts_only = reads_parts(u, w, &parts);
      const bool writes_w = u.out.base == w.base && same_elements(u.out, w);
      if (writes_w && plain_elementwise(u) && parts_only) {
        if (parts.empty()) {  // overwrites W whole, reads none of it: the cover
          covered = true;
          break;
        }
        const bool in_place =
            found.empty() && std::all_of(parts.begin(), parts.end(), [&](const std::pair<int, Part>& x) {
              return same_elements(u.in[x.first].view, w);
            });
        if (in_place) {
          members.push_back(j);
          continue;
        }
        ok = false;
        break;
      }
      if (u.out.base == w.base && may_overlap(u.out, w)) {
        ok = false;
        break;
      }
      if (!parts_only) {
        ok = false;
        break;
      }
      if (parts.empty()) {  // passed over, a bounded number of times
        if (++passed > kMaxPassed) ok = false;
        continue;
      }
      if (!plain_elementwise(u)) {
        ok = false;
        break;
      }
      found.push_back({j, chains.size(), std::move(parts)});
    }
    if (!ok || !covered) continue;
    auto free_role = [&](uint32_t j) { return role[j] == 0; };
    if (!std::all_of(members.begin(), members.end(), free_role)) continue;
    if (!std::all_of(found.begin(), found.end(), [&](const Read& r) { return role[r.reader] == 0; }))
      continue;
    // The chain's other inputs keep their values up to its last reader.
    if (!found.empty()) {
      const uint32_t last = found.back().reader;
      for (uint32_t m : members) {
        for (int k = 0; ok && k < batch[m].nin; ++k) {
          const Operand& o = batch[m].in[k];
          if (o.is_const || o.view.base == w.base) continue;
          const std::span<const uint32_t> xu = users.at(o.view.base);
          for (auto it = std::upper_bound(xu.begin(), xu.end(), i); it != xu.end() && *it <= last; ++it) {
            if (batch[*it].out.base == o.view.base) {  // a write or a free
              ok = false;
              break;
            }
          }
        }
      }
      if (!ok) continue;
    }
    for (uint32_t m : members) role[m] = 1;
    for (const Read& r : found) role[r.reader] = 2;
    chains.push_back({std::move(members), w});
    for (Read& r : found) reads.push_back(std::move(r));
  }
  if (chains.empty()) return 0;

  std::size_t dropped = 0;
  std::vector<Instruction> next = take_spare_batch(batch.size() + 4 * reads.size());
  std::vector<uint64_t> next_origin;
  next_origin.reserve(next.capacity());
  std::size_t r = 0;  // reads are in reader order (readers are distinct, found in batch order per chain)
  std::sort(reads.begin(), reads.end(), [](const Read& x, const Read& y) { return x.reader < y.reader; });
  for (uint32_t j = 0; j < batch.size(); ++j) {
    if (role[j] == 1) {
      ++dropped;
      continue;
    }
    if (role[j] != 2) {
      next.push_back(batch[j]);
      next_origin.push_back(origin[j]);
      continue;
    }
    const Read& read = reads[r++];
    const Chain& chain = chains[read.chain];
    Instruction reader = batch[j];
    std::vector<std::pair<Part, View>> temps;  // per distinct part: the temporary's view
    for (const std::pair<int, Part>& kp : read.parts) {
      const int k = kp.first;
      const Part& part = kp.second;  // (not a structured binding: the lambda below captures it)
      const View& u = reader.in[k].view;
      auto same = [&](const std::pair<Part, View>& t) {
        return t.first.plane == part.plane && t.first.a == part.a && t.first.b == part.b;
      };
      auto it = std::find_if(temps.begin(), temps.end(), same);
      if (it == temps.end()) {
        const View t = contiguous_view(new_temp(u.dtype, u.nelem()), u.dtype, u.shape);
        for (uint32_t m : chain.members) {
          Instruction c = batch[m];
          c.out = t;
          for (int q = 0; q < c.nin; ++q) {
            if (c.in[q].is_const) continue;
            c.in[q].view = c.in[q].view.base == chain.w.base ? t : restrict(c.in[q].view, part);
          }
          next.push_back(c);
          next_origin.push_back(origin[j]);
        }
        temps.emplace_back(part, t);
        it = temps.end() - 1;
      }
      reader.in[k].view = it->second;
    }
    next.push_back(reader);
    next_origin.push_back(origin[j]);
    for (const auto& [part, t] : temps) {
      Instruction f;
      f.op = Opcode::Free;
      f.out = contiguous_view(t.base, t.dtype, Dims{t.nelem()});
      next.push_back(f);
      next_origin.push_back(origin[j]);
    }
  }
  replace_batch(batch, std::move(next));
  origin = std::move(next_origin);
  return dropped;
}

uint64_t run_forward_stores(RewriteBatch& batch, RewriteContext& ctx) {
  return forward_stores(batch.instrs, batch.origin, ctx.new_temp);
}

}  // namespace arrvm
