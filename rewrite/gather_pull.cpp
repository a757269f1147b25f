// Gathers pull their producers in (rewrite/gather_pull.hpp).
#include "rewrite/gather_pull.hpp"

#include <unordered_map>
#include <utility>

#include "rewrite/batch_users.hpp"
#include "rewrite/pass.hpp"

namespace arrvm {
namespace {

// The producer of gather `j`'s source that can be pulled in, or -1: t, the
// source's base, is touched by exactly its producer f, this gather and a
// free, in that order; f is elementwise and wrote the gather's source view
// from views of its shape (so flat position x of the source is f of flat
// position x of each input); f's inputs are not written between f and the
// gather; and the traversal-order rule's cost (header) says it pays.
int pullable(const std::vector<Instruction>& batch, std::size_t j, const BatchUsers& users) {
  const Instruction& g = batch[j];
  if (g.length_class >= 0) return -1;
  const BaseId t = g.in[0].view.base;
  const std::span<const uint32_t> u = users.at(t);
  if (u.size() != 3 || u[1] != j || batch[u[2]].op != Opcode::Free) return -1;
  const uint32_t p = u[0];
  const Instruction& f = batch[p];
  if (opcode_kind(f.op) != OpKind::Elementwise || f.length_class >= 0 || !writes_base(f, t)) return -1;
  if (!same_elements(f.out, g.in[0].view)) return -1;
  int64_t k = 0;
  for (int i = 0; i < f.nin; ++i) {
    if (f.in[i].is_const) continue;
    ++k;
    if (f.in[i].view.shape != f.out.shape || f.in[i].view.base == t) return -1;
    for (std::size_t q = p + 1; q < j; ++q) {
      if (writes_base(batch[q], f.in[i].view.base)) return -1;
    }
  }
  const int64_t n_idx = g.out.nelem(), n_t = f.out.nelem();
  if (k * n_idx > (k + 1) * n_t + n_idx) return -1;
  return static_cast<int>(p);
}

}  // namespace

std::size_t pull_gathers(std::vector<Instruction>& batch, std::vector<uint64_t>& origin,
                         const std::function<BaseId(DType, int64_t)>& new_temp) {
  std::size_t pulled = 0;
  for (bool again = true; again;) {
    again = false;
    const BatchUsers users(batch);  // (again after each rewrite, which is rare)
    for (std::size_t j = 0; j < batch.size(); ++j) {
      if (batch[j].op != Opcode::Gather) continue;
      const int p = pullable(batch, j, users);
      if (p < 0) continue;
      const Instruction f = batch[p], g = batch[j];
      const View& idx = g.in[1].view;
      std::vector<Instruction> repl;
      std::vector<std::pair<BaseId, DType>> temps;
      Instruction pulled_f = f;
      pulled_f.out = g.out;
      for (int i = 0; i < f.nin; ++i) {
        if (f.in[i].is_const) continue;
        const View& src = f.in[i].view;
        const BaseId tk = new_temp(src.dtype, idx.nelem());
        temps.emplace_back(tk, src.dtype);
        Instruction gk;
        gk.op = Opcode::Gather;
        gk.out = contiguous_view(tk, src.dtype, idx.shape);
        gk.add_input(Operand::of(src));
        gk.add_input(Operand::of(idx));
        repl.push_back(gk);
        pulled_f.in[i] = Operand::of(contiguous_view(tk, src.dtype, g.out.shape));
      }
      repl.push_back(pulled_f);
      for (const auto& [tk, dtype] : temps) {
        Instruction fr;
        fr.op = Opcode::Free;
        fr.out = contiguous_view(tk, dtype, Dims{idx.nelem()});  // (as validation writes a free)
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
      // The gather's place takes the replacement; the producer goes.
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
  const bool gathers = std::any_of(batch.instrs.begin(), batch.instrs.end(),
                                   [](const Instruction& in) { return in.op == Opcode::Gather; });
  return gathers ? pull_gathers(batch.instrs, batch.origin, ctx.new_temp) : 0;
}

}  // namespace arrvm
