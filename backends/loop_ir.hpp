// The kernel IR shared by every code generator: one block of the partition
// lowered to one loop nest over its iteration shape (lower() below), which a
// printer (backends/c_printer.hpp) turns into C or OpenCL C. The IR holds
// only the block's structure (opcodes, dtypes, rank, which operands are
// views, contracted temporaries or constants, the loops and how each runs);
// sizes, offsets, strides, constant values and seeds go into the launch
// arguments, so that a kernel printed from the IR is reused at every size.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "vm/instruction.hpp"
#include "vm/row_nest.hpp"

namespace arrvm::codegen {

// Where a statement reads or writes a value.
enum class ArgKind : uint8_t {
  View,     // element of view slot `index` at the loop's current index
  Temp,     // scalar temporary `index` (a contracted array)
  Const,    // constant slot `index` (a packed 64-bit launch argument)
  Indexed,  // indexed slot `index` (gather source, scatter target) at a computed position
};

struct Arg {
  ArgKind kind = ArgKind::View;
  int index = 0;
  DType dtype = DType::Float64;
};

// One instruction of the block, executed for every index of the loop in
// block order. Generators read the flat index; `random` reads its seed from
// constant slot `seed_slot`.
struct Stmt {
  Opcode op = Opcode::Identity;
  Arg out;
  std::array<Arg, 3> in;
  int nin = 0;
  int seed_slot = -1;
  int acc = -1;  // the accumulator of a reduction or scan
  int err = -1;  // the error slot of a gather or scatter
  // Length classes (the transducer rule): a statement of a class whose
  // compress is in the block runs only where that compress keeps an element,
  // at the compress's running count: `domain` is that compress's counter
  // (-1: every index of the loop). A compress owns counter `counter`.
  int domain = -1;
  int counter = -1;
  // A row nest (lower_nest): 1 for a statement that runs once per index of
  // the outermost loop, before the loops inside it; 0 for every index of
  // the nest.
  int depth = 0;
  // A row program (lower_row_program): the segment the statement belongs
  // to; each row runs its segments in order, a segment of depth 1 once, a
  // segment of depth 0 as its own loop over the inner axis (its reductions
  // write the row's value after that loop). 0 everywhere else.
  int segment = 0;
};

// A gather's source or a scatter's target: a view of any
// rank, addressed by the flat row-major position an index names.
struct IndexedSlot {
  DType dtype = DType::Float64;
  int rank = 0;
  bool written = false;
};

// How a loop of the nest runs (the schedule pass decides, per target).
enum class LoopKind : uint8_t {
  Serial,         // a plain C loop
  Parallel,       // OpenMP `parallel for` (if the launch's parallel flag is set)
  ParallelSimd,   // `parallel for simd`: a rank-1 loop without sweep or indexing
  Simd,           // `omp simd`: the innermost loop without sweep or indexing
  Sweep,          // the sweep axis: innermost, sequential, accumulators around it
  ParallelSweep,  // a full reduction to a scalar: the sweep split among threads (an OpenMP
                  // reduction) or work items (a partial each, then a tree: OpenCl)
  WorkItems,      // device work items: consecutive WorkItems loops are one flat loop
  // A reduction along an axis other than the last, on cpu (schedule()): the
  // sweep runs sequentially outside the last axis's loop, and each reduction
  // accumulates in its output element (set to its start value before the
  // sweep), so the inner loop reads contiguous rows and vectorizes. Every
  // output element still combines its inputs in ref's order.
  OuterSweep,
  // The last axis under an OuterSweep that no other loop encloses: one
  // OpenMP parallel region around the nest, each thread its own contiguous
  // share of this axis (whole cache lines), `omp simd` within it.
  SharedSimd,
  // OpenCl: a kernel of one full reduction to a scalar and nothing else
  // (schedule(); also the second pass over a ParallelSweep's partials,
  // opencl::tree_kernel). Work-groups of a fixed size share the sweep: each
  // work item folds the elements at its global id and every global size
  // after it into its accumulator, the group combines its items'
  // accumulators in a tree in local memory, and item 0 writes the result at
  // the output slot's offset plus the group's index times the slot's stride
  // along the sweep (the launch gives a stride: a partial per group into a
  // scratch buffer, then one group over the partials).
  GroupTree,
  // OpenCl: a kernel of one 1-D scan and nothing else (schedule()), run in
  // chunks: the work items fold chunks of the input into totals, one
  // work-group turns the totals into exclusive prefixes, the work items
  // rescan their chunks from their prefixes (three kernel functions of one
  // source: opencl_printer.hpp). With one chunk only the last runs: a
  // sequential scan in ref's order.
  ChunkedScan,
};

struct Loop {
  int axis = 0;
  LoopKind kind = LoopKind::Serial;
};

enum class Target : uint8_t { Cpu, OpenCl };

struct LoopKernel {
  int rank = 0;
  std::vector<DType> views;   // view slots (each has offset + rank strides in the launch)
  std::vector<bool> written;  // per view slot: written by the kernel
  std::vector<DType> temps;   // contracted temporaries
  std::vector<DType> consts;  // constant slots
  std::vector<Stmt> body;
  int sweep_axis = -1;  // axis of the reductions and scans: sequential (innermost but for OuterSweep)
  std::vector<IndexedSlot> indexed;  // gather sources and scatter targets
  std::vector<DType> accs;           // accumulators of reductions and scans
  int errors = 0;                    // error slots, one per gather or scatter
  int counters = 0;                  // one per compress: the loop is serial, the counts are written out
  // Per view slot: the stride along the innermost loop's axis (the sweep
  // axis if innermost, else the last), when the launch fixes it: kUnitInner (1, or an
  // axis of length 1) or kZeroInner (0, a broadcast), printed as a constant
  // so the compiler sees contiguous or invariant accesses and vectorizes
  // without gathers; kAnyInner: a launch argument. A structural property
  // like dtypes: a loop whose slices shrink keeps its classes.
  std::vector<uint8_t> inner;
  // The loop nest, outermost first: one loop per axis (schedule()).
  std::vector<Loop> loops;

  bool has(OpKind kind) const;
  // Deterministic text of the structure (used in names and tests).
  std::string signature() const;
};

enum : uint8_t { kAnyInner = 0, kUnitInner = 1, kZeroInner = 2 };

// Launch argument layout (int64 array `a`): a[0..rank) = shape,
// a[rank] = the threads to run the outer loop on (C: > 1 starts a team of
// that many; OpenCL: non-zero runs it in parallel), then per view slot v:
// (a kernel with counters also takes, after the error words, a pointer to
// one int64 per counter: the number of elements each compress kept)
// a[rank + 1 + v * (rank + 1)] = offset, followed by its rank strides; then
// per indexed slot j at indexed_arg_index(kernel, j): offset, number of
// elements, rank sizes, rank strides. Pointers: the view slots, then the
// indexed slots, then (if kernel.errors) the error words (the printer's
// dialect says their layout).
inline int64_t view_arg_index(int rank, int slot) {
  return rank + 1 + static_cast<int64_t>(slot) * (rank + 1);
}
int64_t indexed_arg_index(const LoopKernel& k, int slot);

// A block lowered for one launch: the structure plus the launch's values.
struct LoweredBlock {
  LoopKernel kernel;
  Dims shape;                      // the iteration shape
  std::vector<View> views;         // per view slot
  std::vector<uint64_t> consts;    // per constant slot (the value's bytes, little-endian)
  std::vector<BaseId> contracted;  // bases that became temporaries (never allocated)
  // Per indexed slot its view; per view slot whether no other slot may
  // touch its elements (a reduction's output, written after the sweep); the
  // instruction (batch index) behind each error slot.
  std::vector<View> indexed;
  std::vector<bool> exclusive;
  std::vector<uint32_t> error_instr;
  std::vector<BaseId> kept;  // per counter: its compress's output base (Backend::lengths)
};

// ---- One lowering for every backend -----------------------------------------
// A block (fusion/README.md: its non-control instructions share an
// iteration shape, their reductions and scans one axis) runs as ONE loop
// nest: elementwise ops, generators and gathers iterate over the output
// shape, reductions and scans over the input shape, scatters over the
// values shape. With reductions or scans, `sweep_axis` is their axis: it
// runs sequentially from index 0, so each reduction and scan combines in
// ref's order. Usually it is the innermost loop, the other axes run outside
// it, and a reduction keeps an accumulator per outer index and writes it
// after the sweep (its output is a view slot with stride 0 along the sweep
// axis, marked exclusive); a scan writes its accumulator at every index. A
// reduction along another axis than the last may instead run the sweep
// outside the last axis's loop and accumulate in its output (OuterSweep). Gathers
// read, scatters write an indexed slot; an index out of range is recorded in
// the statement's error slot and the element is skipped (a gather yields 0).
//
// lower() is a pipeline of passes (each in its own file):
//   verify_block  (loop_verify.cpp)   the block is one kernel, or InternalError
//   build         (loop_ir.cpp)       one statement per instruction, every array a slot
//                                     (equal constants one slot)
//   contract      (loop_contract.cpp) bases created and freed in the block become temporaries;
//                                     a stored value is forwarded to later reads of its view;
//                                     a store the next write of its elements overwrites goes;
//                                     the reads of one view share a slot
//   schedule      (loop_schedule.cpp) the loop nest for the target
//   stride_classes(loop_ir.cpp)       unit / zero strides along the innermost loop as constants
// A row nest (vm/row_nest.hpp) is lowered by lower_nest (loop_nest.cpp) instead.
LoweredBlock lower(std::span<const Instruction> batch, std::span<const uint32_t> block, Target target);

// The passes, for tests and for backends that re-schedule.
void verify_block(std::span<const Instruction> batch, std::span<const uint32_t> block);
LoweredBlock build(std::span<const Instruction> batch, std::span<const uint32_t> block);
LoweredBlock contract(LoweredBlock b, std::span<const Instruction> batch, std::span<const uint32_t> block,
                      std::span<const BaseId> keep = {});
// contract's first half: only the bases the block creates and frees (but
// those in `keep`).
LoweredBlock contract_bases(LoweredBlock b, std::span<const Instruction> batch,
                            std::span<const uint32_t> block, std::span<const BaseId> keep = {});
LoweredBlock stride_classes(LoweredBlock b);
LoweredBlock schedule(LoweredBlock b, Target target);

// A row nest (vm/row_nest.hpp): `block` lists its rows' instructions
// (`rows`, over (m)) first, then the rest (over (m, ...), and the frees and
// syncs). lower() calls it for a block that is one; a target other than
// Cpu, a block not in that order or an illegal nest raise InternalError.
LoweredBlock lower_nest(std::span<const Instruction> batch, std::span<const uint32_t> block,
                        std::span<const uint32_t> rows, Target target);

// A row program (vm/row_nest.hpp, RowProgram): `block` in block order, its
// segments in `program`. lower() calls it for a block that is one; a target
// other than Cpu or an illegal program raise InternalError. Contracted:
// the reductions' outputs and the rows' values the block creates and frees
// (one scalar a row), and what a segment creates and frees within itself;
// an array one segment writes and another reads stays in memory.
LoweredBlock lower_row_program(std::span<const Instruction> batch, std::span<const uint32_t> block,
                               const RowProgram& program, Target target);

// Whether a block has an instruction that is not free or sync.
bool has_work(std::span<const Instruction> batch, std::span<const uint32_t> block);
// minimum/maximum have no identity: over an empty axis ref raises Error;
// this raises it for the block's first such reduction.
void check_empty_axes(std::span<const Instruction> batch, std::span<const uint32_t> block);
// Whether the lowered block has anything to do: a non-empty iteration
// shape, or a reduction of an empty axis into a non-empty output (which
// writes the identity).
bool launches(const LoweredBlock& b);

// ---- Reusing a lowering ------------------------------------------------------
// lower() depends on a block only through its structure: opcodes, axes,
// which operands are constants (and their dtypes), and the views with their
// bases compared for equality only. A loop flushes blocks of the same
// structure over and over with new temporaries and new scalars; a backend
// keeps their lowering by BlockKey and re-binds it (base ids and constant
// values: Binding, rebind) instead of lowering again.
struct BlockKey {
  std::vector<uint64_t> words;  // the structure; equal words: equal lowering up to the bases and constants
  std::vector<BaseId> bases;    // the block's bases in order of first appearance (words number them so)
  struct Const {
    uint8_t dtype;
    uint64_t bits, hi;  // hi: complex128's second word, else 0
    bool operator==(const Const&) const = default;
  };
  std::vector<Const> consts;  // its distinct constants (dtype, bytes), numbered so
  uint64_t hash = 0;          // of words
  // Scratch: base id -> number, open addressing, cleared by bumping the generation.
  struct Slot {
    BaseId id = 0;
    uint32_t number = 0, generation = 0;
  };
  std::vector<Slot> slots;
  uint32_t generation = 0;
};
void block_key(std::span<const Instruction> batch, std::span<const uint32_t> block, BlockKey* key);

// Where a lowering's base ids, constants and error instructions come from in
// its block: re-binding it to another block of the same structure costs
// O(slots), not O(instructions).
struct Binding {
  struct Origin {
    uint32_t pos;     // block[pos]
    int32_t operand;  // its input operand, kOut for the output, kSeed for a random's seed
  };
  static constexpr int32_t kOut = -1, kSeed = -2;
  std::vector<Origin> views, indexed, contracted, kept;
  // A view slot's offset less its origin's: the merge key (so a partition's
  // structure id) holds offsets relative to each base's first view, so a
  // block of the same structure may sit elsewhere in its bases, all of a
  // base's views shifted alike (lowering reads offsets only to compare
  // views of one base).
  std::vector<int64_t> view_shifts, indexed_shifts;
  // Every constant operand and seed, in the block's order, and its slot:
  // `shared` if an equal constant before it has the slot.
  struct ConstUse {
    Origin origin;
    int32_t slot;
    bool shared;
  };
  std::vector<ConstUse> consts;
  std::vector<uint32_t> errors;  // positions in the block
};
Binding binding_of(const LoweredBlock& b, std::span<const Instruction> batch,
                   std::span<const uint32_t> block);
// False if the block's constants do not share slots as the lowered block's
// did (equal there, different here: a loop whose scalars change); the
// lowering is then unusable for this block (a lowering found by BlockKey
// always fits: the key holds the pattern).
[[nodiscard]] bool rebind(LoweredBlock* b, const Binding& binding, std::span<const Instruction> batch,
                          std::span<const uint32_t> block);

// The int64 launch arguments of `b` (layout above); `threads` is a[rank].
std::vector<int64_t> pack_args(const LoweredBlock& b, int64_t threads);
void pack_args(const LoweredBlock& b, int64_t threads,
               std::vector<int64_t>* out);  // into *out (reuses its memory)

}  // namespace arrvm::codegen
