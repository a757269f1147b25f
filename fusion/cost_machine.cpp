// `machine`: predicted time, in bytes-equivalent units of the measured
// bandwidth (cost / bandwidth = seconds), so that the ILP's per-array access
// terms, which count bytes, stay exact:
//   cost(P) = Σ_f elements(f) * element_s(class f) * bandwidth     (compute: no partition changes it)
//           + Σ_B ( ‖ext[B]‖ + launch_s * bandwidth )               (bohrium's traffic + one launch per
//           block)
// The launch term is robinson's |P| weighted by what a launch costs here, so
// every fuser sees it as a merge bonus (merging even unrelated blocks saves
// a launch) and the ILP counts block leaders; as in robinson, a block of
// only free/sync counts as a launch (no fuser leaves one alone: merging it
// into its neighbour saves the launch).
#include <algorithm>
#include <mutex>

#include "fusion/cost.hpp"
#include "fusion/cost_machine.hpp"

namespace arrvm::fusion {

namespace {

std::mutex g_mutex;
MachineCosts g_costs;

OpClass class_of(Opcode op) {
  switch (op) {
    case Opcode::Random:
      return OpClass::Random;
    case Opcode::Exp:
    case Opcode::Exp2:
    case Opcode::Expm1:
    case Opcode::Log:
    case Opcode::Log2:
    case Opcode::Log10:
    case Opcode::Log1p:
    case Opcode::Sin:
    case Opcode::Cos:
    case Opcode::Tan:
    case Opcode::Arcsin:
    case Opcode::Arccos:
    case Opcode::Arctan:
    case Opcode::Arctan2:
    case Opcode::Sinh:
    case Opcode::Cosh:
    case Opcode::Tanh:
    case Opcode::Power:
    case Opcode::Sqrt:
      return OpClass::Transcendental;
    default:
      return OpClass::Cheap;
  }
}

}  // namespace

MachineCost::MachineCost()
    : m_(machine_costs()),
      launch_(std::max<Cost>(1, static_cast<Cost>(m_.launch_s * m_.bandwidth + 0.5))),
      bohrium_(make_cost_model("bohrium")) {}

Cost MachineCost::constant(const Graph& g) const {
  double c = 0;
  for (uint32_t i = 0; i < g.size(); ++i) {
    const Instruction& in = g.instruction(i);
    if (is_control(in.op)) continue;
    c += static_cast<double>(in.out.nelem()) * m_.element_s[static_cast<int>(class_of(in.op))] * m_.bandwidth;
  }
  return static_cast<Cost>(c + 0.5) + bohrium_->constant(g);
}

Cost MachineCost::block_cost(const Graph& g, const BlockSummary& b) const {
  return launch_ + bohrium_->block_cost(g, b);
}

Cost MachineCost::saving(const Graph& g, const BlockSummary& a, const BlockSummary& b) const {
  return launch_ + bohrium_->saving(g, a, b);
}

void set_machine_costs(const MachineCosts& costs) {
  std::lock_guard<std::mutex> lock(g_mutex);
  g_costs = costs;
}

MachineCosts machine_costs() {
  std::lock_guard<std::mutex> lock(g_mutex);
  return g_costs;
}

}  // namespace arrvm::fusion
