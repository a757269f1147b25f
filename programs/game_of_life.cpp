// Conway's Game of Life (benchpress gameoflife): an n x n board, 20% alive at
// random, inside a dead border of one cell, for `iterations` generations.
// The board is float64, as in the NumPy original. Checksum: the live cells
// at the end.
#include "programs/common.hpp"

namespace arrvm::bench {

double game_of_life(const Vm& vm, const Size& size) {
  const int64_t n = size.n;
  const Array state = Array::zeros({n + 2, n + 2}, DType::Float64, vm);
  const Slice inner(1, -1), head({}, -2), tail(2, {});
  state(inner, inner) = Array::random_uniform({n, n}, 2, vm) < 0.2;

  Array cells = state(inner, inner);
  const Array ul = state(head, head), um = state(head, inner), ur = state(head, tail);
  const Array ml = state(inner, head), mr = state(inner, tail);
  const Array ll = state(tail, head), lm = state(tail, inner), lr = state(tail, tail);
  for (int64_t i = 0; i < size.iterations; ++i) {
    const Array neighbors = ul + um + ur + ml + mr + ll + lm + lr;
    const Array live = neighbors * cells;
    const Array stay = (live >= 2) & (live <= 3);
    const Array dead = neighbors * (cells == 0);
    const Array spawn = dead == 3;
    cells.assign(stay | spawn);  // cells[:] = stay | spawn
  }
  return state.sum().item<double>();
}

}  // namespace arrvm::bench
