// Frees right after their base's last use (rewrite/free_hoist.hpp).
#include "rewrite/free_hoist.hpp"

#include <algorithm>
#include <utility>

#include "rewrite/batch_users.hpp"
#include "rewrite/pass.hpp"

namespace arrvm {
namespace {

constexpr uint32_t kNone = UINT32_MAX;
// Instructions a free looks back over for its base's last use (a loop's
// late free is a statement back; a move shifts what it crosses).
constexpr uint32_t kWindow = 32;

bool uses(const Instruction& in, BaseId b) {
  return in.op != Opcode::Free && (touches_base(in, b) || in.length_class == b);
}

}  // namespace

std::size_t hoist_frees(std::vector<Instruction>& batch, std::vector<uint64_t>& origin,
                        std::vector<uint64_t>* keys) {
  const uint32_t n = static_cast<uint32_t>(batch.size());
  // (the moved frees: (the position each goes behind, its own))
  thread_local std::vector<std::pair<uint32_t, uint32_t>> moves;
  moves.clear();
  uint32_t latest = kNone;  // the latest instruction that is not a free
  for (uint32_t i = 0; i < n; ++i) {
    const Instruction& in = batch[i];
    if (in.op != Opcode::Free) {
      latest = i;
      continue;
    }
    const BaseId b = in.out.base;
    if (latest == kNone || uses(batch[latest], b)) continue;  // (already there, frees aside)
    uint32_t t = kNone;
    const uint32_t stop = latest >= kWindow ? latest + 1 - kWindow : 0;  // (positions stop..latest)
    for (uint32_t j = latest; j > stop && t == kNone; --j) {
      if (uses(batch[j - 1], b)) t = j - 1;
    }
    if (t != kNone) moves.emplace_back(t, i);  // (else not touched in the window: stays)
  }
  if (moves.empty()) return 0;
  // Each instruction in place, each moved free right after its target (in
  // their order when several go there). In place, back to front: an
  // instruction moves (once) only if a moved free crosses it; the write
  // position never falls behind the read one (w - i counts the frees taken
  // out and not yet put back), so nothing is overwritten unread.
  const bool with_keys = keys != nullptr && keys->size() == n;
  struct Taken {
    Instruction in;
    uint64_t origin, key;
  };
  thread_local std::vector<uint32_t> gone;  // the moved frees' positions, ascending (as found)
  thread_local std::vector<Taken> frees;    // the moved frees, in the order they are put back
  gone.clear();
  frees.clear();
  for (const auto& mv : moves) gone.push_back(mv.second);
  std::stable_sort(moves.begin(), moves.end(),
                   [](const auto& x, const auto& y) { return x.first < y.first; });
  for (const auto& mv : moves) {
    frees.push_back({batch[mv.second], origin[mv.second], with_keys ? (*keys)[mv.second] : 0});
  }
  std::size_t w = n, g = gone.size(), m = moves.size();
  auto put = [&](std::size_t to, Instruction&& in, uint64_t org, uint64_t key) {
    batch[to] = std::move(in);
    origin[to] = org;
    if (with_keys) (*keys)[to] = key;
  };
  for (std::size_t i = n; i-- > 0;) {
    if (g > 0 && gone[g - 1] == i) {
      --g;
      continue;
    }
    while (m > 0 && moves[m - 1].first == i) {
      --m;
      put(--w, std::move(frees[m].in), frees[m].origin, frees[m].key);
    }
    if (--w != i) put(w, std::move(batch[i]), origin[i], with_keys ? (*keys)[i] : 0);
  }
  return moves.size();
}

uint64_t run_early_frees(RewriteBatch& batch, RewriteContext&) {
  return hoist_frees(batch.instrs, batch.origin, &batch.keys);
}

}  // namespace arrvm
