// Gathers pull their producers in (rewrite/gather_pull.hpp).
#include "rewrite/gather_pull.hpp"

#include <unordered_map>
#include <utility>

#include "rewrite/batch_users.hpp"
#include "rewrite/pass.hpp"

namespace arrvm {
namespace {

// How gather `j`'s producer can be pulled in.
enum class Pull { None, Elementwise, Gather, Reduce };

// Whether no instruction in (p, j) writes a base that f (batch[p]) reads.
bool inputs_kept(const std::vector<Instruction>& batch, std::size_t p, std::size_t j) {
  const Instruction& f = batch[p];
  for (int i = 0; i < f.nin; ++i) {
    if (f.in[i].is_const) continue;
    for (std::size_t q = p + 1; q < j; ++q) {
      if (writes_base(batch[q], f.in[i].view.base)) return false;
    }
  }
  return true;
}

// The producer of gather `j`'s source that can be pulled in, and how; -1
// for none. In every case t, the source's base, is touched by exactly its
// producer f, this gather and a free, in that order; f's inputs are not
// written between f and the gather; and the traversal-order rule's cost
// (header) says it pays. Elementwise: f wrote the gather's source view
// from views of its shape (flat position x of the source is f of flat
// position x of each input). Gather: f is a gather_clip (it cannot fail
// on an element the composition skips) from a non-empty source that
// wrote exactly the gather's source view. Reduce: f reduces the last axis
// (of length > 0) of a view of rank >= 2 into exactly the gather's source
// view, and the gather is a gather_clip.
std::pair<int, Pull> pullable(const std::vector<Instruction>& batch, std::size_t j, const BatchUsers& users) {
  constexpr std::pair<int, Pull> none{-1, Pull::None};
  const Instruction& g = batch[j];
  if (g.length_class >= 0) return none;
  const BaseId t = g.in[0].view.base;
  const std::span<const uint32_t> u = users.at(t);
  if (u.size() != 3 || u[1] != j || batch[u[2]].op != Opcode::Free) return none;
  const uint32_t p = u[0];
  const Instruction& f = batch[p];
  if (f.length_class >= 0 || !writes_base(f, t) || !same_elements(f.out, g.in[0].view)) return none;
  for (int i = 0; i < f.nin; ++i) {
    if (!f.in[i].is_const && f.in[i].view.base == t) return none;
  }
  if (!inputs_kept(batch, p, j)) return none;
  const int64_t n_idx = g.out.nelem(), n_t = f.out.nelem();
  const int64_t s = static_cast<int64_t>(dtype_size(g.out.dtype));
  switch (opcode_kind(f.op)) {
    case OpKind::Elementwise: {
      int64_t k = 0;
      for (int i = 0; i < f.nin; ++i) {
        if (f.in[i].is_const) continue;
        ++k;
        if (f.in[i].view.shape != f.out.shape) return none;
      }
      if (k * n_idx > (k + 1) * n_t + n_idx) return none;
      return {static_cast<int>(p), Pull::Elementwise};
    }
    case OpKind::Gather: {
      // Bytes: the index and f's indices at n_idx, its source at n_idx,
      // against f's indices, source and t at n_t and t at n_idx.
      // (The composed gather reads f's source where it writes the output:
      // not into that base, which NumPy's overlap rule would have copied.)
      if (f.op != Opcode::GatherClip || f.in[0].view.nelem() == 0 || g.out.base == f.in[0].view.base)
        return none;
      if ((8 + s) * n_idx > (8 + 2 * s) * n_t) return none;
      return {static_cast<int>(p), Pull::Gather};
    }
    case OpKind::Reduce: {
      const View& x = f.in[0].view;
      if (g.op != Opcode::GatherClip || x.rank() < 2 || f.axis != x.rank() - 1 || x.shape[f.axis] == 0 ||
          g.out.rank() >= kMaxRank || n_t == 0)
        return none;
      if (n_idx > n_t) return none;  // (each gathered row is reduced again: fewer rows than t has)
      return {static_cast<int>(p), Pull::Reduce};
    }
    default:
      return none;
  }
}

Instruction make(Opcode op, const View& out, std::initializer_list<Operand> ins) {
  Instruction in;
  in.op = op;
  in.out = out;
  for (const Operand& o : ins) in.add_input(o);
  return in;
}

// The gathers of f's view inputs at the index, then f at the gathered
// positions into the gather's output.
void pull_elementwise(const Instruction& f, const Instruction& g, Replacement* r) {
  const View& idx = g.in[1].view;
  Instruction pulled_f = f;
  pulled_f.out = g.out;
  for (int i = 0; i < f.nin; ++i) {
    if (f.in[i].is_const) continue;
    const View& src = f.in[i].view;
    const View tk = r->temp(src.dtype, idx.shape);
    r->instrs.push_back(make(g.op, tk, {Operand::of(src), Operand::of(idx)}));  // (its mode)
    pulled_f.in[i] = Operand::of(contiguous_view(tk.base, src.dtype, g.out.shape));
  }
  r->instrs.push_back(pulled_f);
}

// A gather of f = gather_clip(xs, is): f's indices gathered at the index
// (the gather's own check, against |is| = |t|), then xs at those.
void pull_gather(const Instruction& f, const Instruction& g, Replacement* r) {
  const View& idx = g.in[1].view;
  const View composed = r->temp(DType::Int64, idx.shape);
  r->instrs.push_back(make(g.op, composed, {Operand::of(f.in[1].view), Operand::of(idx)}));
  r->instrs.push_back(make(Opcode::GatherClip, g.out, {Operand::of(f.in[0].view), Operand::of(composed)}));
}

// A gather_clip of t = reduce(x, last axis) (x's rows of length n, m of
// them): the rows the index names gathered from x whole and reduced,
// positions clip(idx, 0, m - 1) * n + j over the index's shape and n.
void pull_reduce(const Instruction& f, const Instruction& g, Replacement* r) {
  const View& x = f.in[0].view;
  const View& idx = g.in[1].view;
  const int64_t n = x.shape[f.axis], m = f.out.nelem();
  Dims rows = idx.shape;
  rows.push_back(n);
  View idx_b = idx;  // the index broadcast along the new axis
  idx_b.shape.push_back(n);
  idx_b.stride.push_back(0);
  auto c = [](int64_t v) { return Operand::of(Scalar::of_int(DType::Int64, v)); };
  const View q = r->temp(DType::Int64, rows), pos = r->temp(DType::Int64, rows);
  r->instrs.push_back(make(Opcode::Range, q, {}));
  r->instrs.push_back(make(Opcode::Mod, q, {Operand::of(q), c(n)}));
  r->instrs.push_back(make(Opcode::Maximum, pos, {Operand::of(idx_b), c(0)}));
  r->instrs.push_back(make(Opcode::Minimum, pos, {Operand::of(pos), c(m - 1)}));
  r->instrs.push_back(make(Opcode::Multiply, pos, {Operand::of(pos), c(n)}));
  r->instrs.push_back(make(Opcode::Add, pos, {Operand::of(pos), Operand::of(q)}));
  const View picked = r->temp(x.dtype, rows);
  r->instrs.push_back(make(Opcode::GatherClip, picked, {Operand::of(x), Operand::of(pos)}));
  Instruction reduced = f;
  reduced.out = g.out;
  reduced.in[0] = Operand::of(picked);
  reduced.axis = rows.size() - 1;
  r->instrs.push_back(reduced);
}

}  // namespace

View Replacement::temp(DType dtype, const Dims& shape) {
  const BaseId b = new_temp(dtype, shape.product());
  temps.emplace_back(b, dtype, shape.product());
  return contiguous_view(b, dtype, shape);
}

std::size_t pull_gathers(std::vector<Instruction>& batch, std::vector<uint64_t>& origin,
                         const std::function<BaseId(DType, int64_t)>& new_temp) {
  std::size_t pulled = 0;
  for (bool again = true; again;) {
    again = false;
    const BatchUsers users(batch);  // (again after each rewrite, which is rare)
    for (std::size_t j = 0; j < batch.size(); ++j) {
      if (opcode_kind(batch[j].op) != OpKind::Gather) continue;
      const auto [p, how] = pullable(batch, j, users);
      if (p < 0) continue;
      const Instruction f = batch[p], g = batch[j];
      Replacement r{new_temp, {}, {}};
      if (how == Pull::Elementwise) pull_elementwise(f, g, &r);
      if (how == Pull::Gather) pull_gather(f, g, &r);
      if (how == Pull::Reduce) pull_reduce(f, g, &r);
      std::vector<Instruction>& repl = r.instrs;
      for (const auto& [tk, dtype, n] : r.temps) {
        Instruction fr;
        fr.op = Opcode::Free;
        fr.out = contiguous_view(tk, dtype, Dims{n});  // (as validation writes a free)
        repl.push_back(fr);
      }
      // Frees of f's inputs between f and the gather move after the
      // replacement, which now reads them (a free may always come later).
      std::vector<std::pair<Instruction, uint64_t>> moved;
      for (std::size_t q = j - 1; q > static_cast<std::size_t>(p); --q) {
        if (batch[q].op != Opcode::Free) continue;
        bool input = false;
        for (int i = 0; i < f.nin; ++i)
          input = input || (!f.in[i].is_const && f.in[i].view.base == batch[q].out.base);
        if (!input) continue;
        moved.emplace_back(batch[q], origin[q]);
        batch.erase(batch.begin() + static_cast<std::ptrdiff_t>(q));
        origin.erase(origin.begin() + static_cast<std::ptrdiff_t>(q));
        --j;
      }
      // The gather's place takes the replacement (with the gather's stream
      // position, whose index errors it raises); the producer goes.
      const uint64_t at = origin[j];
      batch.erase(batch.begin() + static_cast<std::ptrdiff_t>(j));
      origin.erase(origin.begin() + static_cast<std::ptrdiff_t>(j));
      std::vector<uint64_t> repl_origin(repl.size(), at);
      for (auto it = moved.rbegin(); it != moved.rend(); ++it) {
        repl.push_back(it->first);
        repl_origin.push_back(it->second);
      }
      batch.insert(batch.begin() + static_cast<std::ptrdiff_t>(j), repl.begin(), repl.end());
      origin.insert(origin.begin() + static_cast<std::ptrdiff_t>(j), repl_origin.begin(), repl_origin.end());
      batch.erase(batch.begin() + p);
      origin.erase(origin.begin() + p);
      ++pulled;
      again = true;
      break;
    }
  }
  return pulled;
}

uint64_t run_pull_gathers(RewriteBatch& batch, RewriteContext& ctx) {
  const bool gathers = std::any_of(batch.instrs.begin(), batch.instrs.end(), [](const Instruction& in) {
    return opcode_kind(in.op) == OpKind::Gather;
  });
  return gathers ? pull_gathers(batch.instrs, batch.origin, ctx.new_temp) : 0;
}

}  // namespace arrvm
