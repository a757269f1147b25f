// The rewrite passes' one interface. A pass is a function
//
//   uint64_t run_<id>(RewriteBatch& batch, RewriteContext& ctx);
//
// that rewrites a validated batch into one with the same observable effect
// (every synced base, every base the program holds after the batch) and
// returns how often it fired (the profile's count for it). The passes and
// their order are rewrite/passes.def; rewrite/pipeline.hpp runs them; the
// user chooses them with ARRVM_PASSES (docs/reference.md). A new pass is its
// own .hpp/.cpp here, one line in passes.def and its own test.
#pragma once

#include <cstdint>
#include <functional>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "vm/base_registry.hpp"
#include "vm/instruction.hpp"
#include "vm/partition.hpp"

namespace arrvm {

class CopyBack;

// Where in a flush a pass runs.
enum class PassStage : uint8_t {
  Sync,       // first, on the batch as issued: `keys` is valid (defer's site keys)
  Batch,      // then, before fusion
  Partition,  // after fusion: `partition` is set; the pass changes blocks, not instructions
  Backend,    // read by the backend while it lowers and runs blocks (no run function)
};

// The batch a pass rewrites: the instructions and, parallel to them, each
// one's position in the issued stream (`origin`, for error messages and the
// trace) and, in the Sync stage, the site key of the deferral an
// instruction was carried for (0: none). A pass that removes or inserts
// instructions keeps `origin` parallel (and `keys`, in the Sync stage).
struct RewriteBatch {
  std::vector<Instruction>& instrs;
  std::vector<uint64_t>& origin;
  std::vector<uint64_t>& keys;
  Partition* partition = nullptr;  // the Partition stage's blocks
};

// What the VM lends the passes of one flush: its bases, fresh temporaries,
// the backend's abilities and the state that passes keep across batches.
struct RewriteContext {
  BaseId synced = -1;                   // the base whose sync ends the batch, or -1 (a full batch)
  const BaseRegistry* bases = nullptr;  // the bases the program holds
  // A fresh base (declared to the backend, not in `bases`): the rewritten
  // batch creates and frees it.
  std::function<BaseId(DType, int64_t)> new_temp;
  // The same, and the backend leaves it unfilled (nothing reads it before a write).
  std::function<BaseId(DType, int64_t)> new_unfilled;
  // Backend::leave_unfilled for a base of the program.
  std::function<void(BaseId)> leave_unfilled;
  // Whether the base is on memory the program gave (adopt).
  std::function<bool(BaseId)> adopted;
  bool can_rename = false;  // Backend::can_rename
  bool compiles = false;    // Backend::compiles_kernels

  // State kept across batches.
  struct Deferral {
    std::size_t carried = 0;    // the batch's first `carried` instructions were carried into it
    std::size_t max_carry = 0;  // at most this many carried out of it
    bool every_site = false;    // defer every legal site, not only those seen to die unread (tests)
    std::unordered_set<uint64_t>* good = nullptr;     // sites seen to die unread
    std::unordered_set<uint64_t>* refused = nullptr;  // deferred once, then read
  } deferral;
  CopyBack* copy_back = nullptr;

  // What the passes leave for the VM.
  std::vector<Instruction> carry_batch;  // defer: to start the next batch with
  std::vector<uint64_t> carry_origin, carry_keys;
  std::vector<std::pair<BaseId, uint64_t>> watch;  // defer: candidates to watch, with their sites
  std::vector<std::pair<BaseId, BaseId>> renames;  // copy-rename: (from, to), after the batch runs

  // The size of a base the program holds and that is not of a length
  // class, or -1.
  int64_t plain_nelem(BaseId b) const {
    const BaseInfo* info = bases->find(b);
    return info != nullptr && info->klass < 0 ? info->nelem : -1;
  }
};

using PassFn = uint64_t (*)(RewriteBatch&, RewriteContext&);

// One run function per pass with a stage that runs (rewrite/passes.def).
#define ARRVM_PASS(id, name, stage, summary) uint64_t run_##id(RewriteBatch& batch, RewriteContext& ctx);
#define ARRVM_BACKEND_PASS(id, name, summary)
#include "rewrite/passes.def"
#undef ARRVM_PASS
#undef ARRVM_BACKEND_PASS

}  // namespace arrvm
