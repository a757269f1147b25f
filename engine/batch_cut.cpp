#include "engine/batch_cut.hpp"

#include <array>
#include <cstdint>

namespace arrvm {

namespace {

// Base ids renamed by first appearance, for one window (at most 4 bases an
// instruction: a linear search is cheapest).
class Renamer {
 public:
  int id(BaseId b) {
    for (int i = 0; i < n_; ++i) {
      if (ids_[i] == b) return i;
    }
    if (n_ == static_cast<int>(ids_.size())) return -1;  // (never: the array holds a window's bases)
    ids_[n_] = b;
    return n_++;
  }

 private:
  std::array<BaseId, 4 * kCutWindow> ids_{};
  int n_ = 0;
};

// The same view up to its base's name and its offset: a loop that writes
// row t of a result at step t is at the same phase every step.
bool same_view(const View& a, const View& b, Renamer& ra, Renamer& rb) {
  return a.dtype == b.dtype && a.shape == b.shape && a.stride == b.stride && ra.id(a.base) == rb.id(b.base);
}

bool same_instruction(const Instruction& a, const Instruction& b, Renamer& ra, Renamer& rb) {
  if (a.op != b.op || a.nin != b.nin || a.axis != b.axis) return false;
  if (!same_view(a.out, b.out, ra, rb)) return false;
  for (int k = 0; k < a.nin; ++k) {
    const Operand& x = a.in[k];
    const Operand& y = b.in[k];
    if (x.is_const != y.is_const) return false;
    if (x.is_const ? x.constant.dtype != y.constant.dtype : !same_view(x.view, y.view, ra, rb)) return false;
  }
  return true;
}

}  // namespace

std::size_t periodic_cut(std::span<const Instruction> batch, std::size_t min_cut) {
  const std::size_t n = batch.size();
  if (n < 2 * kCutWindow) return 0;
  const std::size_t lo = min_cut > 0 ? min_cut : 1;
  for (std::size_t k = n - kCutWindow; k >= lo; --k) {
    // (The opcode first: most candidates fail there, with no renaming.)
    if (batch[k].op != batch[0].op) continue;
    Renamer r0, rk;
    std::size_t i = 0;
    while (i < kCutWindow && same_instruction(batch[i], batch[k + i], r0, rk)) ++i;
    if (i == kCutWindow) return k;
  }
  return 0;
}

}  // namespace arrvm
