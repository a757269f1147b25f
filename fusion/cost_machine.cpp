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
//
// Where launches do not matter the term is left out: in a batch where one
// launch per instruction would cost under kLaunchShare (a tenth) of the
// traffic of running the instructions unfused, launch_in(g) = 0 and the
// model is bohrium's plus the constant. There a merge that only saves a
// launch saves a few percent of the blocks' time at most, less than what
// the model does not see: unrelated sweeps in one loop nest stream more
// arrays at once (measured with the term: water_ice 1.3x, nbody_nice under
// ilp 1.4-1.8x slower than bohrium's partition). Decided per batch, not per
// block, so the bonus stays one number per graph, as greedy's unrelated
// merges and the ILP's leader terms need.
#include <algorithm>
#include <mutex>

#include "fusion/cost.hpp"
#include "fusion/cost_machine.hpp"

namespace arrvm::fusion {

namespace {

std::mutex g_mutex;
MachineCosts g_costs;

}  // namespace

OpClass op_class(Opcode op) {
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
    case Opcode::Cbrt:
    case Opcode::Arcsinh:
    case Opcode::Arccosh:
    case Opcode::Arctanh:
    case Opcode::Hypot:
    case Opcode::Cosh:
    case Opcode::Tanh:
    case Opcode::Power:
    case Opcode::Sqrt:
      return OpClass::Transcendental;
    default:
      return OpClass::Cheap;
  }
}

MachineCost::MachineCost()
    : m_(machine_costs()),
      launch_(std::max<Cost>(1, static_cast<Cost>(m_.launch_s * m_.bandwidth + 0.5))),
      bohrium_(make_cost_model("bohrium")) {}

Cost MachineCost::constant(const Graph& g) const {
  double c = 0;
  for (uint32_t i = 0; i < g.size(); ++i) {
    const Instruction& in = g.instruction(i);
    if (is_control(in.op)) continue;
    c += static_cast<double>(in.out.nelem()) * m_.element_s[static_cast<int>(op_class(in.op))] * m_.bandwidth;
  }
  return static_cast<Cost>(c + 0.5) + bohrium_->constant(g);
}

Cost MachineCost::launch_in(const Graph& g) const {
  // Once per graph (saving() runs O(n^2) times): the last graph's answer,
  // for this launch cost (two models may hold different calibrations).
  thread_local uint64_t serial = 0;
  thread_local Cost for_launch = 0, value = 0;
  if (serial == g.serial() && for_launch == launch_) return value;
  double traffic = 0;
  std::size_t kernels = 0;
  for (uint32_t i = 0; i < g.size(); ++i) {
    const Instruction& in = g.instruction(i);
    if (is_control(in.op)) continue;
    ++kernels;
    traffic += static_cast<double>(in.out.nelem() * dtype_size(in.out.dtype));
    for (int j = 0; j < in.nin; ++j) {
      if (!in.in[j].is_const)
        traffic += static_cast<double>(in.in[j].view.nelem() * dtype_size(in.in[j].view.dtype));
    }
  }
  const double launches = static_cast<double>(kernels) * static_cast<double>(launch_);
  value = launches >= kLaunchShare * traffic ? launch_ : 0;  // (no work: launch_, as before)
  serial = g.serial();
  for_launch = launch_;
  return value;
}

Cost MachineCost::merge_bonus(const Graph& g) const {
  return launch_in(g);
}

Cost MachineCost::block_cost(const Graph& g, const BlockSummary& b) const {
  return launch_in(g) + bohrium_->block_cost(g, b);
}

Cost MachineCost::saving(const Graph& g, const BlockSummary& a, const BlockSummary& b) const {
  return launch_in(g) + bohrium_->saving(g, a, b);
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
