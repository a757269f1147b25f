// The runtime's eager path (Config::eager, ARRVM_EAGER): small work issued
// when nothing is pending runs at once, instruction by instruction on the
// backend's host memory (Backend::run_now: ref's loops), instead of waiting
// in a batch for a flush, a fusion and a compile. What it is for: NumPy
// programs that loop in Python over small arrays and read scalars back
// (each read would otherwise flush a short batch that misses the merge
// cache: a fusion and a lookup of tens of microseconds for work of a
// microsecond), and a cold first run, which compiles nothing for them.
//
// An instruction goes eager when the batch was empty before it (so every
// input is computed and the order of the stream is kept), its views have at
// most Config::eager elements each, and nothing the batch rewrites keep
// books on is involved: no length class or compress (vm/length_class.hpp),
// no padded base (rewrite/copy_back.hpp), no poisoned input (the batch path
// names the error). The VM's overlap copies and their frees, issued with
// it, run with it. Larger work, and everything issued while a batch is
// pending, is batched as before: a large computation still fuses whole,
// and small work issued inside it fuses with it. Semantics are the batch
// path's (docs/semantics.md): a run-time error poisons what the
// instruction writes (contain_failure), the trace records the same stream.
#include <algorithm>
#include <numeric>

#include "backends/backend.hpp"
#include "engine/runtime.hpp"
#include "vm/error.hpp"
#include "vm/fp_flags.hpp"
#include "vm/interrupt.hpp"

namespace arrvm {

bool Runtime::eager_ok() const {
  if (!eager_) return false;
  const bool classes = bases_.filtered_count() != 0;
  auto plain = [&](BaseId b) {
    if (copy_back_.involves(b)) return false;
    if (!classes) return true;
    const BaseInfo* info = bases_.find(b);
    return info == nullptr || info->klass < 0;
  };
  for (const Instruction& in : batch_) {
    if (in.op == Opcode::Free) {
      if (!plain(in.out.base)) return false;
      continue;
    }
    if (is_control(in.op) || in.length_class >= 0 || in.op == Opcode::Compress) return false;
    if (in.out.nelem() > config_.eager || !plain(in.out.base)) return false;
    if (!poisoned_.empty() && poisoned_.count(in.out.base) != 0) return false;
    for (int k = 0; k < in.nin; ++k) {
      const Operand& o = in.in[k];
      if (!o.is_const && (o.view.nelem() > config_.eager || !plain(o.view.base))) return false;
    }
  }
  return true;
}

void Runtime::run_eager() {
  if (!watched_.empty()) watch(batch_);  // (what a flush of it would note)
  block_scratch_.resize(batch_.size());
  std::iota(block_scratch_.begin(), block_scratch_.end(), 0u);
  std::exception_ptr interrupted;
  fp_flags_take();  // (what the caller's own arithmetic raised is not the VM's)
  try {
    // (Not timed: two clock reads cost as much as a small instruction; the
    // profile's "unaccounted" holds eager work.)
    backend_->run_now(batch_, block_scratch_);
    if (fp_flags_read() != 0) note_fp_flags(batch_);
  } catch (const InternalError&) {
    batch_.clear();
    batch_origin_.clear();
    forget_touched();
    throw;
  } catch (...) {
    note_fp_flags(batch_);
    Partition partition;
    partition.blocks.push_back(block_scratch_);
    contain_failure(partition, 0, std::current_exception());
    if (is_interrupt(std::current_exception())) interrupted = std::current_exception();
  }
  for (const Instruction& in : batch_) {
    if (in.op == Opcode::Free) {
      if (!adopted_.empty()) adopted_.erase(in.out.base);
      copy_back_.freed(in.out.base);
    } else {
      ++profile_.eager;
    }
  }
  batch_.clear();
  batch_origin_.clear();
  forget_touched();
  if (interrupted) std::rethrow_exception(interrupted);
}

namespace {

// The lowest and highest element a run of n > 0 elements touches; false
// if that overflows or leaves a base of `nelem` elements.
bool run_range(const DenseRun& d, int64_t n, int64_t nelem, int64_t* lo, int64_t* hi) {
  int64_t span = 0, last = 0;
  if (__builtin_mul_overflow(n - 1, d.stride, &span) || __builtin_add_overflow(d.offset, span, &last))
    return false;
  *lo = std::min(d.offset, last);
  *hi = std::max(d.offset, last);
  return *lo >= 0 && *hi < nelem;
}

}  // namespace

bool Runtime::run_dense_now(Opcode op, std::span<const DenseRun> in, DenseRun out, DType out_dtype,
                            int64_t n) {
  if (!dense_now_ok(n) || n <= 0 || opcode_kind(op) != OpKind::Elementwise ||
      static_cast<std::size_t>(opcode_arity(op)) != in.size())
    return false;
  // What validation, the overlap rule and the eager path's conditions
  // would check: every base live and plain, every run inside its base, the
  // output's run injective, an input on the output's base either its very
  // elements (each read before it is written) or apart from them.
  const BaseInfo* o = bases_.find(out.base);
  int64_t out_lo = 0, out_hi = 0;
  if (o == nullptr || o->dtype != out_dtype || !run_range(out, n, o->nelem, &out_lo, &out_hi) ||
      (out.stride == 0 && n > 1) || copy_back_.involves(out.base))
    return false;
  for (const DenseRun& d : in) {
    if (d.constant != nullptr) {
      if (static_cast<int>(d.constant->dtype) >= kDTypeCount) return false;
      continue;
    }
    const BaseInfo* b = bases_.find(d.base);
    int64_t lo = 0, hi = 0;
    if (b == nullptr || !run_range(d, n, b->nelem, &lo, &hi) || copy_back_.involves(d.base)) return false;
    if (d.base == out.base && !(d.offset == out.offset && (d.stride == out.stride || n == 1)) &&
        !(hi < out_lo || lo > out_hi))
      return false;
  }
  fp_flags_take();  // (what the caller's own arithmetic raised is not the VM's)
  try {
    if (!backend_->run_dense_now(op, in, out, out_dtype, n)) return false;
  } catch (const Error&) {
    return false;  // (the instruction path runs it again, and contains the failure)
  }
  if (fp_flags_read() != 0) {
    // The instruction it was, for the names of what raised them.
    Instruction instr;
    instr.op = op;
    instr.out.dtype = out_dtype;
    for (const DenseRun& d : in) {
      Operand& x = instr.in[instr.nin++];
      x.is_const = d.constant != nullptr;
      if (x.is_const) {
        x.constant = *d.constant;
      } else {
        x.view.dtype = bases_.find(d.base)->dtype;
      }
    }
    note_fp_flags({&instr, 1});
  }
  ++issued_;
  ++profile_.instructions;
  ++profile_.eager;
  ++profile_.eager_direct;
  ++o->writes;  // (as validation counts an output: BaseInfo::writes)
  report_fp();
  return true;
}

}  // namespace arrvm
