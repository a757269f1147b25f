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

// A row nest in the order a backend runs it: true if `block` is one
// (row_nest_split), with `order` its rows' members, then the rest.
bool row_nest_order(std::span<const Instruction> batch, std::span<const uint32_t> block,
                    std::vector<uint32_t>* order);

// Whether rows X (over (m)) and nest Y (over (m, ...)), as row_nest_split
// gives them, may run as one nest (above): every conflicting pair stays in
// its row and has its X instruction first in the batch.
bool row_nest_legal(std::span<const Instruction> batch, std::span<const uint32_t> rows,
                    std::span<const uint32_t> rest);

// ---- Row programs: reductions with their epilogues -------------------------
// A row program generalizes the nest to a sequence of *segments* per row:
// the block's instructions over (m, n) (elementwise, and reductions along
// axis 1 to (m)) and over (m) (elementwise), in block order, cut into
// segments wherever one instruction may not share a loop with the current
// segment. A row runs its segments in order: a segment over (m) once, a
// segment over (m, n) as one loop over n (its reductions accumulate there
// and give the row's value after it). NumPy's `s = x.sum(axis=1); y = x /
// s[:, None]` and softmax (max, then exp and sum, then divide) are one
// kernel each that reads a row from memory once and again from cache,
// where apart they are a pass over x per reduction and per epilogue.
//
// Segments. An instruction joins the current segment when it has its
// segment's shape and every pair of its accesses and the segment's that
// may overlap, one written, are the same elements (Def. 12), and neither
// is a reduction's output (complete only after the loop: rule 4);
// otherwise it starts the next segment. Within a segment that is ordinary
// fusion: a conflicting pair meets at one element, in one iteration.
//
// Legality across segments is the nest's (above), per pair of segments:
// within a row the segments run in block order, which is the batch's order,
// so running rows one after the other (or in parallel) differs from running
// each segment over all rows only in the order of accesses of different
// rows in different segments; it is equal when every conflicting pair of
// accesses in different segments stays in its row: both views step the
// same stride s != 0 from row to row and, at one row, lie within fewer than
// |s| consecutive elements of the base (a reduction's output and its reader
// `s[:, None]` are one element a row).
//
// Only fixed-length elementwise instructions over (m, n), or over (m) or
// (m, 1) (NumPy's keepdims: one element a row), and reductions along the
// last axis of a rank-2 (m, n) with m, n >= 1; at least one reduction and
// two segments (a block of one segment is an ordinary kernel).
struct RowProgram {
  int64_t m = 0, n = 0;
  std::vector<int> segment;  // per block member: its segment (-1: free or sync)
  std::vector<bool> row;     // per segment: over (m) or (m, 1) (once a row), else over (m, n)
  int segments() const { return static_cast<int>(row.size()); }
};

// Whether `block` has a row program's shapes; then `*p` gets its segments.
bool row_program(std::span<const Instruction> batch, std::span<const uint32_t> block, RowProgram* p);

// row_program but for the two segments: `block` may also be one segment (an
// ordinary kernel that a row program may still grow from).
bool row_program_shapes(std::span<const Instruction> batch, std::span<const uint32_t> block, RowProgram* p);

// Whether the row program `p` of `block` (row_program) may run as one
// loop nest (above).
bool row_program_legal(std::span<const Instruction> batch, std::span<const uint32_t> block,
                       const RowProgram& p);

}  // namespace arrvm
