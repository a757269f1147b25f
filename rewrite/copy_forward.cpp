// Copies read in place of their source (rewrite/copy_forward.hpp).
#include "rewrite/copy_forward.hpp"

#include <algorithm>
#include <span>

#include "rewrite/batch_users.hpp"
#include "rewrite/pass.hpp"

namespace arrvm {
namespace {

bool all_zero_strides(const View& v) {
  for (int d = 0; d < v.rank(); ++d) {
    if (v.stride[d] != 0) return false;
  }
  return true;
}

// A copy of one view into a fresh base that is its own layout.
bool is_candidate(const Instruction& in) {
  return in.op == Opcode::Identity && in.nin == 1 && !in.in[0].is_const && in.length_class < 0 &&
         in.in[0].view.base != in.out.base && in.in[0].view.dtype == in.out.dtype && in.out.offset == 0 &&
         in.out.stride == row_major_strides(in.out.shape);
}

}  // namespace

std::size_t forward_copies(std::vector<Instruction>& batch, std::vector<uint64_t>& origin) {
  if (std::none_of(batch.begin(), batch.end(), is_candidate)) return 0;
  const BatchUsers users(batch);
  std::vector<char> drop(batch.size(), 0);
  std::size_t forwarded = 0;
  for (uint32_t i = 0; i < batch.size(); ++i) {
    const Instruction& copy = batch[i];
    if (drop[i] || !is_candidate(copy)) continue;
    const BaseId t = copy.out.base;
    const View v = copy.in[0].view;
    const std::span<const uint32_t> tu = users.at(t);
    // T: created here whole, freed later in the batch (its size is its free's).
    if (tu.front() != i || tu.size() < 3) continue;
    const Instruction& free_t = batch[tu.back()];
    if (free_t.op != Opcode::Free || free_t.out.nelem() != copy.out.nelem()) continue;
    const bool one = copy.out.nelem() == 1;
    bool ok = true;
    for (std::size_t k = 1; k + 1 < tu.size() && ok; ++k) {
      const Instruction& r = batch[tu[k]];
      if (r.op == Opcode::Sync || r.op == Opcode::Free || drop[tu[k]] || r.out.base == t) {
        ok = false;
        break;
      }
      for (int q = 0; q < r.nin && ok; ++q) {
        const Operand& o = r.in[q];
        if (o.is_const || o.view.base != t) continue;
        ok = same_elements(o.view, copy.out) || (one && all_zero_strides(o.view));
      }
    }
    if (!ok) continue;
    const uint32_t last_read = tu[tu.size() - 2];
    // V's base: neither written nor freed from the copy to T's last read.
    for (uint32_t j : users.at(v.base)) {
      if (j <= i || j > last_read) continue;
      if (batch[j].op == Opcode::Free || writes_base(batch[j], v.base)) {
        ok = false;
        break;
      }
    }
    if (!ok) continue;
    for (std::size_t k = 1; k + 1 < tu.size(); ++k) {
      Instruction& r = batch[tu[k]];
      for (int q = 0; q < r.nin; ++q) {
        Operand& o = r.in[q];
        if (o.is_const || o.view.base != t) continue;
        if (same_elements(o.view, copy.out)) {
          o.view = v;
        } else {  // one element broadcast: V's element, zero strides
          View b = o.view;
          b.base = v.base;
          b.offset = v.offset;
          o.view = b;
        }
      }
    }
    drop[i] = 1;
    ++forwarded;
  }
  if (forwarded == 0) return 0;
  std::size_t w = 0;
  for (std::size_t i = 0; i < batch.size(); ++i) {
    if (drop[i]) continue;
    if (w != i) {
      batch[w] = std::move(batch[i]);
      origin[w] = origin[i];
    }
    ++w;
  }
  batch.resize(w);
  origin.resize(w);
  return forwarded;
}

uint64_t run_forward_copies(RewriteBatch& batch, RewriteContext&) {
  return forward_copies(batch.instrs, batch.origin);
}

}  // namespace arrvm
