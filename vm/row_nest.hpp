// Row nests: one block that runs as one loop nest over two iteration
// shapes, (m) and (m, ...): the rows' statements once per index of the
// outer axis, before that row's inner loops, as a hand-written loop
// computes Gauss elimination's factor `a[i, k] / a[k, k]` and then updates
// row i. The fusion engine makes them (fusion/row_nests.hpp) for backends
// whose FusionRules allow it, and the code generator lowers them (its
// lower_nest); both ask this file whether a block is one and whether it is
// legal.
//
// Legality. The rows' instructions X (elementwise over (m)) and the nest's
// Y (elementwise over (m, n1, ...)) run, for each row i (rows in any order,
// or in parallel): X at i, then Y at (i, *). Within X and within Y nothing
// changes: X's statements at index i run in X's order as in X's own loop,
// Y's at each (i, j...) in Y's. Against running all of X and then all of Y
// the nest changes only the order of accesses of X at one row and of Y at
// another, so it is equal when no access of X at one row conflicts (one of
// the two writes, the elements overlap) with an access of Y at another
// row; and within a row X must come first, so a conflicting pair must have
// its X instruction first in the batch. Rows run in parallel are
// independent for the same reason.
//
// A pair of views (x of X, y of Y) that may overlap, one written, passes
// when x has one element per row and y's elements of row i lie in a window
// that no other row's can reach: both step the same stride s != 0 from row
// to row, and x's element at row i and y's elements at row i all lie within
// fewer than |s| consecutive elements of the base. Rows i and i' then touch
// sets shifted by (i' - i) * s, a multiple of s, so they never meet.
// (Gauss: x = a[k+1:, k] read, y = a[k+1:, k:] written, s = n: the window
// is columns k..n-1 of one row, n - k < n elements.) With one row there is
// nothing to check.
//
// Only elementwise instructions of a fixed length (no generators, sweeps,
// indexing or length classes) and a non-empty nest: X's statements must run
// even where Y's inner extent is 0, and an empty nest launches nothing.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "vm/instruction.hpp"

namespace arrvm {

// Whether `block` (batch indices) has the shapes of a row nest: its
// instructions other than free and sync are elementwise of a fixed length,
// those of rank 1 all over one (m) and the others all over one non-empty
// (m, ...), at least one of each. Then `rows` gets the rank-1 ones and
// `rest` every other member (free and sync included), each in block order.
bool row_nest_split(std::span<const Instruction> batch, std::span<const uint32_t> block,
                    std::vector<uint32_t>* rows, std::vector<uint32_t>* rest);

// Whether rows X (over (m)) and nest Y (over (m, ...)), as row_nest_split
// gives them, may run as one nest (above): every conflicting pair stays in
// its row and has its X instruction first in the batch.
bool row_nest_legal(std::span<const Instruction> batch, std::span<const uint32_t> rows,
                    std::span<const uint32_t> rest);

}  // namespace arrvm
