// Stores forwarded to their readers, and dead stores dropped: the
// forward-stores pass (fusion/README.md, "Stores forwarded"). Rule:
// store-to-load forwarding over array regions, and dead-store elimination of
// what the forwarding leaves unread. A lattice update's bounce-back reads:
//
//   T[:] = F;  T[1:] *= BOUND              (T: the program's own array)
//   for q in 1..18: BB[OPP[q]] += T[q]
//
// T is written (18 planes) only for the eighteen plane reads that follow,
// and the next step's `T[:] = F` writes all of it again before anything
// else reads it: a pass that stores T and one that loads it back, for
// values that are dead after the loads. The pass computes each plane that
// is read from the chain's own inputs instead (`u = F[q]; u *= BOUND;
// BB[o] += u`, u a fresh temporary freed right after its reader, which a
// fuser contracts) and drops the chain. A chain that nothing reads before
// it is overwritten is dropped alone (a dead store: `T[0] = F[0]` there).
//
// When: a chain is an elementwise instruction P (not a generator, no
// length class) writing view W of base T, injective, from no view of T,
// then every later instruction touching T, in order, is one of
//   - (before any reader) an elementwise instruction that updates W in
//     place (writes W, reads T only through W): it joins the chain;
//   - an elementwise instruction that reads T through views that either
//     do not overlap W or are W's rows [a, b) or a plane W[j] of its first
//     axis (stride != 0), and writes no view overlapping W: a reader;
//   - an instruction whose views of T do not overlap W: passed over;
//   - an elementwise instruction that writes W and reads no view of T
//     overlapping W: the cover, which ends the walk;
// and anything else (a sync or free of T, another read or write of W, no
// cover in the batch, more than 16 instructions passed over: the pass's
// cost stays linear in the batch) leaves the chain alone. Nothing writes or frees a
// base that the chain reads (other than T) between P and its last reader,
// and no instruction is a member or reader of two chains.
//
// Legal: (1) every element of W that a reader reads is computed by the
// chain's instructions from the same input elements (restricted to the
// rows or plane read: elementwise instructions compute each element from
// the elements at the same index), which hold the same values at the
// reader as at the chain, since nothing writes them in between; (2) no
// other instruction reads W between the chain and the cover, and the cover
// writes every element of W without reading any, so the values the chain
// stored are never observed: dropping it changes nothing a program can
// see. A cover may itself be a member of a later chain that is dropped:
// the walk of that chain then guarantees the same up to its own cover.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

#include "vm/instruction.hpp"

namespace arrvm {

// Rewrites `batch` (validated; `origin` parallel to it) in place; returns
// how many instructions were dropped (chains' members). `new_temp(dtype,
// nelem)` makes a base for a forwarded read's temporary (freed in the
// batch by the pass).
std::size_t forward_stores(std::vector<Instruction>& batch, std::vector<uint64_t>& origin,
                           const std::function<BaseId(DType, int64_t)>& new_temp);

}  // namespace arrvm
