// ilp with length classes (rule 9, the transducer rule; seed 003 §3.6 and
// §4's "no more fused than" constraints). A pair of units that may share a
// block only together with the compresses of their length classes is a
// pair of the MIP like any other (BlockSet::fusible_but_filters); what
// keeps every solution legal:
//   - pair variables y[v, C] between every unit v and every unit C holding
//     a compress that v may share a block with, whatever their saving;
//   - for a pair (a, b) whose union lacks compresses c (lacking_compresses):
//     y[a, b] <= y[a, C(c)] and y[a, b] <= y[b, C(c)] (a pair that cannot
//     have them is fixed to 0);
//   - lazily, for a block K of an integral solution that still lacks a
//     compress c (pairwise rows miss a class reached through a third unit):
//     sum(links in K) - (|links| - 1) <= sum_{v in K} y[v, C(c)].
// Each is valid for "y = same block" of every legal partition (a block
// holding K holds c; and if no unit of K may share a block with C(c), no
// legal block holds K), so a MIP optimum is still a lower bound, and a
// solution with no violated row is legal: the ilp proves batches with
// filters as it proves the others (fusion/ilp.hpp).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "fusion/block_set.hpp"

namespace arrvm::fusion::ilp {

// The compresses (instruction indices) a block whose members have these
// domains and hold these compresses (both sorted; BlockSummary::domains,
// filters) lacks to be closed: every domain on the paths from its domains
// up to their lowest common ancestor in the tree of length classes (a
// compress's own domain is the class it iterates over), that ancestor (the
// block's top) excepted. Empty: the block is closed.
std::vector<uint32_t> lacking_compresses(const Graph& g, const std::vector<uint32_t>& domains,
                                         const std::vector<uint32_t>& filters);

// The same for the union of blocks `ids` of `units`.
std::vector<uint32_t> lacking_compresses(const BlockSet& units, std::span<const uint32_t> ids);

}  // namespace arrvm::fusion::ilp
