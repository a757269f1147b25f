#include "rewrite/copy_back.hpp"

#include <algorithm>
#include <unordered_set>

#include "rewrite/batch_users.hpp"
#include "rewrite/defer.hpp"
#include "vm/base_map.hpp"
#include "vm/error.hpp"
#include "vm/opcode.hpp"

namespace arrvm {
namespace {

bool same_layout(const View& a, const View& b) {
  return a.offset == b.offset && a.shape == b.shape && a.stride == b.stride;
}

View on(BaseId base, const View& v) {
  View r = v;
  r.base = base;
  return r;
}

Instruction free_of(BaseId base, DType dtype, int64_t nelem) {
  Instruction f;
  f.op = Opcode::Free;
  f.out = contiguous_view(base, dtype, Dims{nelem});  // (as validation writes a free)
  return f;
}

Instruction copy_of(const View& to, const View& from) {
  Instruction c;
  c.op = Opcode::Identity;
  c.out = to;
  c.add_input(Operand::of(from));
  return c;
}

// All of a base of `nelem` elements, row-major from offset 0.
bool whole_row_major(const View& v, int64_t nelem) {
  return nelem > 0 && v.offset == 0 && v.nelem() == nelem && v.stride == row_major_strides(v.shape);
}

// V as a box of a row-major array of `nelem` elements: that array's shape S
// and V's first corner lo (V = A[lo : lo + V.shape] of A, `nelem` elements
// of shape S). False if V is not one.
bool as_box(const View& v, int64_t nelem, Dims* shape, Dims* lo) {
  const int r = v.rank();
  if (r == 0 || v.nelem() <= 0 || v.offset < 0 || v.stride[r - 1] != 1) return false;
  Dims s = Dims::filled(r, 0), l = Dims::filled(r, 0);
  for (int d = r - 1; d > 0; --d) {
    if (v.stride[d - 1] <= 0 || v.stride[d - 1] % v.stride[d] != 0) return false;
    s[d] = v.stride[d - 1] / v.stride[d];
  }
  if (nelem % v.stride[0] != 0) return false;
  s[0] = nelem / v.stride[0];
  int64_t rest = v.offset;
  for (int d = 0; d < r; ++d) {
    l[d] = rest / v.stride[d];
    rest %= v.stride[d];
    if (l[d] + v.shape[d] > s[d]) return false;
  }
  *shape = s;
  *lo = l;
  return true;
}

// The array minus the box (as_box's shape and lo), as at most 2 rank
// disjoint boxes: for each axis d, the slabs before and after the box along
// d, within the box along the axes before d and whole along those after.
std::vector<View> frame_of(const View& box, const Dims& shape, const Dims& lo) {
  const int r = box.rank();
  std::vector<View> out;
  for (int d = 0; d < r; ++d) {
    const int64_t parts[2][2] = {{0, lo[d]}, {lo[d] + box.shape[d], shape[d]}};
    for (const auto& part : parts) {
      if (part[1] <= part[0]) continue;
      View f = box;
      f.offset = 0;
      for (int e = 0; e < r; ++e) {
        int64_t start = 0;
        if (e < d) {
          f.shape[e] = box.shape[e];
          start = lo[e];
        } else if (e == d) {
          f.shape[e] = part[1] - part[0];
          start = part[0];
        } else {
          f.shape[e] = shape[e];
        }
        f.offset += start * box.stride[e];
      }
      out.push_back(f);
    }
  }
  return out;
}

template <class F>
void for_each_view(Instruction& in, F f) {
  f(in.out, true);
  for (int k = 0; k < in.nin; ++k) {
    if (!in.in[k].is_const) f(in.in[k].view, false);
  }
}

}  // namespace

std::vector<std::pair<BaseId, BaseId>> CopyBack::padded() const {
  std::vector<std::pair<BaseId, BaseId>> r;
  for (const auto& [w, p] : padded_) r.emplace_back(w, p.holder);
  return r;
}

bool CopyBack::involves(BaseId id) const {
  if (padded_.empty()) return false;
  if (padded_.count(id) != 0) return true;
  return std::any_of(padded_.begin(), padded_.end(), [id](const auto& p) { return p.second.holder == id; });
}

BaseId CopyBack::forget(BaseId id) {
  const auto it = padded_.find(id);
  if (it == padded_.end()) return -1;
  const BaseId holder = it->second.owned ? it->second.holder : -1;
  refused_.insert(it->second.site);
  padded_.erase(it);
  return holder;
}

std::vector<std::pair<View, View>> CopyBack::lend_back(BaseId g) {
  std::vector<std::pair<View, View>> r;
  for (auto it = padded_.begin(); it != padded_.end();) {
    if (it->second.owned || it->second.holder != g) {
      ++it;
      continue;
    }
    r.emplace_back(it->second.whole, it->second.box);
    it = padded_.erase(it);
  }
  return r;
}

// The full walk of rewrite() on a batch with nothing padded and no site
// learned, as far as it changes anything: creator_ (a base created whole,
// alive or freed by the batch, and not touched earlier in it; erased at its
// free). False, with nothing changed, if the walk could do more: a copy
// learns a site, or a converting copy may rename.
bool CopyBack::learns_nothing(const std::vector<Instruction>& batch, const Env& env) {
  // (Open-addressing maps: a hash node per instruction cost as much as the
  // copies this walk saves.)
  struct Change {
    int8_t state = 0;  // 1: erased, 2: created
    Created created{};
  };
  BaseMap<Change> changes;
  std::vector<BaseId> changed;
  BaseMap<uint8_t> touched;
  BaseMap<int64_t> freed_size;
  bool freed_filled = false;
  auto creator = [&](BaseId b) -> const Created* {
    if (const Change* c = changes.find(b); c != nullptr && c->state != 0)
      return c->state == 2 ? &c->created : nullptr;
    const auto c = creator_.find(b);
    return c == creator_.end() ? nullptr : &c->second;
  };
  auto change = [&](BaseId b) -> Change& {
    Change& c = changes[b];
    if (c.state == 0) changed.push_back(b);
    return c;
  };
  for (const Instruction& in : batch) {
    if (in.op == Opcode::Free) {
      change(in.out.base).state = 1;
      continue;
    }
    if (in.op == Opcode::Sync) continue;
    const bool copy = in.op == Opcode::Identity && in.nin == 1 && !in.in[0].is_const && in.length_class < 0 &&
                      in.in[0].view.base != in.out.base;
    if (copy && in.in[0].view.dtype != in.out.dtype) {
      // rename_converting()'s first tests: G the program's, the copy more than half of it.
      DType gd;
      int64_t gn = 0;
      if (env.live(in.out.base, &gd, &gn) && !env.adopted(in.out.base) && 2 * in.out.nelem() > gn)
        return false;
    } else if (copy) {
      const Created* c = creator(in.in[0].view.base);
      DType gd;
      int64_t gn = 0;
      Dims shape, lo;
      if (c != nullptr && refused_.count(c->site) == 0 && whole_row_major(in.in[0].view, c->nelem) &&
          env.live(in.out.base, &gd, &gn) && !env.adopted(in.out.base) && 2 * in.out.nelem() > gn &&
          as_box(in.out, gn, &shape, &lo)) {
        return false;  // learns a site
      }
    }
    const OpKind kind = opcode_kind(in.op);
    const BaseId x = in.out.base;
    if (in.length_class < 0 && kind == OpKind::Elementwise && !touched.contains(x)) {
      bool reads_x = false;
      for (int k = 0; k < in.nin; ++k) reads_x |= !in.in[k].is_const && in.in[k].view.base == x;
      DType xd = in.out.dtype;
      int64_t xn = 0;
      bool sized = false;
      if (!reads_x && !env.adopted(x)) {
        sized = env.live(x, &xd, &xn);
        if (!sized) {
          if (!freed_filled) {
            for (const Instruction& f : batch) {
              if (f.op == Opcode::Free) freed_size[f.out.base] = f.out.nelem();
            }
            freed_filled = true;
          }
          if (const int64_t* f = freed_size.find(x)) {
            xn = *f;
            xd = in.out.dtype;
            sized = true;
          }
        }
      }
      if (sized && xd == in.out.dtype && whole_row_major(in.out, xn)) {
        Change& c = change(x);
        c.state = 2;
        c.created = Created{site_key(in), xn};
      }
    }
    touched[x] = 1;
    for (int k = 0; k < in.nin; ++k) {
      if (!in.in[k].is_const) touched[in.in[k].view.base] = 1;
    }
  }
  for (BaseId b : changed) {
    const Change& c = *changes.find(b);
    if (c.state == 1) {
      creator_.erase(b);
    } else {
      creator_[b] = c.created;
    }
  }
  return true;
}

std::vector<std::pair<BaseId, BaseId>> CopyBack::rewrite(std::vector<Instruction>& batch,
                                                         std::vector<uint64_t>& origin, const Env& env) {
  // Nothing padded and no site learned (most batches of most programs): the
  // walk below would only note which sites create the bases that outlive
  // the batch, unless a copy in it learns a site (then the rest of the batch
  // may pad) or a converting copy renames. That is decided first, reading
  // only, with creator_'s changes kept aside, and applied if nothing else
  // happens: the full walk copies every instruction twice (about 2 ms a run
  // of water_ice or lattice_boltzmann, whose copies never rename).
  if (padded_.empty() && sites_.empty() && learns_nothing(batch, env)) return {};
  std::vector<Instruction> out = take_spare_batch(batch.size() + 8);
  std::vector<uint64_t> out_origin;
  out_origin.reserve(batch.size() + 8);
  std::unordered_set<BaseId> touched;
  struct Pending {
    std::size_t copy_at;  // in `out`
    BaseId g;             // the base the copy wrote: G, or what holds G after a rename earlier in the batch
    BaseId program_g;     // G
    BaseId w;
    DType dtype;
    int64_t nelem;                   // G's
    std::vector<std::size_t> reads;  // in `out`: read G after the copy
  };
  std::vector<Pending> pending;
  std::unordered_map<BaseId, BaseId> alias;       // G -> P, after a rename in this batch
  std::unordered_map<BaseId, BaseId> program_of;  // P -> G
  // The size of a base the batch frees (from its free), for one it creates.
  std::unordered_map<BaseId, int64_t> freed_size;
  for (const Instruction& in : batch) {
    if (in.op == Opcode::Free) freed_size[in.out.base] = in.out.nelem();
  }
  auto size_of = [&](BaseId b, DType* dtype, int64_t* nelem) {
    if (env.adopted(b)) return false;
    if (env.live(b, dtype, nelem)) return true;
    const auto f = freed_size.find(b);
    if (f == freed_size.end()) return false;
    *nelem = f->second;
    return true;  // (dtype: the caller's view's)
  };
  std::vector<std::pair<std::size_t, std::vector<Instruction>>> replace;  // out[i] -> these

  auto emit = [&](const Instruction& in, uint64_t o) {
    out.push_back(in);
    out_origin.push_back(o);
  };
  auto drop_pending = [&](auto pred) {
    pending.erase(std::remove_if(pending.begin(), pending.end(), pred), pending.end());
  };
  // W is itself again: P[V] (or G[V]) copied into it, P freed. The site is
  // not padded again, unless W only leaves G because G is written or freed
  // (the guess was right: the copy-back came).
  auto current = [&](BaseId b) {
    const auto a = alias.find(b);
    return a == alias.end() ? b : a->second;
  };
  auto unpad = [&](BaseId w, uint64_t o, bool refuse = true) {
    const auto it = padded_.find(w);
    const Pad p = it->second;
    padded_.erase(it);
    if (refuse) {
      refused_.insert(p.site);
      sites_.erase(p.site);
    }
    if (p.owned) {
      emit(copy_of(p.whole, p.box), o);
      emit(free_of(p.holder, p.box.dtype, p.holder_nelem), o);
    } else {
      emit(copy_of(p.whole, on(current(p.holder), p.box)), o);
    }
    drop_pending([&](const Pending& q) { return q.w == w; });
  };
  // The copy-back of W' into G becomes a rename; W' is G[V] from then on if
  // it stays alive (`lend`: at the end of the batch).
  auto commit = [&](const Pending& q, bool lend) {
    const auto it = padded_.find(q.w);
    const Pad p = it->second;
    padded_.erase(it);
    if (lend) {
      Pad b = p;
      b.holder = q.program_g;
      b.box = on(q.program_g, p.box);
      b.owned = false;
      padded_[q.w] = b;
    }
    Dims shape, lo;
    if (!as_box(p.box, q.nelem, &shape, &lo)) throw InternalError("copy-back: the learned box is not a box");
    std::vector<Instruction> with;
    for (const View& f : frame_of(p.box, shape, lo)) with.push_back(copy_of(on(p.holder, f), on(q.g, f)));
    with.push_back(free_of(q.g, q.dtype, q.nelem));
    replace.emplace_back(q.copy_at, std::move(with));
    for (std::size_t i : q.reads) {
      for_each_view(out[i], [&](View& v, bool) {
        if (v.base == q.g) v.base = p.holder;
      });
    }
    program_of.erase(q.g);
    alias[q.program_g] = p.holder;
    program_of[p.holder] = q.program_g;
    ++renamed_;
  };
  // Where the batch frees each base it frees (the last free), for the
  // converting rename's "freed later in the batch": filled on its first
  // converting copy (most batches have none).
  std::unordered_map<BaseId, std::size_t> freed_at;
  bool freed_at_filled = false;
  // Whether the instructions emitted so far that compute W (W's writers,
  // the writers of what they read, and so on) read G other than through V
  // itself: then the copy into G[V] may not join them (rule 1) and the
  // rename pays; otherwise the copy joins them as it is, and a rename would
  // only add the frame's copies.
  auto cone_reads_around = [&](BaseId w, const View& v) {
    std::unordered_set<BaseId> need{w};
    for (std::size_t j = out.size(); j-- > 0;) {
      const Instruction& x = out[j];
      if (x.op == Opcode::Free || x.op == Opcode::Sync || need.count(x.out.base) == 0) continue;
      for (int k = 0; k < x.nin; ++k) {
        if (x.in[k].is_const) continue;
        const View& r = x.in[k].view;
        if (r.base == v.base && !same_elements(r, v)) return true;
        need.insert(r.base);
      }
    }
    return false;
  };
  // `identity G[V] <- W` (aliased; batch[at] as issued), W of another dtype,
  // computed from G around V earlier in the batch and freed after the copy: the copy writes
  // P[V] of a fresh P instead, P's frame is copied from G, G is freed and P
  // names G from here on (renamed back after the batch). Returns whether it
  // did.
  auto rename_converting = [&](const Instruction& in, std::size_t at) {
    const BaseId w = in.in[0].view.base, g = in.out.base;
    const auto pg = program_of.find(g);
    const BaseId program_g = pg == program_of.end() ? g : pg->second;
    DType gd;
    int64_t gn = 0;
    if (w == g || !env.live(program_g, &gd, &gn) || env.adopted(program_g) || 2 * in.out.nelem() <= gn) {
      return false;
    }
    if (!freed_at_filled) {
      for (std::size_t i = 0; i < batch.size(); ++i) {
        if (batch[i].op == Opcode::Free) freed_at[batch[i].out.base] = i;
      }
      freed_at_filled = true;
    }
    const auto f = freed_at.find(batch[at].in[0].view.base);
    if (f == freed_at.end() || f->second < at) return false;
    if (padded_.count(w) != 0 || padded_.count(g) != 0 ||
        std::any_of(padded_.begin(), padded_.end(), [&](const auto& p) { return p.second.holder == g; }) ||
        std::any_of(pending.begin(), pending.end(),
                    [&](const Pending& q) { return q.g == g || q.g == w || q.w == w || q.w == g; })) {
      return false;
    }
    Dims shape, lo;
    if (!as_box(in.out, gn, &shape, &lo) || !cone_reads_around(w, in.out)) return false;
    const BaseId p = env.new_base(gd, gn);
    const uint64_t o = origin[at];
    emit(copy_of(on(p, in.out), in.in[0].view), o);
    for (const View& fr : frame_of(in.out, shape, lo)) emit(copy_of(on(p, fr), on(g, fr)), o);
    emit(free_of(g, gd, gn), o);
    program_of.erase(g);
    alias[program_g] = p;
    program_of[p] = program_g;
    ++renamed_;
    return true;
  };

  for (std::size_t i = 0; i < batch.size(); ++i) {
    const Instruction& issued = batch[i];
    const uint64_t o = origin[i];
    // A write to G, or its free, first copies out the W' that are boxes of it.
    if (!padded_.empty() && issued.op != Opcode::Sync) {
      std::vector<BaseId> lent;
      for (const auto& [w, p] : padded_) {
        if (!p.owned && p.holder == issued.out.base && w != issued.out.base) lent.push_back(w);
      }
      for (BaseId w : lent) unpad(w, o, false);
    }
    Instruction in = issued;
    if (!alias.empty()) {
      for_each_view(in, [&](View& v, bool) {
        const auto a = alias.find(v.base);
        if (a != alias.end()) v.base = a->second;
      });
    }
    if (in.op == Opcode::Free) {
      const BaseId x = in.out.base;
      drop_pending([&](const Pending& q) { return q.g == x; });
      const auto pit = padded_.find(x);
      if (pit != padded_.end()) {
        const auto q =
            std::find_if(pending.begin(), pending.end(), [&](const Pending& p) { return p.w == x; });
        if (!pit->second.owned) {  // a box of G: nothing of its own to free
          padded_.erase(pit);
        } else if (q != pending.end()) {
          commit(*q, false);
          pending.erase(q);
        } else {
          if (!pit->second.copied) {  // freed without the copy-back it was padded for
            refused_.insert(pit->second.site);
            sites_.erase(pit->second.site);
          }
          emit(free_of(pit->second.holder, pit->second.box.dtype, pit->second.holder_nelem), o);
          padded_.erase(pit);
        }
      }
      creator_.erase(x);
      if (const auto g = program_of.find(x); g != program_of.end()) {  // G freed after its rename
        alias.erase(g->second);
        program_of.erase(g);
      }
      emit(in, o);  // (W's own free releases its declared, never written id)
      continue;
    }
    if (in.op == Opcode::Sync) {
      if (padded_.count(in.out.base) != 0) unpad(in.out.base, o);
      for (Pending& q : pending) {
        if (q.g == in.out.base) q.reads.push_back(out.size());
      }
      emit(in, o);
      continue;
    }
    const OpKind kind = opcode_kind(in.op);
    const bool plain = in.length_class < 0 &&
                       (kind == OpKind::Elementwise || kind == OpKind::Reduce || kind == OpKind::Accumulate);
    // Padded bases are reached through their whole view only.
    if (!padded_.empty()) {
      std::vector<BaseId> restore;
      for_each_view(in, [&](View& v, bool is_out) {
        const auto p = padded_.find(v.base);
        if (p == padded_.end()) return;
        // (A W' that is a box of G is not written in place: G would change.)
        if (!plain || !same_layout(v, p->second.whole) || (!p->second.owned && is_out)) {
          restore.push_back(v.base);
        }
      });
      for (BaseId w : restore) {
        if (padded_.count(w) != 0) unpad(w, o);
      }
    }
    // A write to G or to W ends a pending rename.
    drop_pending([&](const Pending& q) { return in.out.base == q.g || in.out.base == q.w; });
    // A converting copy-back of a temporary the batch makes and frees:
    // renamed where it stands (the header's "In the batch").
    if (in.op == Opcode::Identity && in.nin == 1 && !in.in[0].is_const && in.length_class < 0 &&
        in.in[0].view.dtype != in.out.dtype && rename_converting(in, i)) {
      touched.insert(issued.out.base);
      touched.insert(issued.in[0].view.base);
      continue;
    }
    const bool is_copy = in.op == Opcode::Identity && in.nin == 1 && !in.in[0].is_const &&
                         in.in[0].view.base != in.out.base && in.in[0].view.dtype == in.out.dtype &&
                         in.length_class < 0;
    if (is_copy) {
      const BaseId w = in.in[0].view.base, g = in.out.base;
      const auto pg = program_of.find(g);
      const BaseId program_g = pg == program_of.end() ? g : pg->second;
      DType gd;
      int64_t gn = 0;
      const bool own_g = env.live(program_g, &gd, &gn) && !env.adopted(program_g);
      const auto p = padded_.find(w);
      if (p != padded_.end()) {
        if (p->second.owned && own_g && gn == p->second.holder_nelem && same_layout(in.out, p->second.box) &&
            std::none_of(pending.begin(), pending.end(), [&](const Pending& q) { return q.g == g; })) {
          pending.push_back({out.size(), g, program_g, w, gd, gn, {}});
          p->second.copied = true;
        }
      } else if (const auto c = creator_.find(w);
                 c != creator_.end() && refused_.count(c->second.site) == 0) {
        Dims shape, lo;
        // Only a box of more than half of G: the rename copies G's frame
        // instead of the box (shallow_water's `v[:, 0] = -v[:, 1]` stays a copy).
        if (whole_row_major(in.in[0].view, c->second.nelem) && own_g && 2 * in.out.nelem() > gn &&
            as_box(in.out, gn, &shape, &lo)) {
          sites_[c->second.site] = Target{gd, gn, on(-1, in.out)};
        }
      }
    }
    // A base created whole at a site that is copied back: padded.
    const BaseId x = in.out.base;
    if (plain && kind == OpKind::Elementwise && touched.count(x) == 0 && padded_.count(x) == 0) {
      DType xd;
      int64_t xn = 0;
      bool reads_x = false;
      for (int k = 0; k < in.nin; ++k) reads_x |= !in.in[k].is_const && in.in[k].view.base == x;
      xd = in.out.dtype;
      if (!reads_x && size_of(x, &xd, &xn) && xd == in.out.dtype && whole_row_major(in.out, xn)) {
        const uint64_t key = site_key(issued);
        const auto t = sites_.find(key);
        if (t != sites_.end() && refused_.count(key) == 0 && t->second.dtype == xd &&
            t->second.box.shape == in.out.shape) {
          const BaseId holder = env.new_base(xd, t->second.nelem);
          padded_[x] = Pad{holder, t->second.nelem, in.out, on(holder, t->second.box), key};
          creator_.erase(x);
        } else {
          creator_[x] = Created{key, xn};
        }
      }
    }
    for_each_view(in, [&](View& v, bool) {
      const auto p = padded_.find(v.base);
      if (p != padded_.end())
        v = on(p->second.owned ? p->second.holder : current(p->second.holder), p->second.box);
    });
    for (Pending& q : pending) {
      bool reads = false;
      for (int k = 0; k < in.nin; ++k) reads |= !in.in[k].is_const && in.in[k].view.base == q.g;
      if (reads && out.size() != q.copy_at) q.reads.push_back(out.size());
    }
    touched.insert(issued.out.base);
    for (int k = 0; k < issued.nin; ++k) {
      if (!issued.in[k].is_const) touched.insert(issued.in[k].view.base);
    }
    emit(in, o);
  }
  // A copy-back whose W' lives on past the batch, with nothing written to G
  // or W' since: renamed, W' now a box of G (NumPy's `center[:] = work`
  // before the loop's test syncs).
  for (const Pending& q : pending) commit(q, true);
  pending.clear();
  std::vector<std::pair<BaseId, BaseId>> renames;
  for (const auto& [g, holder] : alias) renames.emplace_back(holder, g);
  std::sort(renames.begin(), renames.end());
  if (renames.empty() && out.size() == batch.size() && replace.empty()) {
    replace_batch(batch, std::move(out));
    origin.swap(out_origin);
    return renames;
  }
  // The copies that became renames: the frame copies and G's free in their place.
  std::sort(replace.begin(), replace.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  batch.clear();
  origin.clear();
  std::size_t r = 0;
  for (std::size_t i = 0; i < out.size(); ++i) {
    if (r < replace.size() && replace[r].first == i) {
      for (Instruction& in : replace[r].second) {
        batch.push_back(std::move(in));
        origin.push_back(out_origin[i]);
      }
      ++r;
      continue;
    }
    batch.push_back(std::move(out[i]));
    origin.push_back(out_origin[i]);
  }
  spare_batch_buffer() = std::move(out);
  return renames;
}

}  // namespace arrvm
