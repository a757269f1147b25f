// A fill of a stack of planes splits at the planes the next instructions
// update one at a time (rewrite/fill_split.hpp).
#include "rewrite/fill_split.hpp"

#include "rewrite/batch_users.hpp"
#include "rewrite/pass.hpp"

#include <unordered_map>
#include <utility>

namespace arrvm {
namespace {

bool is_stack_fill(const Instruction& in) {
  if (in.op != Opcode::Identity || in.nin != 1 || !in.in[0].is_const || in.length_class >= 0) return false;
  const View& w = in.out;
  return w.rank() >= 2 && w.shape[0] >= 2 && w.stride[0] != 0 && w.nelem() > 0;
}

// Plane j of w (the header's definition), if x is one.
bool plane_of(const View& x, const View& w, int64_t* j) {
  if (x.base != w.base || x.dtype != w.dtype || x.rank() != w.rank() - 1) return false;
  for (int d = 0; d < x.rank(); ++d) {
    if (x.shape[d] != w.shape[d + 1]) return false;
    if (x.shape[d] > 1 && x.stride[d] != w.stride[d + 1]) return false;
  }
  const int64_t rel = x.offset - w.offset;
  if (rel % w.stride[0] != 0) return false;
  *j = rel / w.stride[0];
  return *j >= 0 && *j < w.shape[0];
}

View plane(const View& w, int64_t j) {
  View p;
  p.base = w.base;
  p.dtype = w.dtype;
  p.offset = w.offset + j * w.stride[0];
  for (int d = 1; d < w.rank(); ++d) {
    p.shape.push_back(w.shape[d]);
    p.stride.push_back(w.stride[d]);
  }
  return p;
}

View rows(const View& w, int64_t a, int64_t b) {
  View r = w;
  r.offset = w.offset + a * w.stride[0];
  r.shape[0] = b - a;
  return r;
}

constexpr uint32_t kUnclaimed = UINT32_MAX;

// Per plane of the fill at position i, the instruction that claims it in
// the walk of the header, or kUnclaimed (empty: none claimed).
std::vector<uint32_t> claimed_planes(const std::vector<Instruction>& batch,
                                     const std::vector<uint32_t>& users, uint32_t i) {
  const View& w = batch[i].out;
  const int64_t k = w.shape[0];
  std::vector<uint32_t> claimed(static_cast<std::size_t>(k), kUnclaimed);
  int64_t count = 0;
  std::vector<int64_t> planes;
  for (uint32_t u : users) {
    if (u <= i) continue;
    const Instruction& x = batch[u];
    if (is_control(x.op)) break;
    planes.clear();
    bool only_planes = true;
    auto check = [&](const View& v) {
      if (v.base != w.base) return;
      int64_t j = 0;
      if (plane_of(v, w, &j)) {
        planes.push_back(j);
      } else {
        only_planes = false;
      }
    };
    check(x.out);
    for (int q = 0; q < x.nin; ++q) {
      if (!x.in[q].is_const) check(x.in[q].view);
    }
    if (!only_planes) break;
    for (int64_t j : planes) {
      if (claimed[static_cast<std::size_t>(j)] == kUnclaimed) {
        claimed[static_cast<std::size_t>(j)] = u;
        ++count;
      }
    }
    if (count == k) break;
  }
  if (count == 0) claimed.clear();
  return claimed;
}

// Whether the fill's piece over plane j folds into x, the instruction that
// claims the plane (the header's "folded"): x is elementwise, writes all of
// plane j and touches W's base through nothing else, reads another array
// if it reads plane j, and the fill's constant needs no conversion to W's
// dtype.
bool folds_into(const Instruction& fill, int64_t j, const Instruction& x) {
  const View& w = fill.out;
  if (opcode_kind(x.op) != OpKind::Elementwise || x.length_class >= 0 ||
      fill.in[0].constant.dtype != w.dtype || !is_injective(w))
    return false;
  int64_t jo = 0;
  if (!plane_of(x.out, w, &jo) || jo != j) return false;
  int reads = 0, others = 0;  // inputs on W's base; inputs on other bases
  for (int q = 0; q < x.nin; ++q) {
    const Operand& o = x.in[q];
    if (o.is_const) continue;
    if (o.view.base != w.base) {
      ++others;
      continue;
    }
    if (o.view.offset != x.out.offset || !(o.view.shape == x.out.shape) || !(o.view.stride == x.out.stride))
      return false;
    ++reads;
  }
  return reads == 0 || others > 0;  // (not an instruction of constants only)
}

// Per base that a stack fill writes, the instructions touching it,
// ascending (BatchUsers for those bases only: a flush's hot path, where
// most batches with a fill split nothing).
std::unordered_map<BaseId, std::vector<uint32_t>> fill_users(const std::vector<Instruction>& batch) {
  std::unordered_map<BaseId, std::vector<uint32_t>> users;
  for (const Instruction& in : batch) {
    if (is_stack_fill(in)) users[in.out.base];
  }
  if (users.empty()) return users;
  auto touch = [&](BaseId b, uint32_t i) {
    const auto it = users.find(b);
    if (it == users.end()) return;
    std::vector<uint32_t>& u = it->second;
    if (u.empty() || u.back() != i) u.push_back(i);
  };
  for (uint32_t i = 0; i < batch.size(); ++i) {
    const Instruction& in = batch[i];
    touch(in.out.base, i);
    for (int k = 0; k < in.nin; ++k) {
      if (!in.in[k].is_const) touch(in.in[k].view.base, i);
    }
  }
  return users;
}

}  // namespace

std::size_t split_fills(std::vector<Instruction>& batch, std::vector<uint64_t>& origin,
                        const FillSplitEnv& env) {
  const auto users = fill_users(batch);
  if (users.empty()) return 0;
  // The fills that split and their claims, before anything moves (a fold
  // changes only what its claimer reads of its own fill's base).
  std::unordered_map<uint32_t, std::vector<uint32_t>> splits_at;
  for (const auto& [base, us] : users) {
    for (uint32_t i : us) {
      if (batch[i].out.base != base || !is_stack_fill(batch[i])) continue;
      std::vector<uint32_t> claimed = claimed_planes(batch, us, i);
      if (!claimed.empty()) splits_at.emplace(i, std::move(claimed));
    }
  }
  if (splits_at.empty()) return 0;
  std::vector<Instruction> next = take_spare_batch(batch.size() + splits_at.size());
  std::vector<uint64_t> next_origin;
  next_origin.reserve(next.capacity());
  for (uint32_t i = 0; i < batch.size(); ++i) {
    const auto it = splits_at.find(i);
    if (it == splits_at.end()) {
      next.push_back(std::move(batch[i]));
      next_origin.push_back(origin[i]);
      continue;
    }
    const std::vector<uint32_t>& claimed = it->second;
    const Instruction& fill = batch[i];
    const std::vector<uint32_t>& us = users.at(fill.out.base);
    if (us.front() == i && is_injective(fill.out)) {
      // The base's size: the VM's while it lives, else its free's (the
      // base's last user, if the batch frees it).
      int64_t nelem = env.live_nelem(fill.out.base);
      if (nelem < 0 && batch[us.back()].op == Opcode::Free) nelem = batch[us.back()].out.nelem();
      if (nelem == fill.out.nelem()) env.leave_unfilled(fill.out.base);
    }
    const int64_t k = fill.out.shape[0];
    for (int64_t a = 0; a < k;) {
      Instruction p = fill;
      int64_t b = a + 1;
      const uint32_t x = claimed[static_cast<std::size_t>(a)];
      if (x != kUnclaimed) {
        if (folds_into(fill, a, batch[x])) {
          // The claimer reads the constant instead; the piece goes.
          Instruction& claimer = batch[x];
          for (int q = 0; q < claimer.nin; ++q) {
            if (!claimer.in[q].is_const && claimer.in[q].view.base == fill.out.base)
              claimer.in[q] = Operand::of(fill.in[0].constant);
          }
          a = b;
          continue;
        }
        p.out = plane(fill.out, a);
      } else {
        while (b < k && claimed[static_cast<std::size_t>(b)] == kUnclaimed) ++b;
        p.out = rows(fill.out, a, b);
      }
      next.push_back(std::move(p));
      next_origin.push_back(origin[i]);
      a = b;
    }
  }
  replace_batch(batch, std::move(next));
  origin = std::move(next_origin);
  return splits_at.size();
}

uint64_t run_split_fills(RewriteBatch& batch, RewriteContext& ctx) {
  FillSplitEnv env;
  env.live_nelem = [&](BaseId b) {
    const BaseInfo* info = ctx.bases->find(b);
    return info != nullptr ? info->nelem : int64_t{-1};
  };
  env.leave_unfilled = ctx.leave_unfilled;
  return split_fills(batch.instrs, batch.origin, env);
}

}  // namespace arrvm
