// Frees right after their base's last use (rewrite/free_hoist.hpp).
#include "rewrite/free_hoist.hpp"

#include <algorithm>

#include "rewrite/pass.hpp"
#include "vm/base_map.hpp"

namespace arrvm {

std::size_t hoist_frees(std::vector<Instruction>& batch, std::vector<uint64_t>& origin,
                        std::vector<uint64_t>* keys) {
  const uint32_t n = static_cast<uint32_t>(batch.size());
  // target[i]: the position the instruction at i goes behind (itself for
  // all but a moved free).
  BaseMap<uint32_t> last;  // base -> 1 + position of its latest use so far
  std::vector<uint32_t> target(n);
  std::size_t moved = 0;
  uint32_t latest = 0;  // 1 + position of the latest instruction that is not a free
  auto use = [&](BaseId b, uint32_t i) {
    if (b >= 0) last[b] = i + 1;
  };
  for (uint32_t i = 0; i < n; ++i) {
    const Instruction& in = batch[i];
    target[i] = i;
    if (in.op == Opcode::Free) {
      const uint32_t* at = last.find(in.out.base);
      if (at == nullptr) continue;  // (not touched before it: stays)
      const uint32_t t = *at - 1;
      if (latest - 1 > t) {  // (past an instruction, not only past frees)
        target[i] = t;
        ++moved;
      }
      continue;
    }
    latest = i + 1;
    use(in.out.base, i);
    use(in.length_class, i);
    for (int k = 0; k < in.nin; ++k) {
      if (!in.in[k].is_const) use(in.in[k].view.base, i);
    }
  }
  if (moved == 0) return 0;
  // Stable: each instruction in place, each moved free right after its
  // target (after the frees moved there before it).
  std::vector<uint32_t> order(n);
  for (uint32_t i = 0; i < n; ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
    return target[a] != target[b] ? target[a] < target[b] : (target[a] == a) > (target[b] == b);
  });
  auto permute = [&](auto& v) {
    auto old = v;
    for (uint32_t i = 0; i < n; ++i) v[i] = old[order[i]];
  };
  permute(batch);
  permute(origin);
  if (keys != nullptr && keys->size() == n) permute(*keys);
  return moved;
}

uint64_t run_early_frees(RewriteBatch& batch, RewriteContext&) {
  return hoist_frees(batch.instrs, batch.origin, &batch.keys);
}

}  // namespace arrvm
