// Gathers pull their producers in: the pull-gathers pass (fusion/README.md,
// the traversal order of a gather). Rule: a gather of a temporary only it
// reads evaluates the temporary's elementwise producer at the gathered
// positions. `t = f(a, b); g = gather(t, idx); free t`,
// where the elementwise `f` writes the gather's source view from views of
// its shape and t's base is touched by f, that gather and its free alone,
// becomes `a' = gather(a, idx); b' = gather(b, idx);
// g = f(a', b'); free a', b'`: f is evaluated at the gathered positions, in
// the gather's order, instead of everywhere into a stored t. Every fuser then
// puts the gathers of a and b, f and the consumers of g in one block (one
// iteration shape: the index's), and a' and b' are contracted. Repeated to a
// fixpoint, so a chain of producers is pulled in whole.
// When (the traversal-order rule's cost, fusion/README.md): t must be stored
// for a gather (a gather reads anywhere in its source), so the pass pays
// when reading f's k view inputs at |idx| gathered positions moves fewer
// bytes than computing t (k inputs of |t| elements read, t written) and
// gathering it: k·|idx| <= (k + 1)·|t| + |idx| (in elements of each
// operand's dtype size), i.e. unless the index gathers many more elements
// than t has (the producer would be recomputed for each).
// Exact: every value is the one the unrewritten batch computes (f is pure;
// its inputs' bases are not written between f and the gather); an index out
// of range is raised by the first pulled gather, with the original gather's
// stream position.
#pragma once

#include <cstdint>
#include <functional>
#include <tuple>
#include <vector>

#include "vm/instruction.hpp"

namespace arrvm {

// What replaces a producer and its gather: instructions, and the temporaries
// they use (each freed after them).
struct Replacement {
  std::function<BaseId(DType, int64_t)> new_temp;
  std::vector<Instruction> instrs;
  std::vector<std::tuple<BaseId, DType, int64_t>> temps;
  View temp(DType dtype, const Dims& shape);  // a new contiguous temporary of that shape
};

// Rewrites `batch` (validated; `origin` per instruction) in place; returns
// how many gathers pulled a producer in. `new_temp(dtype, nelem)` makes a
// base for a gathered input (freed in the batch by the pass).
std::size_t pull_gathers(std::vector<Instruction>& batch, std::vector<uint64_t>& origin,
                         const std::function<BaseId(DType, int64_t)>& new_temp);

}  // namespace arrvm
