// Gathers pull their producers in (engine/gather_pull.hpp).
#include "engine/gather_pull.hpp"

#include <utility>

namespace arrvm {
namespace {

bool writes_base(const Instruction& in, BaseId base) {
  return !is_control(in.op) && in.out.base == base;
}

bool touches_base(const Instruction& in, BaseId base) {
  if (in.out.base == base) return true;  // free and sync carry their base here too
  for (int k = 0; k < in.nin; ++k) {
    if (!in.in[k].is_const && in.in[k].view.base == base) return true;
  }
  return false;
}

// A whole base in row-major order: flat position i of the view is element
// i of the base (what a gather of it indexes).
bool whole_contiguous(const View& v, int64_t base_nelem) {
  return v.offset == 0 && v.nelem() == base_nelem && v.stride == row_major_strides(v.shape);
}

// The producer of gather `j`'s source that can be pulled in, or -1.
int pullable(const std::vector<Instruction>& batch, std::size_t j) {
  const Instruction& g = batch[j];
  if (g.length_class >= 0) return -1;
  const BaseId t = g.in[0].view.base;
  // The producer: the last instruction before j touching t, an elementwise
  // op writing all of t (the source view) from views of its own shape.
  int p = -1;
  for (int i = static_cast<int>(j) - 1; i >= 0; --i) {
    if (touches_base(batch[i], t)) {
      p = i;
      break;
    }
  }
  if (p < 0) return -1;
  const Instruction& f = batch[p];
  if (opcode_kind(f.op) != OpKind::Elementwise || f.length_class >= 0 || !writes_base(f, t)) return -1;
  if (!same_elements(f.out, g.in[0].view) || !whole_contiguous(f.out, f.out.nelem())) return -1;
  // ... and f is the first instruction of the batch to touch t (t is all new).
  for (int i = 0; i < p; ++i) {
    if (touches_base(batch[i], t)) return -1;
  }
  int64_t k = 0;
  for (int i = 0; i < f.nin; ++i) {
    if (f.in[i].is_const) continue;
    ++k;
    if (f.in[i].view.shape != f.out.shape || f.in[i].view.base == t) return -1;
    // Its inputs keep their values until the gather reads them.
    for (std::size_t q = static_cast<std::size_t>(p) + 1; q < j; ++q) {
      if (writes_base(batch[q], f.in[i].view.base)) return -1;
    }
  }
  // t: read by this gather alone, then freed (not synced) in the batch.
  bool freed = false;
  for (std::size_t q = j + 1; q < batch.size() && !freed; ++q) {
    if (!touches_base(batch[q], t)) continue;
    if (batch[q].op != Opcode::Free) return -1;
    freed = true;
  }
  for (std::size_t q = static_cast<std::size_t>(p) + 1; q < j; ++q) {
    if (touches_base(batch[q], t)) return -1;
  }
  if (!freed) return -1;
  // The traversal-order rule's cost (header).
  const int64_t n_idx = g.out.nelem(), n_t = f.out.nelem();
  if (k * n_idx > (k + 1) * n_t + n_idx) return -1;
  return p;
}

}  // namespace

std::size_t pull_gathers(std::vector<Instruction>& batch, std::vector<uint64_t>& origin,
                         const std::function<BaseId(DType, int64_t)>& new_temp) {
  std::size_t pulled = 0;
  for (bool again = true; again;) {
    again = false;
    for (std::size_t j = 0; j < batch.size(); ++j) {
      if (batch[j].op != Opcode::Gather) continue;
      const int p = pullable(batch, j);
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

}  // namespace arrvm
