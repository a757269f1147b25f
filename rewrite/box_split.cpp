// Whole-array updates split at the box that the next update writes
// (rewrite/box_split.hpp).
#include "rewrite/box_split.hpp"

#include <algorithm>
#include <climits>
#include <functional>
#include <optional>
#include <span>
#include <unordered_map>
#include <utility>

#include "rewrite/batch_users.hpp"
#include "rewrite/pass.hpp"
#include "vm/base_map.hpp"

namespace arrvm {
namespace {

// Rows [a, b) of the first axis of `v`.
View rows(const View& v, int64_t a, int64_t b) {
  View r = v;
  r.offset = v.offset + a * v.stride[0];
  r.shape[0] = b - a;
  return r;
}

// I as the header says: an in-place elementwise instruction whose first
// axis can be split, and which reads no base in `freed` (a temporary's
// producer: the temporaries it reads would be split without a rename).
bool splittable(const Instruction& in, const BaseMap<uint8_t>* freed) {
  if (opcode_kind(in.op) != OpKind::Elementwise || in.length_class >= 0) return false;
  const View& w = in.out;
  if (w.rank() < 1 || w.shape[0] < 2 || w.stride[0] == 0) return false;
  for (int k = 0; k < in.nin; ++k) {
    const Operand& o = in.in[k];
    if (o.is_const) continue;
    if (o.view.base != w.base) {
      if (freed != nullptr && freed->contains(o.view.base)) return false;
      continue;
    }
    if (o.view.offset != w.offset || !(o.view.stride == w.stride)) return false;
  }
  return true;
}

// The rows [a, b) of w that box x is, if it is one.
bool box_of(const View& x, const View& w, int64_t* a, int64_t* b) {
  if (x.base != w.base || x.dtype != w.dtype || x.rank() != w.rank()) return false;
  for (int d = 1; d < w.rank(); ++d) {
    if (x.shape[d] != w.shape[d] || x.stride[d] != w.stride[d]) return false;
  }
  if (x.stride[0] != w.stride[0] || x.shape[0] >= w.shape[0] || x.shape[0] == 0) return false;
  const int64_t rel = x.offset - w.offset;
  if (rel % w.stride[0] != 0) return false;
  *a = rel / w.stride[0];
  *b = *a + x.shape[0];
  return *a >= 0 && *b <= w.shape[0];
}

// The piece of elementwise `in` over rows [a, b) of its output.
Instruction piece(const Instruction& in, int64_t a, int64_t b) {
  Instruction p = in;
  p.out = rows(in.out, a, b);
  for (int k = 0; k < p.nin; ++k) {
    if (!p.in[k].is_const) p.in[k].view = rows(in.in[k].view, a, b);
  }
  return p;
}

// A temporary the batch computes whole and reads once, elementwise, then
// frees: its producer splits with its reader, each piece into a fresh base.
struct Renamed {
  uint32_t producer = 0;
  std::vector<BaseId> pieces;  // per piece of the split, in the rewrite's order
  std::vector<int64_t> sizes;  // their elements
};

// Whether input base t of instruction `reader` (at position r) is such a
// temporary: touched only by its producer p (elementwise, writing all of t
// row-major, splittable itself), by `reader` through p's output view, and
// by its free.
bool renamable(const std::vector<Instruction>& batch, std::span<const uint32_t> users, uint32_t r, BaseId t,
               const BaseMap<uint8_t>& freed) {
  if (users.size() != 3 || users[1] != r) return false;
  const Instruction& p = batch[users[0]];
  const Instruction& f = batch[users[2]];
  if (f.op != Opcode::Free || !splittable(p, &freed) || p.out.base != t) return false;
  const View& w = p.out;
  if (w.offset != 0 || w.nelem() != f.out.nelem() || !(w.stride == row_major_strides(w.shape))) return false;
  if (!(w.shape == batch[r].out.shape)) return false;
  for (int k = 0; k < p.nin; ++k) {
    if (!p.in[k].is_const && p.in[k].view.base == t) return false;
  }
  const Instruction& in = batch[r];
  for (int k = 0; k < in.nin; ++k) {
    const Operand& o = in.in[k];
    if (o.is_const || o.view.base != t) continue;
    if (o.view.offset != w.offset || !(o.view.stride == w.stride) || !(o.view.shape == w.shape)) return false;
  }
  return true;
}

// Whether an elementwise instruction writes a base with a first axis of one
// length and another elementwise instruction writes or reads it with a
// first axis of another: without such a pair nothing can split, and the
// pass returns before building its maps (a flush's hot path: a loop of
// whole-array updates pays a sort of its writes and a binary search per
// read, not a hash per operand).
bool may_split(const std::vector<Instruction>& batch) {
  // The writes' (base, first-axis length), sorted; then every read looked up
  // in them (reads are three times as many: not sorted).
  std::vector<std::pair<BaseId, int64_t>> writes;
  for (const Instruction& in : batch) {
    if (opcode_kind(in.op) == OpKind::Elementwise && in.out.rank() >= 1)
      writes.emplace_back(in.out.base, in.out.shape[0]);
  }
  if (writes.empty()) return false;
  std::sort(writes.begin(), writes.end());
  for (std::size_t i = 1; i < writes.size(); ++i) {
    if (writes[i].first == writes[i - 1].first && writes[i].second != writes[i - 1].second) return true;
  }
  // Each base's writes now share one length: a read of another length splits.
  for (const Instruction& in : batch) {
    if (opcode_kind(in.op) != OpKind::Elementwise || in.out.rank() < 1) continue;
    for (int k = 0; k < in.nin; ++k) {
      const Operand& o = in.in[k];
      if (o.is_const || o.view.rank() < 1) continue;
      const auto it = std::lower_bound(writes.begin(), writes.end(), std::make_pair(o.view.base, INT64_MIN));
      if (it != writes.end() && it->first == o.view.base && it->second != o.view.shape[0]) return true;
    }
  }
  return false;
}

// The reader rule (box_split.hpp): per instruction, the rows [a, b) of its
// output at which it splits because it reads a view whose base the previous
// instruction touching it wrote only rows [a, b) of; else (0, 0).
std::vector<std::pair<int64_t, int64_t>> reader_boxes(const std::vector<Instruction>& batch,
                                                      const BaseMap<uint8_t>& freed) {
  std::vector<std::pair<int64_t, int64_t>> box(batch.size(), {0, 0});
  BaseMap<uint32_t> last;  // base -> the last instruction so far touching it
  for (std::size_t i = 0; i < batch.size(); ++i) {
    const Instruction& in = batch[i];
    // (Not into a temporary the batch frees: a fuser free to run its piece
    // outside the box early allocates the whole temporary early, one per
    // loop step; finite_volume of the corpus held 29 steps' 8 MB
    // temporaries at once, a 952 MB peak: fusion/README.md.)
    if (splittable(in, &freed) && !freed.contains(in.out.base)) {
      for (int k = 0; k < in.nin && box[i].second <= box[i].first; ++k) {
        const Operand& o = in.in[k];
        if (o.is_const || o.view.base == in.out.base) continue;
        const uint32_t* p = last.find(o.view.base);
        if (p == nullptr) continue;
        const Instruction& w = batch[*p];
        int64_t a = 0, b = 0;
        if (opcode_kind(w.op) == OpKind::Elementwise && w.length_class < 0 && w.out.base == o.view.base &&
            o.view.shape == in.out.shape && box_of(w.out, o.view, &a, &b))
          box[i] = {a, b};
      }
    }
    last[in.out.base] = static_cast<uint32_t>(i);
    for (int k = 0; k < in.nin; ++k) {
      if (!in.in[k].is_const) last[in.in[k].view.base] = static_cast<uint32_t>(i);
    }
  }
  return box;
}

}  // namespace

std::size_t split_boxes(std::vector<Instruction>& batch, std::vector<uint64_t>& origin,
                        const std::function<BaseId(DType, int64_t)>& new_temp) {
  if (!may_split(batch)) return 0;
  // Decided from the last instruction back, so that an update followed by
  // a split one splits at the same box. box[i]: the first piece's rows of
  // instruction i when it splits (b > a), else (0, 0).
  std::vector<std::pair<int64_t, int64_t>> box(batch.size(), {0, 0});
  BaseMap<uint32_t> next_user;  // base -> the next instruction touching it
  std::unordered_map<BaseId, Renamed> renamed;
  std::size_t splits = 0;
  BaseMap<uint8_t> freed;
  for (const Instruction& in : batch) {
    if (in.op == Opcode::Free) freed[in.out.base] = 1;
  }
  std::optional<BatchUsers> users;  // only if a split needs it
  const std::vector<std::pair<int64_t, int64_t>> read_box = reader_boxes(batch, freed);
  for (std::size_t i = batch.size(); i-- > 0;) {
    const Instruction& in = batch[i];
    const bool decided = box[i].second > box[i].first;  // a producer its reader split
    if (!decided && splittable(in, nullptr)) {
      if (const uint32_t* nu = next_user.find(in.out.base)) {
        const uint32_t next = *nu;
        const Instruction& j = batch[next];
        // What the next user writes first: its box piece if it splits.
        const View x =
            box[next].second > box[next].first ? rows(j.out, box[next].first, box[next].second) : j.out;
        int64_t a = 0, b = 0;
        bool ok = opcode_kind(j.op) == OpKind::Elementwise && j.length_class < 0 && box_of(x, in.out, &a, &b);
        // Its temporaries: renamed per piece, or it stays whole.
        std::vector<BaseId> temps;
        for (int k = 0; ok && k < in.nin; ++k) {
          const Operand& o = in.in[k];
          if (o.is_const || o.view.base == in.out.base || !freed.contains(o.view.base)) continue;
          if (!users) users.emplace(batch);
          ok = renamable(batch, users->at(o.view.base), static_cast<uint32_t>(i), o.view.base, freed);
          if (std::find(temps.begin(), temps.end(), o.view.base) == temps.end()) temps.push_back(o.view.base);
        }
        if (ok) {
          box[i] = {a, b};
          ++splits;
          for (BaseId t : temps) {
            const uint32_t p = users->at(t)[0];
            box[p] = {a, b};
            ++splits;
            renamed[t].producer = p;
          }
        }
      }
      if (box[i].second <= box[i].first && read_box[i].second > read_box[i].first) {
        box[i] = read_box[i];
        ++splits;
      }
    }
    next_user[in.out.base] = static_cast<uint32_t>(i);  // free and sync carry their base here too
    for (int k = 0; k < in.nin; ++k) {
      if (!in.in[k].is_const) next_user[in.in[k].view.base] = static_cast<uint32_t>(i);
    }
  }
  if (splits == 0) return 0;
  // The pieces of a split over n rows: its box first, then the rows before and after.
  auto ranges = [](int64_t a, int64_t b, int64_t n) {
    std::vector<std::pair<int64_t, int64_t>> r{{a, b}};
    if (a > 0) r.emplace_back(0, a);
    if (b < n) r.emplace_back(b, n);
    return r;
  };
  for (std::size_t i = 0; i < batch.size(); ++i) {  // (in batch order: the same bases every run)
    const Instruction& p = batch[i];
    const auto it = renamed.find(p.out.base);
    if (it == renamed.end() || it->second.producer != i) continue;
    const auto [a, b] = box[i];
    for (const auto& [lo, hi] : ranges(a, b, p.out.shape[0])) {
      it->second.sizes.push_back(rows(p.out, lo, hi).nelem());
      it->second.pieces.push_back(new_temp(p.out.dtype, it->second.sizes.back()));
    }
  }
  // A renamed temporary's piece q as a view: fresh, row-major, the piece's shape.
  auto fresh = [&](const View& v, int64_t lo, int64_t hi, std::size_t q) {
    const View r = rows(v, lo, hi);
    return contiguous_view(renamed.at(v.base).pieces[q], v.dtype, r.shape);
  };
  std::vector<Instruction> next = take_spare_batch(batch.size() + 3 * splits);
  std::vector<uint64_t> next_origin;
  next_origin.reserve(next.capacity());
  for (std::size_t i = 0; i < batch.size(); ++i) {
    const auto [a, b] = box[i];
    const Instruction& in = batch[i];
    if (in.op == Opcode::Free && renamed.count(in.out.base) != 0) {
      // The temporary's own free stays (the backend forgets the base, never
      // written now), then its pieces'.
      next.push_back(in);
      next_origin.push_back(origin[i]);
      const Renamed& ren = renamed.at(in.out.base);
      for (std::size_t q = 0; q < ren.pieces.size(); ++q) {
        Instruction fr = in;
        fr.out = contiguous_view(ren.pieces[q], in.out.dtype, Dims{ren.sizes[q]});
        next.push_back(fr);
        next_origin.push_back(origin[i]);
      }
      continue;
    }
    if (b <= a) {
      next.push_back(std::move(batch[i]));
      next_origin.push_back(origin[i]);
      continue;
    }
    const auto pieces = ranges(a, b, in.out.shape[0]);
    for (std::size_t q = 0; q < pieces.size(); ++q) {
      const auto [lo, hi] = pieces[q];
      Instruction p = piece(in, lo, hi);
      if (renamed.count(in.out.base) != 0) p.out = fresh(in.out, lo, hi, q);
      for (int k = 0; k < p.nin; ++k) {
        if (!p.in[k].is_const && renamed.count(in.in[k].view.base) != 0)
          p.in[k].view = fresh(in.in[k].view, lo, hi, q);
      }
      next.push_back(p);
      next_origin.push_back(origin[i]);
    }
  }
  replace_batch(batch, std::move(next));
  origin = std::move(next_origin);
  return splits;
}

uint64_t run_split_boxes(RewriteBatch& batch, RewriteContext& ctx) {
  return split_boxes(batch.instrs, batch.origin, ctx.new_temp);
}

}  // namespace arrvm
