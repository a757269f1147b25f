// The VM's floating-point flags (vm/fp_flags.hpp): what the work of a flush
// or an eager instruction raised, with the instructions that may have raised
// it, kept for the frontend (Vm::take_fp_flags; Python: NumPy's errstate).
#include <algorithm>
#include <string>

#include "backends/backend.hpp"
#include "engine/runtime.hpp"
#include "vm/fp_flags.hpp"

namespace arrvm {

namespace {

// Whether `in` orders floating-point values (<, <=, >, >=, maximum, minimum,
// their reductions, sign, isfinite, isinf): compiled and vectorized, such a
// comparison of a NaN raises the invalid flag (GCC picks signaling
// predicates even for C99's quiet isless), where NumPy's comparison loops
// clear it. The VM cannot tell that flag from a real invalid operation's.
bool orders_floats(const Instruction& in) {
  switch (in.op) {
    case Opcode::Less:
    case Opcode::LessEqual:
    case Opcode::Greater:
    case Opcode::GreaterEqual:
    case Opcode::Maximum:
    case Opcode::Minimum:
    case Opcode::MaximumReduce:
    case Opcode::MinimumReduce:
    case Opcode::MaximumAccumulate:
    case Opcode::MinimumAccumulate:
    case Opcode::Sign:
    case Opcode::Isfinite:
    case Opcode::Isinf:
      return in.nin > 0 && is_float(in.in[0].dtype());
    default:
      return false;
  }
}

}  // namespace

void Runtime::note_fp_flags(std::span<const Instruction> batch) {
  uint32_t f = fp_flags_take();  // (this thread first: the backend's team includes it)
  f |= backend_->take_fp_flags();
  if (f == 0) return;
  // Invalid from work that orders floats may be a NaN compared, which NumPy
  // does not report: then it is not reported (a real invalid operation in
  // the same work goes unreported too; docs/semantics.md).
  if ((f & kFpInvalid) != 0 && std::any_of(batch.begin(), batch.end(), orders_floats)) f &= ~kFpInvalid;
  if (f == 0) return;
  fp_flags_ |= f;
  // The instructions that may have raised them, by name (NumPy's messages
  // name the ufunc): the floating-point ones, a conversion as "cast" (a
  // copy raises nothing), and integer divisions (ARRVM_DIV0), whose
  // floor division NumPy calls floor_divide.
  for (const Instruction& in : batch) {
    if (fp_ops_.size() >= 8) break;
    if (is_control(in.op)) continue;
    bool fp = is_float(in.out.dtype);
    for (int k = 0; k < in.nin && !fp; ++k) fp = is_float(in.in[k].dtype());
    const bool int_division = !fp && (in.op == Opcode::Divide || in.op == Opcode::Mod);
    if (!fp && !int_division) continue;
    // (Only a float's conversion to an integer or a narrower float can raise.)
    if (in.op == Opcode::Identity &&
        (in.nin != 1 || !is_float(in.in[0].dtype()) ||
         (is_float(in.out.dtype) && dtype_size(in.out.dtype) >= dtype_size(in.in[0].dtype()))))
      continue;
    const std::string name = in.op == Opcode::Identity                 ? "cast"
                             : int_division && in.op == Opcode::Divide ? "floor_divide"
                                                                       : std::string(opcode_name(in.op));
    if (std::find(fp_ops_.begin(), fp_ops_.end(), name) == fp_ops_.end()) fp_ops_.push_back(name);
  }
}

uint32_t Runtime::take_fp_flags(std::vector<std::string>* ops) {
  const uint32_t f = fp_flags_;
  fp_flags_ = 0;
  if (ops != nullptr) *ops = std::move(fp_ops_);
  fp_ops_.clear();
  return f;
}

}  // namespace arrvm
