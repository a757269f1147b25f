// A copy-back becomes a rename: the copy-rename pass. Rule: a temporary
// copied back whole into a box of an array is computed in place in a second
// array of that array's size, and the copy becomes a rename. A Jacobi
// sweep in NumPy computes the new interior into a temporary and copies it back:
//
//     work = 0.2 * (center + north + east + west + south)   # a new array
//     delta = np.sum(np.abs(work - center))                 # sync
//     center[:] = work                                      # a second pass
//
// A hand-written loop swaps two grids instead. The VM does the same without
// the program's help, across batches and exactly:
//
// 1. Learn. A copy `identity G[V] <- W` that reads all of W, where W was
//    created whole by an elementwise instruction at site S (defer.hpp's
//    site_key) earlier in the stream and V is a box of G (a block of G
//    viewed row-major in some shape) of more than half its elements (the
//    rename copies the rest, G's frame, instead of V), teaches: "what S
//    creates lands in V of a G-sized array".
// 2. Pad. The next instruction at site S that creates a base W' (its first
//    touch, writing all of it row-major) writes V of a fresh, unfilled base
//    P of G's size instead; every later instruction that reads or writes all
//    of W' the same way reads or writes P[V] (W' is "padded"). Anything else
//    that touches W' (a sync, another view, a gather, a length class, a
//    write from the host) first copies P[V] into W' and W' is itself again
//    (unpadded); that, or W' freed without a copy-back, stops the padding
//    of site S for good (no churn on a wrong guess).
// 3. Rename. When the copy `identity G[V] <- W'` comes, with P[V] matching
//    G[V] exactly and G the VM's own memory (not adopted), and W' is freed
//    later in the same batch with no write to G or W' in between, the copy is
//    replaced by copies of G's frame (G minus V, at most 2 rank boxes) into
//    P, then `free G`; every later instruction of the batch that names G
//    names P; after the batch runs, the backend moves P's memory to G
//    (Backend::rename). The copy of n elements becomes one of the frame's.
//    Sweeps in one batch chain: the next copy-back finds G named P and
//    copies P's frame into the next P', frees P, and G then names P'.
//    A copy-back still pending at the end of the batch (W' alive past it,
//    nothing written to G or W' since: `center[:] = work` before the
//    loop's test syncs) is renamed there, and W' becomes G[V] itself (a
//    box "lent" by G): a write to G, its free or the host replacing it
//    first copies G[V] into W' (the site stays padded: the guess was right).
//
// Legal: (a) a padded base's elements are P[V]'s, in the same row-major
// order (the same view parameters on another base), and every access to it
// goes through that view or first restores it; (b) after the frame copies P
// holds G's frame and V holds W', which is what G holds after the copy, and
// no instruction up to W's free writes G or W', so from the copy to W's free
// P and G-after-the-copy are equal, and the instructions between read the
// same values through P; (c) G's old memory is read last by the frame copies
// and freed there; from then on G's id refers to P's memory; (c') a lent W'
// equals G[V] while G is unwritten, and is copied out before any write; (d) no element
// of P outside V is read before the frame copies write it, so P needs no
// zero fill. The rewrite runs on the stream as issued (after the deferral,
// which reasons in the program's names), so a trace replays it.
//
// In the batch. A copy that converts (W's dtype is not G's: a cellular
// automaton's
//
//     cells[:] = (live >= 2) & (live <= 3) | (dead == 3)   # bool into a float board
//
// ) cannot be padded: W's producer makes W's dtype, not G's. When W is
// freed later in the batch and what computes W earlier in the batch reads
// G other than through V (else the copy joins it as it is), G is the VM's
// own memory and V a box of more than half of G, the copy is renamed where
// it stands: it writes P[V] of a fresh P instead (the same conversion), G's
// frame is copied into P, G is freed, and P names G for the rest of the
// batch and takes G's id after it. Its producer read G (the shifted views
// of the board), which kept the copy out of its block; it does not read P,
// so the copy joins it and W is contracted: one pass a generation instead
// of two. Legal by (b) and (c) with the copy itself in place of W' (P[V]
// then holds G-after-the-copy's V, by the same conversion) and (d).
#pragma once

#include <cstdint>
#include <functional>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "vm/instruction.hpp"

namespace arrvm {

class CopyBack {
 public:
  struct Env {
    // The base's dtype and size if the program holds it after the batch and
    // it is not of a length class; false otherwise.
    std::function<bool(BaseId, DType*, int64_t*)> live;
    // Whether the base is on memory the program gave (adopt) during the batch.
    std::function<bool(BaseId)> adopted;
    // A fresh base, declared to the backend and left unfilled.
    std::function<BaseId(DType, int64_t)> new_base;
  };

  // Rewrites `batch` (`origin` parallel to it) as the header says. Returns
  // the renames to apply, in order, after the batch has run: (from, to).
  std::vector<std::pair<BaseId, BaseId>> rewrite(std::vector<Instruction>& batch,
                                                 std::vector<uint64_t>& origin, const Env& env);

  // The padded bases (program's base -> the base holding it).
  std::vector<std::pair<BaseId, BaseId>> padded() const;
  // Whether base `id` is padded (its elements are on another base).
  bool is_padded(BaseId id) const { return !padded_.empty() && padded_.count(id) != 0; }
  // Whether base `id` is padded or holds a padded base: work on it must go
  // through a batch, whose rewrite knows where its elements are (the eager
  // path asks).
  bool involves(BaseId id) const;
  // A base freed outside a batch (the eager path): forgets where it was created.
  void freed(BaseId id) { creator_.erase(id); }
  // Forgets a padded base whose contents the program replaces (a write from
  // the host); returns the base that held it (to release), or -1.
  BaseId forget(BaseId id);
  // The bases that are a box of `g` (W' after a rename at the end of a
  // batch), which must be copied out before the host replaces g: (W' whole,
  // the box of g); they are no longer padded.
  std::vector<std::pair<View, View>> lend_back(BaseId g);

  std::size_t renamed() const { return renamed_; }

 private:
  bool learns_nothing(const std::vector<Instruction>& batch, const Env& env);

  struct Target {
    DType dtype;
    int64_t nelem;  // G's
    View box;       // V (base unset)
  };
  struct Pad {
    BaseId holder;  // P
    int64_t holder_nelem;
    View whole;  // how the program sees all of W (base W)
    View box;    // on P
    uint64_t site;
    bool copied = false;  // a copy-back of it came (if a write then kept it a copy, the site stays)
    // False: the holder is the program's G, renamed at the end of the batch
    // with the copy-back done and W' still alive; W' is G[V] until G is
    // written (then copied out first).
    bool owned = true;
  };

  std::unordered_map<uint64_t, Target> sites_;  // what a site's base is copied into
  struct Created {
    uint64_t site;
    int64_t nelem;
  };
  std::unordered_map<BaseId, Created> creator_;  // unpadded bases alive -> the site that created them
  std::unordered_map<BaseId, Pad> padded_;
  std::unordered_set<uint64_t> refused_;  // sites whose padded base was unpadded or freed unrenamed
  std::size_t renamed_ = 0;
};

}  // namespace arrvm
