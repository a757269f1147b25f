// Names alive at a sync: the defer and dead-writes passes. Rule: a base a
// batch creates and leaves alive at a sync is not stored unless a later
// batch reads it. A NumPy program keeps its temporaries in names until
// they are rebound:
//     t, u = 1 - a, b - a * a
//     total += float(np.sum(t * t + 100.0 * (u * u)))
// At the sync of the sum, t and u are alive, so a VM that runs the batch as
// it stands must write them to memory, although the next iteration rebinds
// both without reading them (4x the bytes of the contracted loop in this
// one). Two rewrites of the batch, both exact:
//
// Deferral (defer_at_sync, on a flush for a sync only). A base b the batch
// creates (its first instruction in the batch writes all of it, reading
// none of it; later elementwise writes to it, such as
// `diagonal(r)[:] = 1.0`, go with it) and leaves alive, other than the
// synced one, is computed now under a fresh name b' that the batch frees,
// so fusion can contract it, and its chain (b's writers and the writers of
// the temporaries they read, which the batch creates and frees) is
// carried, in batch order, with fresh names for those
// temporaries, to the front of the next batch, where it recomputes b. Legal
// when every base the chain reads from outside it is alive and holds, at
// the end of the batch, what the chain read: nothing in the batch writes it
// between or after the chain's reads of it. One written after them
// (`x += dt * vx` after `dx = x[:, None] - x`) is copied right after the
// last read, when the copies cost at most an eighth of b's store, and the
// carry reads the copy (freed at its end). The next batch then either reads
// b (the chain runs: b costs a recomputation instead of a store) or frees it
// unread (the chain is dead code and goes).
// Bounded: a chain that mixes carried instructions with new ones is not
// carried (so no chain grows from batch to batch); a chain that is all
// carried instructions may be carried again. A predictor keeps it from
// costing, keyed by the site of a base's writer (the instruction without
// its base ids and constants, site_key: the same for every iteration of a loop): a site
// is deferred only after a base it wrote at a sync was later freed unread
// (the runtime watches the candidates it did not defer), and never again
// once a chain deferred from it had to run.
//
// Dead writes (remove_dead_writes, on every flush): an instruction whose
// output base the batch frees before anything reads it is dropped.
#pragma once

#include <cstdint>
#include <functional>
#include <unordered_set>
#include <vector>

#include "vm/base_registry.hpp"
#include "vm/instruction.hpp"

namespace arrvm {

// The instruction without its base ids, constant values and seed: the same
// operation of a loop's every iteration has one key (never 0).
uint64_t site_key(const Instruction& in);

// Drops the writes to bases that the batch frees before any instruction
// reads them (a sync reads); `origin` and `keys` are parallel to `batch` and
// shrink with it. Returns how many were dropped.
std::size_t remove_dead_writes(std::vector<Instruction>& batch, std::vector<uint64_t>& origin,
                               std::vector<uint64_t>& keys);

struct DeferInput {
  BaseId synced = -1;                        // the base of the sync that ends the batch
  const BaseRegistry* live;                  // the bases alive after the batch
  std::size_t carried = 0;                   // the batch's first `carried` instructions were carried into it
  std::size_t max_carry = 0;                 // at most this many instructions carried out of it
  const std::unordered_set<uint64_t>* good;  // site keys seen to die unread (null: every site)
  const std::unordered_set<uint64_t>* refused;  // site keys not to defer
  // A fresh base (declared; not in `live`) for a renamed array.
  std::function<BaseId(DType, int64_t)> new_temp;
};

struct Carry {
  std::vector<Instruction> batch;  // to start the next batch with
  std::vector<uint64_t> origin;    // their stream positions
  std::vector<uint64_t> keys;      // the site key of the deferred base each serves (0: a free)
  std::size_t bases = 0;           // bases deferred (not counting those carried again)
  // The candidates not deferred, with their site keys, for the runtime to
  // watch: freed before anything reads them, their site becomes good.
  std::vector<std::pair<BaseId, uint64_t>> watch;
};

// Rewrites `batch` (ending with the sync of in.synced; `origin` and `keys`
// parallel to it) as the header says and returns what to carry.
Carry defer_at_sync(std::vector<Instruction>& batch, std::vector<uint64_t>& origin,
                    std::vector<uint64_t>& keys, const DeferInput& in);

}  // namespace arrvm
