// The cost model measured on the machine (ARRVM_COST=machine; issue:
// "a cost model measured on the machine"). Its parameters come from a
// calibration that runs real kernels on this host once and caches them
// (backends/cpu/calibrate.hpp); the fusion layer only holds them.
#pragma once

#include <memory>
#include <string>

#include "fusion/cost.hpp"

namespace arrvm::fusion {

// Per-element compute costs are kept per opcode class.
enum class OpClass : int { Cheap, Transcendental, Random, Count };
OpClass op_class(Opcode op);

struct MachineCosts {
  double bandwidth = 10e9;  // bytes per second of a streaming kernel (read + write)
  double launch_s = 2e-6;   // one kernel launch on small arrays (issue, fuse, lower, run)
  double element_s[static_cast<int>(OpClass::Count)] = {0, 0, 0};  // compute per element beyond the traffic
  std::string source = "defaults";                                 // "measured", "cache", or "defaults"
};

// Process-wide: set once by the engine before anything fuses with "machine".
void set_machine_costs(const MachineCosts& costs);
MachineCosts machine_costs();

// `machine` (fusion/README.md): predicted time in bytes-equivalent units of
// the measured bandwidth; bohrium's traffic plus one launch per block (in
// batches where launches matter, launch_in) plus the (partition-independent)
// compute of every instruction.
class MachineCost final : public CostModel {
 public:
  MachineCost();  // with machine_costs()
  std::string_view name() const override { return "machine"; }
  bool counts_external_accesses() const override { return true; }
  Cost merge_bonus(const Graph& g) const override;
  Cost constant(const Graph& g) const override;
  Cost block_cost(const Graph& g, const BlockSummary& b) const override;
  Cost saving(const Graph& g, const BlockSummary& a, const BlockSummary& b) const override;
  Cost launch_bytes() const { return launch_; }
  // The launch term in g: launch_bytes() if one launch per non-control
  // instruction costs at least kLaunchShare of their unfused traffic
  // (bytes of every view they read and write), else 0. O(1) after the
  // first call per graph.
  Cost launch_in(const Graph& g) const;
  static constexpr double kLaunchShare = 0.1;

 private:
  MachineCosts m_;
  Cost launch_;  // bytes-equivalent of one launch
  std::unique_ptr<CostModel> bohrium_;
};

}  // namespace arrvm::fusion
