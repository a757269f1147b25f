#include "rewrite/lane_reroll.hpp"

#include <algorithm>
#include <bit>
#include <cstdlib>
#include <unordered_map>

#include "rewrite/batch_users.hpp"
#include "rewrite/block_lanes.hpp"
#include "rewrite/copy_back.hpp"
#include "vm/opcode.hpp"
#include "vm/view.hpp"

namespace arrvm {

namespace {

bool same_constant(const Scalar& a, const Scalar& b) {
  return a.dtype == b.dtype && a.u == b.u && std::bit_cast<uint64_t>(a.im) == std::bit_cast<uint64_t>(b.im);
}

// One operand slot of the lane: the instruction's position q in it and the
// slot (-1: the output, else the input).
struct Slot {
  std::size_t q;
  int k;
};

const View& view_at(const Instruction& in, int k) {
  return k < 0 ? in.out : in.in[k].view;
}

// How the lanes use one slot's base.
struct SlotPlan {
  bool temp = false;  // a temporary of each lane (family `family`)
  int family = -1;
  int64_t step = 0;  // else the offset's step from lane to lane
};

// The runs of one batch, checked and rolled up (lane_reroll.hpp).
class Reroller {
 public:
  Reroller(std::vector<Instruction>* batch, std::vector<uint64_t>* origin,
           const std::function<BaseId(DType, int64_t)>& new_temp, const std::function<bool(BaseId)>& keep)
      : batch_(*batch), origin_(*origin), new_temp_(new_temp), keep_(keep) {
    s_.reserve(batch_.size());
    for (const Instruction& in : batch_) s_.push_back(lane_structure(in));
  }

  // Whether two neighbouring stretches repeat anywhere (else nothing to do).
  bool repeats() const {
    for (std::size_t i = 0; i + 1 < s_.size(); ++i) {
      for (std::size_t p = 1; p <= kMaxPeriod && i + 2 * p <= s_.size(); ++p) {
        if (s_[i] == s_[i + p] && std::equal(s_.begin() + static_cast<std::ptrdiff_t>(i),
                                             s_.begin() + static_cast<std::ptrdiff_t>(i + p),
                                             s_.begin() + static_cast<std::ptrdiff_t>(i + p)))
          return true;
      }
    }
    return false;
  }

  std::size_t run() {
    if (!repeats()) return 0;
    for (std::size_t i = 0; i < batch_.size(); ++i) {
      if (batch_[i].op == Opcode::Free) freed_at_.emplace(batch_[i].out.base, i);
    }
    // (The new batch is built from the first run rolled on: a batch with
    // none is not copied.)
    std::vector<Instruction> out = take_spare_batch(batch_.size());
    std::vector<uint64_t> out_origin;
    std::size_t rolled = 0;
    for (std::size_t i = 0; i < batch_.size();) {
      const std::size_t taken = try_run(i, &out, &out_origin);
      if (taken > 0) {
        ++rolled;
        i += taken;
        copied_ = i;
        continue;
      }
      ++i;
    }
    if (rolled > 0) {
      copy_upto(batch_.size(), &out, &out_origin);
      replace_batch(batch_, std::move(out));
      origin_ = std::move(out_origin);
    } else {
      replace_batch(out, {});  // (the spare back, unused)
    }
    return rolled;
  }

 private:
  template <typename F>
  static void for_each_base(const Instruction& in, F&& f) {
    f(in.out.base);
    if (is_control(in.op)) return;
    for (int k = 0; k < in.nin; ++k) {
      if (!in.in[k].is_const) f(in.in[k].view.base);
    }
  }

  // The longest repetition from `i` of a period of at most kMaxPeriod: how
  // many lanes of each period.
  std::size_t lanes_from(std::size_t i, std::size_t p) const {
    std::size_t n = 1;
    while (i + (n + 1) * p <= s_.size() && std::equal(s_.begin() + static_cast<std::ptrdiff_t>(i),
                                                      s_.begin() + static_cast<std::ptrdiff_t>(i + p),
                                                      s_.begin() + static_cast<std::ptrdiff_t>(i + n * p)))
      ++n;
    return n;
  }

  // Appends the instructions not rolled up before `i` to the new batch.
  void copy_upto(std::size_t i, std::vector<Instruction>* out, std::vector<uint64_t>* out_origin) {
    for (; copied_ < i; ++copied_) {
      out->push_back(batch_[copied_]);
      out_origin->push_back(origin_[copied_]);
    }
  }

  // Whether the lanes [i, i + p) and [i + p, i + 2p) may be two lanes of a
  // run (a quick necessary test): every base the same in both, or each
  // used only inside its own lane. Most repetitions fail here at once: a
  // time loop's steps hand new arrays on from step to step.
  bool pairable(std::size_t i, std::size_t p) const {
    // (A lane's own base: one the lane frees. That it is used nowhere else
    // is roll's test.)
    auto inside = [&](BaseId b, std::size_t from) {
      const auto it = freed_at_.find(b);
      return it != freed_at_.end() && it->second >= from && it->second < from + p;
    };
    bool work = false;
    for (std::size_t q = 0; q < p; ++q) {
      const Instruction& a = batch_[i + q];
      const Instruction& b = batch_[i + p + q];
      if (a.op != b.op || a.nin != b.nin) return false;
      work |= !is_control(a.op);
      auto same_or_own = [&](BaseId x, BaseId y) { return x == y || (inside(x, i) && inside(y, i + p)); };
      if (!same_or_own(a.out.base, b.out.base)) return false;
      if (is_control(a.op)) continue;
      for (int k = 0; k < a.nin; ++k) {
        if (a.in[k].is_const != b.in[k].is_const) return false;
        if (!a.in[k].is_const && !same_or_own(a.in[k].view.base, b.in[k].view.base)) return false;
      }
    }
    return work;
  }

  // Rolls up the run starting at `i` if there is one: appends it to `out`
  // and returns the number of instructions it replaced, else 0.
  std::size_t try_run(std::size_t i, std::vector<Instruction>* out, std::vector<uint64_t>* out_origin) {
    // (A run that failed from every phase is not tried again from inside:
    // a loop of lanes writing one array, a time loop, would cost the square
    // of its length.)
    if (i >= fail_from_ + fail_period_ && i < fail_to_) return 0;
    // Candidates: for each period, the lanes from here; the most
    // instructions covered first (then the shorter period).
    std::size_t best_p = 0, best_n = 0, repeat_p = 0;
    for (std::size_t p = 1; p <= kMaxPeriod && i + kMinLanes * p <= s_.size(); ++p) {
      if (s_[i] != s_[i + p] || !std::equal(s_.begin() + static_cast<std::ptrdiff_t>(i),
                                            s_.begin() + static_cast<std::ptrdiff_t>(i + p),
                                            s_.begin() + static_cast<std::ptrdiff_t>(i + p)))
        continue;
      if (repeat_p == 0) repeat_p = p;
      if (!pairable(i, p)) continue;
      const std::size_t n = lanes_from(i, p);
      if (n >= kMinLanes && n * p > best_n * best_p) {
        best_p = p;
        best_n = n;
      }
    }
    if (best_n == 0) {
      // A stretch that repeats in structure but not as lanes (a time loop
      // handing its arrays on): tried from each phase, then passed over.
      if (repeat_p != 0 && i >= fail_to_) {
        const std::size_t n = lanes_from(i, repeat_p);
        if (n >= kMinLanes) {
          fail_from_ = i;
          fail_period_ = repeat_p;
          fail_to_ = i + n * repeat_p;
        }
      }
      return 0;
    }
    // (The last lane's values may be read after the run: then one lane fewer.)
    if (roll(i, best_p, best_n, out, out_origin)) return best_p * best_n;
    if (best_n > kMinLanes && roll(i, best_p, best_n - 1, out, out_origin)) return best_p * (best_n - 1);
    if (i >= fail_to_) {
      fail_from_ = i;
      fail_period_ = best_p;
      fail_to_ = i + best_n * best_p;
    }
    return 0;
  }

  const Instruction& at(std::size_t i, std::size_t p, std::size_t lane, std::size_t q) const {
    return batch_[i + lane * p + q];
  }

  bool roll(std::size_t i, std::size_t p, std::size_t n, std::vector<Instruction>* out,
            std::vector<uint64_t>* out_origin) {
    if (uses_.empty()) {  // (counted once, for the first candidate that gets here)
      for (const Instruction& in : batch_) for_each_base(in, [&](BaseId b) { ++uses_[b]; });
    }
    // Lane 0's temporaries: bases whose every use in the batch is in lane 0
    // and which lane 0 frees; the first use a write.
    std::unordered_map<BaseId, std::size_t> lane_uses;
    std::unordered_map<BaseId, bool> freed, written_first;
    auto temps_of = [&](std::size_t lane, std::unordered_map<BaseId, int>* fam) {
      lane_uses.clear();
      freed.clear();
      written_first.clear();
      for (std::size_t q = 0; q < p; ++q) {
        const Instruction& in = at(i, p, lane, q);
        if (in.op == Opcode::Free) {
          freed[in.out.base] = true;
          ++lane_uses[in.out.base];
          continue;
        }
        for (int k = 0; k < in.nin; ++k) {
          if (in.in[k].is_const) continue;
          ++lane_uses[in.in[k].view.base];
          written_first.emplace(in.in[k].view.base, false);
        }
        ++lane_uses[in.out.base];
        written_first.emplace(in.out.base, true);
      }
      for (const auto& [b, count] : lane_uses) {
        if (freed.count(b) != 0 && written_first[b] && uses_.at(b) == count) fam->emplace(b, -1);
      }
    };
    std::unordered_map<BaseId, int> temp0;  // lane 0's temporaries -> family
    temps_of(0, &temp0);
    int families = 0;
    for (auto& [b, f] : temp0) f = families++;
    std::vector<int64_t> family_size(static_cast<std::size_t>(families), 0);
    std::vector<DType> family_dtype(static_cast<std::size_t>(families), DType::Float64);
    // member[f][lane]: the lane's base of family f.
    std::vector<std::vector<BaseId>> member(static_cast<std::size_t>(families), std::vector<BaseId>(n, -1));
    std::unordered_map<BaseId, int> temps_l;

    std::vector<Slot> slots;
    std::vector<SlotPlan> plans;
    for (std::size_t q = 0; q < p; ++q) {
      const Instruction& in0 = at(i, p, 0, q);
      const OpKind kind = opcode_kind(in0.op);
      if (in0.op == Opcode::Free) {
        slots.push_back({q, -1});
        continue;
      }
      if (kind != OpKind::Elementwise && kind != OpKind::Reduce) return false;
      if (in0.length_class >= 0) return false;
      slots.push_back({q, -1});
      for (int k = 0; k < in0.nin; ++k) {
        if (!in0.in[k].is_const) slots.push_back({q, k});
      }
    }
    if (std::all_of(slots.begin(), slots.end(),
                    [&](const Slot& x) { return at(i, p, 0, x.q).op == Opcode::Free; }))
      return false;  // (frees alone: nothing to roll)
    plans.resize(slots.size());
    for (std::size_t lane = 0; lane < n; ++lane) {
      temps_l.clear();
      if (lane > 0) temps_of(lane, &temps_l);
      for (std::size_t q = 0; q < p; ++q) {
        const Instruction& in = at(i, p, lane, q);
        const Instruction& in0 = at(i, p, 0, q);
        if (in.op != in0.op || in.nin != in0.nin || in.axis != in0.axis) return false;
        for (int k = 0; k < in.nin; ++k) {
          if (in.in[k].is_const != in0.in[k].is_const) return false;
          if (in.in[k].is_const && !same_constant(in.in[k].constant, in0.in[k].constant)) return false;
        }
      }
      for (std::size_t s = 0; s < slots.size(); ++s) {
        const Instruction& in = at(i, p, lane, slots[s].q);
        const Instruction& in0 = at(i, p, 0, slots[s].q);
        const View& v = view_at(in, slots[s].k);
        const View& v0 = view_at(in0, slots[s].k);
        if (keep_ && keep_(v.base)) return false;
        if (in.op != Opcode::Free && v.rank() + 1 > kMaxRank) return false;
        const auto t0 = temp0.find(v0.base);
        if (t0 != temp0.end()) {
          const int f = t0->second;
          if (lane > 0 && temps_l.count(v.base) == 0) return false;
          BaseId& m = member[static_cast<std::size_t>(f)][lane];
          if (m == -1) {
            m = v.base;
          } else if (m != v.base) {
            return false;
          }
          if (in.op == Opcode::Free) {
            plans[s] = {true, f, 0};
            continue;
          }
          if (v.offset != v0.offset) return false;
          int64_t lo = 0, hi = -1;
          if (element_range(v0, &lo, &hi))
            family_size[static_cast<std::size_t>(f)] =
                std::max(family_size[static_cast<std::size_t>(f)], hi + 1);
          family_dtype[static_cast<std::size_t>(f)] = v0.dtype;
          plans[s] = {true, f, 0};
          continue;
        }
        if (in.op == Opcode::Free) {
          plans[s] = {false, -1, 0};  // (moved to the end of the run)
          continue;
        }
        if (v.base != v0.base || (lane > 0 && temps_l.count(v.base) != 0)) return false;
        if (lane == 1) {
          plans[s] = {false, -1, v.offset - v0.offset};
        } else if (lane > 1 && v.offset != v0.offset + static_cast<int64_t>(lane) * plans[s].step) {
          return false;
        }
      }
    }
    // Distinct members, and a family that holds elements.
    for (int f = 0; f < families; ++f) {
      std::vector<BaseId> m = member[static_cast<std::size_t>(f)];
      std::sort(m.begin(), m.end());
      if (m.front() == -1 || std::adjacent_find(m.begin(), m.end()) != m.end()) return false;
      if (family_size[static_cast<std::size_t>(f)] == 0) return false;
    }
    if (!independent(i, p, n, slots, plans)) return false;

    // Roll up.
    copy_upto(i, out, out_origin);
    std::vector<BaseId> fresh(static_cast<std::size_t>(families));
    for (int f = 0; f < families; ++f)
      fresh[static_cast<std::size_t>(f)] =
          new_temp_(family_dtype[static_cast<std::size_t>(f)],
                    family_size[static_cast<std::size_t>(f)] * static_cast<int64_t>(n));
    // The lane axis goes first, or last where the lanes lie closer in
    // memory than a lane's own elements (the columns of a row-major
    // matrix: Q[:, c] steps one element a lane, its rows n): the kernels
    // then sweep memory in order, as the lanes fused side by side did.
    const bool last = lanes_inside(i, p, slots, plans);
    auto stacked = [&](const View& v0, const SlotPlan& plan) {
      View v = v0;
      Dims shape, stride;
      const int64_t lanes = static_cast<int64_t>(n);
      if (plan.temp) {
        // (A lane's element e lands at e * n + lane with the lane axis
        // last, at lane * size + e with it first.)
        const int64_t size = family_size[static_cast<std::size_t>(plan.family)];
        if (!last) shape.push_back(lanes), stride.push_back(size);
        for (int d = 0; d < v0.rank(); ++d) {
          shape.push_back(v0.shape[d]);
          stride.push_back(last ? v0.stride[d] * lanes : v0.stride[d]);
        }
        if (last) shape.push_back(lanes), stride.push_back(1);
        v.offset = last ? v0.offset * lanes : v0.offset;
        v.base = fresh[static_cast<std::size_t>(plan.family)];
      } else {
        if (!last) shape.push_back(lanes), stride.push_back(plan.step);
        for (int d = 0; d < v0.rank(); ++d) {
          shape.push_back(v0.shape[d]);
          stride.push_back(v0.stride[d]);
        }
        if (last) shape.push_back(lanes), stride.push_back(plan.step);
      }
      v.shape = shape;
      v.stride = stride;
      return v;
    };
    std::vector<std::pair<Instruction, uint64_t>> moved_frees;
    std::size_t s = 0;
    for (std::size_t q = 0; q < p; ++q) {
      Instruction in = at(i, p, 0, q);
      if (in.op == Opcode::Free) {
        const SlotPlan& plan = plans[s++];
        if (plan.temp) {
          in.out.base = fresh[static_cast<std::size_t>(plan.family)];
          in.out.shape = Dims{};
          in.out.shape.push_back(family_size[static_cast<std::size_t>(plan.family)] *
                                 static_cast<int64_t>(n));
          in.out.stride = Dims{};
          in.out.stride.push_back(1);
          in.out.offset = 0;
          out->push_back(in);
          out_origin->push_back(origin_[i + q]);
        }
        // (The lanes' own temporaries, declared and never written now, are
        // freed after the run, with what the lanes freed of the program's.)
        for (std::size_t lane = 0; lane < n; ++lane)
          moved_frees.emplace_back(at(i, p, lane, q), origin_[i + lane * p + q]);
        continue;
      }
      in.out = stacked(in.out, plans[s++]);
      for (int k = 0; k < in.nin; ++k) {
        if (!in.in[k].is_const) in.in[k].view = stacked(in.in[k].view, plans[s++]);
      }
      if (opcode_kind(in.op) == OpKind::Reduce && !last) ++in.axis;
      out->push_back(in);
      out_origin->push_back(origin_[i + q]);
    }
    for (auto& [f, o] : moved_frees) {
      out->push_back(f);
      out_origin->push_back(o);
    }
    return true;
  }

  // Whether the lanes lie closer together in memory than the elements of a
  // lane: at the first operand that moves from lane to lane, a step smaller
  // than its innermost stride (of an axis longer than one).
  bool lanes_inside(std::size_t i, std::size_t p, const std::vector<Slot>& slots,
                    const std::vector<SlotPlan>& plans) const {
    for (std::size_t s = 0; s < slots.size(); ++s) {
      if (plans[s].temp || plans[s].step == 0) continue;
      const Instruction& in = at(i, p, 0, slots[s].q);
      if (in.op == Opcode::Free) continue;
      const View& v = view_at(in, slots[s].k);
      for (int d = v.rank() - 1; d >= 0; --d) {
        if (v.shape[d] > 1) return std::abs(plans[s].step) < std::abs(v.stride[d]);
      }
      return false;
    }
    return false;
  }

  // No lane writes an element another lane reads or writes.
  bool independent(std::size_t i, std::size_t p, std::size_t n, const std::vector<Slot>& slots,
                   const std::vector<SlotPlan>& plans) const {
    auto shifted = [](View v, int64_t by) {
      v.offset += by;
      return v;
    };
    for (std::size_t w = 0; w < slots.size(); ++w) {
      if (slots[w].k >= 0 || plans[w].temp) continue;
      const Instruction& iw = at(i, p, 0, slots[w].q);
      if (iw.op == Opcode::Free) continue;
      const View& W = iw.out;
      for (std::size_t a = 0; a < slots.size(); ++a) {
        if (plans[a].temp) continue;
        const Instruction& ia = at(i, p, 0, slots[a].q);
        if (ia.op == Opcode::Free) continue;
        const View& A = view_at(ia, slots[a].k);
        if (A.base != W.base) continue;
        const int64_t dw = plans[w].step, da = plans[a].step;
        if (dw == da) {
          // Lane x's write against lane y's access: a shift of (x - y) steps.
          for (int64_t d = 1; d < static_cast<int64_t>(n); ++d) {
            if (may_overlap(shifted(W, d * dw), A) || may_overlap(shifted(W, -d * dw), A)) return false;
          }
        } else if (da == 0) {
          for (std::size_t x = 0; x < n; ++x) {
            if (may_overlap(shifted(W, static_cast<int64_t>(x) * dw), A)) return false;
          }
        } else {
          if (n > 64) return false;
          for (std::size_t x = 0; x < n; ++x) {
            for (std::size_t y = 0; y < n; ++y) {
              if (x != y && may_overlap(shifted(W, static_cast<int64_t>(x) * dw),
                                        shifted(A, static_cast<int64_t>(y) * da)))
                return false;
            }
          }
        }
      }
    }
    return true;
  }

  std::vector<Instruction>& batch_;
  std::vector<uint64_t>& origin_;
  const std::function<BaseId(DType, int64_t)>& new_temp_;
  const std::function<bool(BaseId)>& keep_;
  std::vector<uint64_t> s_;
  std::unordered_map<BaseId, std::size_t> uses_;
  std::size_t fail_from_ = 0, fail_period_ = 0, fail_to_ = 0;  // the last run that failed
  std::size_t copied_ = 0;  // instructions of batch_ before this are in the new batch
  std::unordered_map<BaseId, std::size_t> freed_at_;  // where the batch frees a base
};

}  // namespace

std::size_t reroll_lanes(std::vector<Instruction>* batch, std::vector<uint64_t>* origin,
                         const std::function<BaseId(DType, int64_t)>& new_temp,
                         const std::function<bool(BaseId)>& keep) {
  if (batch->size() < 2 * kMinLanes) return 0;
  return Reroller(batch, origin, new_temp, keep).run();
}

uint64_t run_reroll(RewriteBatch& batch, RewriteContext& ctx) {
  if (!ctx.compiles) return 0;
  const std::function<bool(BaseId)> keep = [&](BaseId b) {
    if (ctx.copy_back != nullptr && ctx.copy_back->involves(b)) return true;
    return std::any_of(ctx.renames.begin(), ctx.renames.end(),
                       [&](const std::pair<BaseId, BaseId>& r) { return r.first == b || r.second == b; });
  };
  return reroll_lanes(&batch.instrs, &batch.origin, ctx.new_temp, keep);
}

}  // namespace arrvm
