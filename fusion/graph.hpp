// The WSP graph of a batch (seed 001, Sec. IV-A3): one vertex per
// instruction, dependency edges from data dependencies between overlapping
// views, and a fusibility predicate whose negation is the fuse-preventing edge
// set. Also the per-instruction access sets (in/out/new/del of Def. 10) that
// the cost models read. Rules and their reasons: fusion/README.md.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "vm/instruction.hpp"
#include "vm/partition.hpp"

namespace arrvm::fusion {

using Cost = int64_t;
using ArrayId = uint32_t;  // a distinct array (view) of the batch
inline constexpr uint32_t kNone = UINT32_MAX;

// One distinct array of the batch. Identical views (vm/view.hpp same_elements:
// same base, offset and shape, same stride on every axis longer than one) are
// the same array and share an id; ids are dense, in order of first use.
struct ArrayInfo {
  View view;      // as first seen
  uint32_t base;  // dense base index (Graph::base_id maps it back)
  int64_t bytes;  // nelem * dtype size
};

// What one instruction reads and writes, as the fusion engine sees it. Free
// and sync have no reads and no write (Def. 10: "counted as having no input
// or output"); their base appears only in `control_base`.
struct Access {
  OpKind kind = OpKind::Elementwise;
  std::array<ArrayId, 3> reads{kNone, kNone, kNone};  // distinct, constants omitted
  int nreads = 0;
  ArrayId write = kNone;
  uint32_t shape = kNone;         // iteration shape id; kNone for free/sync
  int axis = -1;                  // reductions and scans
  uint32_t new_base = kNone;      // new[f] (see Graph): a base this instruction creates
  uint32_t del_base = kNone;      // del[f]: the base a free releases
  uint32_t control_base = kNone;  // free/sync: their base
  ArrayId reduce_out = kNone;     // a reduction's output
  ArrayId gather_src = kNone;     // a gather's source
  ArrayId scatter_target = kNone;
  // Length classes (vm/length_class.hpp): the compress (batch index) whose
  // kept elements this instruction iterates over; kNone: a fixed length.
  // The transducer rule (fusion/README.md) keeps blocks closed under it.
  uint32_t domain = kNone;

  std::span<const ArrayId> read_ids() const { return {reads.data(), static_cast<std::size_t>(nreads)}; }
  bool is_control() const { return kind == OpKind::Free || kind == OpKind::Sync; }
};

class Graph {
 public:
  // Builds the graph of `batch`, which must outlive the graph. The batch must
  // be validated (normalized) bytecode. O(n * a) time where a is the number
  // of live accesses of a base that an access is compared with (small unless
  // a base is accessed through many disjoint slices). `rules`: what the
  // backend that runs the partition adds to the fusibility rules (rule 8).
  explicit Graph(std::span<const Instruction> batch, FusionRules rules = {});
  // Without the dependency edges (successors, predecessors and
  // dependency_edges stay empty): what checking a given partition needs
  // (check_partition orders blocks with order_violation), in O(n * a') where
  // a' counts only the earlier accesses of a base placed in a later block.
  struct NoDependencies {};
  Graph(std::span<const Instruction> batch, FusionRules rules, NoDependencies);

  const FusionRules& rules() const { return rules_; }
  // Distinct for every graph the process builds (a cache key for what a
  // cost model derives from the whole graph; an address may be reused).
  uint64_t serial() const { return serial_; }

  std::size_t size() const { return access_.size(); }
  const Instruction& instruction(uint32_t i) const { return batch_[i]; }
  std::span<const Instruction> batch() const { return batch_; }
  const Access& access(uint32_t i) const { return access_[i]; }
  // Whether the batch has a compress (length classes: the transducer rule).
  bool has_filters() const { return filters_; }

  std::size_t array_count() const { return arrays_.size(); }
  const ArrayInfo& array(ArrayId a) const { return arrays_[a]; }
  std::size_t base_count() const { return base_ids_.size(); }
  BaseId base_id(uint32_t base) const { return base_ids_[base]; }
  std::size_t shape_count() const { return shapes_.size(); }
  int shape_rank(uint32_t shape) const { return shapes_[shape].size(); }
  // Bases that some instruction of the batch creates (new[A]).
  std::size_t new_base_count() const { return new_bases_; }

  // Dependency edges: succ(i) lists instructions j > i that must run after
  // i. Every pair of conflicting accesses (overlapping views, at least one a
  // write; free counts as a write of its whole base, sync as a read) is
  // ordered by a path; an edge implied by a covering write in between is
  // omitted, which leaves reachability, and so legality, unchanged.
  const std::vector<uint32_t>& successors(uint32_t i) const { return succ_[i]; }
  const std::vector<uint32_t>& predecessors(uint32_t i) const { return pred_[i]; }
  std::vector<std::pair<uint32_t, uint32_t>> dependency_edges() const;

  // Whether running the blocks in order (block_of[i]: instruction i's
  // block; within a block, batch order) keeps every dependency: a
  // conflicting pair (the accesses of successors()) whose later instruction
  // sits in an earlier block, named, or "". Needs no edges: one sweep keeps,
  // per base, the accesses seen so far sorted by block and compares an
  // access only with those of later blocks.
  std::string order_violation(std::span<const uint32_t> block_of) const;

  // Instructions that touch a base (any view, free and sync included), ascending.
  const std::vector<uint32_t>& users_of_base(uint32_t base) const { return base_users_[base]; }
  // The instruction whose new[f] / del[f] is `base`, or kNone.
  uint32_t creator(uint32_t base) const { return creator_[base]; }
  uint32_t releaser(uint32_t base) const { return releaser_[base]; }
  // Instructions that read or write an array, ascending.
  const std::vector<uint32_t>& users_of_array(ArrayId a) const { return array_users_[a]; }

  // May the two instructions share a block (Def. 12 and the rules of
  // fusion/README.md)? Symmetric; O(1) (at most 4x4 view pairs).
  bool fusible(uint32_t a, uint32_t b) const;
  // The fuse-preventing edges (a < b), all pairs that are not fusible. O(n^2).
  std::vector<std::pair<uint32_t, uint32_t>> fuse_preventing_edges() const;

  // Array-level predicates used by block fusibility.
  bool overlap(ArrayId a, ArrayId b) const;   // may_overlap (same id: true unless empty)
  bool conflict(ArrayId a, ArrayId b) const;  // overlap but not identical (Def. 12)

 private:
  void build_accesses();
  void find_new_bases();
  void build_dependencies();
  // Calls f(base, view, is_write) for each access of instruction i, as the
  // dependency edges see them (sync reads its base, free writes it).
  template <typename F>
  void for_each_access(uint32_t i, F&& f) const;

  std::span<const Instruction> batch_;
  FusionRules rules_;
  uint64_t serial_ = 0;
  std::vector<Access> access_;
  std::vector<ArrayInfo> arrays_;
  std::vector<BaseId> base_ids_;
  std::vector<Dims> shapes_;
  std::vector<std::vector<uint32_t>> succ_, pred_;
  std::vector<std::vector<uint32_t>> base_users_, array_users_;
  std::vector<uint32_t> creator_, releaser_;
  std::size_t new_bases_ = 0;
  bool filters_ = false;
};

}  // namespace arrvm::fusion
