#include "vm/validate.hpp"

#include "vm/base_registry.hpp"
#include "vm/error.hpp"
#include "vm/size.hpp"

namespace arrvm {
namespace {

class Rejection {
 public:
  Rejection(const Instruction& instr, uint64_t index) : instr_(instr), index_(index) {}
  [[noreturn]] void operator()(const std::string& what) const {
    throw Error("instruction #" + std::to_string(index_) + " (" + std::string(opcode_name(instr_.op)) +
                "): " + what + ": " + to_string(instr_));
  }

 private:
  const Instruction& instr_;
  uint64_t index_;
};

std::string operand_name(int i) {
  return i < 0 ? "output" : "input " + std::to_string(i);
}

// True if check_view_bounds has nothing to say (what it checks, without
// building a message: this runs for every view of every instruction).
bool view_in_bounds(const View& v, int64_t nelem) {
  if (v.shape.size() != v.stride.size()) return false;
  int64_t lo = v.offset, hi = v.offset, count = 1;
  for (int i = 0; i < v.rank(); ++i) {
    if (v.shape[i] < 0 || !checked_mul(count, v.shape[i], &count)) return false;
  }
  if (count == 0) return true;
  if (count > kMaxElements) return false;
  for (int i = 0; i < v.rank(); ++i) {
    int64_t span;
    if (!checked_mul(v.shape[i] - 1, v.stride[i], &span)) return false;
    if (!checked_add(span < 0 ? lo : hi, span, span < 0 ? &lo : &hi)) return false;
  }
  return lo >= 0 && hi < nelem;
}

// Resolves a view's base, fills in its dtype and checks its bounds. `operand`
// names it in a rejection (-1: the output); the name is built only then.
void resolve_view(View& v, const BaseRegistry& bases, int operand, const Rejection& reject) {
  const BaseInfo* b = bases.find(v.base);
  if (b == nullptr) {
    reject(operand_name(operand) + (bases.was_freed(v.base) ? " uses freed base b" : " uses unknown base b") +
           std::to_string(v.base));
  }
  v.dtype = b->dtype;
  if (operand < 0) ++b->writes;  // (BaseInfo::writes)
  if (view_in_bounds(v, b->nelem)) return;
  reject(operand_name(operand) + " view " + check_view_bounds(v, b->nelem));
}

bool is_numeric(DType t) {
  return is_integer(t) || is_float(t);
}

// Arithmetic's outputs: numbers, complex numbers included.
bool is_arith(DType t) {
  return is_numeric(t) || is_complex(t);
}

// The dtype check of one elementwise/reduction type rule; returns what is
// wrong or an empty string.
std::string check_types(const Instruction& in, TypeRule rule) {
  const DType out = in.out.dtype;
  auto all_inputs_are = [&](DType t) {
    for (int i = 0; i < in.nin; ++i) {
      if (in.in[i].dtype() != t) return false;
    }
    return true;
  };
  auto inputs_msg = [&](const std::string& need) {
    std::string got;
    for (int i = 0; i < in.nin; ++i) {
      if (i > 0) got += ",";
      got += dtype_name(in.in[i].dtype());  // (appended: see fusion/fuse.cpp's check_fuser_name)
    }
    return "inputs must be " + need + " (got " + got + ", output " + std::string(dtype_name(out)) + ")";
  };
  // The complex-only opcodes: imag (complex -> part), conjugate (complex ->
  // complex), complex (two floats of one type -> complex of that part type).
  if (in.op == Opcode::Imag || in.op == Opcode::Conjugate) {
    const DType t = in.in[0].dtype();
    if (!is_complex(t)) return "needs a complex input, got " + std::string(dtype_name(t));
    const DType want = in.op == Opcode::Imag ? real_dtype(t) : t;
    if (out != want)
      return "of " + std::string(dtype_name(t)) + " has output " + std::string(dtype_name(want));
    return "";
  }
  if (in.op == Opcode::Complex) {
    const DType t = in.in[0].dtype();
    if (!is_float(t) || in.in[1].dtype() != t) return inputs_msg("two of one float dtype");
    if (out != complex_dtype(t))
      return "of " + std::string(dtype_name(t)) + " parts has output " +
             std::string(dtype_name(complex_dtype(t)));
    return "";
  }
  bool complex_operand = is_complex(out);
  for (int i = 0; i < in.nin; ++i) complex_operand |= is_complex(in.in[i].dtype());
  if (complex_operand && rule != TypeRule::Cast && rule != TypeRule::Select && !complex_opcode(in.op)) {
    return "is not defined on complex dtypes";
  }
  if (complex_operand && in.op == Opcode::Absolute) {  // |z| is real
    if (!is_complex(in.in[0].dtype()) || out != real_dtype(in.in[0].dtype()))
      return "of a complex input has its part type as output (got " +
             std::string(dtype_name(in.in[0].dtype())) + " -> " + std::string(dtype_name(out)) + ")";
    return "";
  }
  switch (rule) {
    case TypeRule::Cast:
      return "";
    case TypeRule::Arith:
      if (!is_arith(out))
        return "needs an integer, float or complex output, got " + std::string(dtype_name(out));
      return all_inputs_are(out) ? "" : inputs_msg("of the output dtype");
    case TypeRule::Compare:
      if (out != DType::Bool) return "output must be bool";
      return all_inputs_are(in.in[0].dtype()) ? "" : inputs_msg("of one dtype");
    case TypeRule::Logical:
      if (out != DType::Bool) return "output must be bool";
      return all_inputs_are(DType::Bool) ? "" : inputs_msg("bool");
    case TypeRule::Bitwise:
      if (!is_integer(out) && !is_bool(out)) return "needs an integer or bool output";
      return all_inputs_are(out) ? "" : inputs_msg("of the output dtype");
    case TypeRule::Shift:
      if (!is_integer(out)) return "needs an integer output";
      return all_inputs_are(out) ? "" : inputs_msg("of the output dtype");
    case TypeRule::Float:
      if (!is_float(out) && !is_complex(out))
        return "needs a float output, got " + std::string(dtype_name(out));
      return all_inputs_are(out) ? "" : inputs_msg("of the output dtype");
    case TypeRule::Predicate:
      return out == DType::Bool ? "" : "output must be bool";
    case TypeRule::Select:
      if (in.in[0].dtype() != DType::Bool) return "condition (input 0) must be bool";
      if (in.in[1].dtype() != out || in.in[2].dtype() != out)
        return inputs_msg("bool, then two of the output dtype");
      return "";
    case TypeRule::Numeric:
      if (is_numeric(out) || (in.op == Opcode::Random && is_bool(out))) return "";
      return "cannot generate " + std::string(dtype_name(out));
    case TypeRule::Filter:
      if (in.in[0].dtype() != out) return inputs_msg("the output dtype, then bool");
      return in.in[1].dtype() == DType::Bool ? "" : "mask (input 1) must be bool";
    case TypeRule::Index:
    case TypeRule::Control:
      return "";
  }
  return "";
}

void check_axis(const Instruction& instr, const View& in, const Rejection& reject) {
  if (in.rank() == 0) reject("cannot reduce or scan a 0-d input");
  if (instr.axis < 0 || instr.axis >= in.rank()) {
    reject("axis " + std::to_string(instr.axis) + " is out of range for a " + std::to_string(in.rank()) +
           "-d input");
  }
}

void require_views(const Instruction& instr, const Rejection& reject) {
  for (int i = 0; i < instr.nin; ++i) {
    if (instr.in[i].is_const) reject(operand_name(i) + " must be a view, not a constant");
  }
}

}  // namespace

std::string check_view_bounds(const View& v, int64_t nelem) {
  if (v.shape.size() != v.stride.size()) {
    return "has " + std::to_string(v.shape.size()) + " shape entries but " + std::to_string(v.stride.size()) +
           " strides";
  }
  int64_t lo = v.offset, hi = v.offset, count = 1;
  for (int i = 0; i < v.rank(); ++i) {
    if (v.shape[i] < 0) return "has a negative extent in shape " + to_string(v.shape);
    if (!checked_mul(count, v.shape[i], &count)) return "is too large";
  }
  if (count == 0) return "";  // zero-size views touch nothing
  if (count > kMaxElements) {
    return to_string(v) + " has " + std::to_string(count) + " elements, more than the limit of " +
           std::to_string(kMaxElements);
  }
  for (int i = 0; i < v.rank(); ++i) {
    int64_t span;
    if (!checked_mul(v.shape[i] - 1, v.stride[i], &span)) return "is too large";
    if (!checked_add(span < 0 ? lo : hi, span, span < 0 ? &lo : &hi)) return "is too large";
  }
  if (lo < 0 || hi >= nelem) {
    return to_string(v) + " reaches elements " + std::to_string(lo) + ".." + std::to_string(hi) +
           ", outside its base of " + std::to_string(nelem) + " elements";
  }
  return "";
}

void validate_instruction(Instruction& instr, const BaseRegistry& bases, uint64_t index) {
  const Rejection reject(instr, index);
  if (static_cast<int>(instr.op) >= kOpcodeCount) reject("unknown opcode");
  if (instr.nin != opcode_arity(instr.op)) {
    reject("takes " + std::to_string(opcode_arity(instr.op)) + " inputs, got " + std::to_string(instr.nin));
  }
  const OpKind kind = opcode_kind(instr.op);

  if (kind == OpKind::Free || kind == OpKind::Sync) {
    const BaseInfo* b = bases.find(instr.out.base);
    if (b == nullptr) {
      reject(std::string(bases.was_freed(instr.out.base) ? "base is already freed: b" : "unknown base b") +
             std::to_string(instr.out.base));
    }
    // contiguous_view(base, dtype, {nelem}), in place (a temporary View
    // copied in was most of a free's validation)
    instr.out.dtype = b->dtype;
    instr.out.offset = 0;
    instr.out.shape = Dims{b->nelem};
    instr.out.stride = Dims{1};
    return;
  }

  resolve_view(instr.out, bases, -1, reject);
  for (int i = 0; i < instr.nin; ++i) {
    Operand& o = instr.in[i];
    if (o.is_const) {
      if (static_cast<int>(o.constant.dtype) >= kDTypeCount) {
        reject(operand_name(i) + " has an unknown dtype");
      }
      continue;
    }
    resolve_view(o.view, bases, i, reject);
  }
  if (!is_injective(instr.out)) reject("output view " + to_string(instr.out) + " may write an element twice");

  const TypeRule rule = opcode_type_rule(instr.op);
  switch (kind) {
    case OpKind::Elementwise: {
      for (int i = 0; i < instr.nin; ++i) {
        Operand& o = instr.in[i];
        if (o.is_const) continue;
        if (o.view.shape == instr.out.shape) {  // most operands: only extents of 1 change (stride 0)
          for (int k = 0; k < o.view.rank(); ++k) {
            if (o.view.shape[k] == 1) o.view.stride[k] = 0;
          }
          continue;
        }
        View b;
        if (!broadcast_to(o.view, instr.out.shape, &b)) {
          reject(operand_name(i) + " shape " + to_string(o.view.shape) +
                 " does not broadcast to output shape " + to_string(instr.out.shape));
        }
        o.view = b;
      }
      break;
    }
    case OpKind::Generator:
      break;
    case OpKind::Reduce: {
      require_views(instr, reject);
      const View& in = instr.in[0].view;
      check_axis(instr, in, reject);
      if (instr.out.shape != in.shape.without(instr.axis)) {
        reject("output shape " + to_string(instr.out.shape) + " must be the input shape " +
               to_string(in.shape) + " without axis " + std::to_string(instr.axis));
      }
      if ((instr.op == Opcode::MinimumReduce || instr.op == Opcode::MaximumReduce) &&
          in.shape[instr.axis] == 0) {
        reject("reduction over an empty axis has no identity");
      }
      break;
    }
    case OpKind::Accumulate: {
      require_views(instr, reject);
      const View& in = instr.in[0].view;
      check_axis(instr, in, reject);
      if (instr.out.shape != in.shape) {
        reject("output shape " + to_string(instr.out.shape) + " must equal input shape " +
               to_string(in.shape));
      }
      break;
    }
    case OpKind::Gather:
    case OpKind::Scatter: {
      require_views(instr, reject);
      const bool gather = kind == OpKind::Gather;
      const View& values = gather ? instr.out : instr.in[0].view;
      const View& idx = instr.in[1].view;
      if (idx.dtype != DType::Int64)
        reject("indices (input 1) must be int64, got " + std::string(dtype_name(idx.dtype)));
      const View& data = gather ? instr.in[0].view : instr.out;
      if (data.dtype != values.dtype) {
        reject(std::string(gather ? "source" : "values") + " dtype " +
               std::string(dtype_name(gather ? data.dtype : values.dtype)) + " differs from " +
               (gather ? "output" : "target") + " dtype " +
               std::string(dtype_name(gather ? values.dtype : data.dtype)));
      }
      if (gather) {
        if (idx.shape != instr.out.shape) {
          reject("indices shape " + to_string(idx.shape) + " must equal output shape " +
                 to_string(instr.out.shape));
        }
      } else {
        View b;
        if (!broadcast_to(instr.in[0].view, idx.shape, &b)) {
          reject("values shape " + to_string(instr.in[0].view.shape) +
                 " does not broadcast to indices shape " + to_string(idx.shape));
        }
        instr.in[0].view = b;
      }
      break;
    }
    case OpKind::Compress: {
      require_views(instr, reject);
      const View& data = instr.in[0].view;
      const View& mask = instr.in[1].view;
      if (data.rank() != 1 || mask.rank() != 1 || instr.out.rank() != 1)
        reject("compress takes 1-D views (values, mask and output)");
      if (mask.shape != data.shape) {
        reject("mask shape " + to_string(mask.shape) + " must equal values shape " + to_string(data.shape));
      }
      // The output is a whole base with room for every element: how many
      // it receives is known only when the compress runs.
      const BaseInfo* b = bases.find(instr.out.base);
      if (instr.out.offset != 0 || instr.out.shape[0] != b->nelem ||
          (b->nelem > 1 && instr.out.stride[0] != 1) || b->nelem < data.shape[0]) {
        reject("the output must be a whole 1-D base of at least " + std::to_string(data.shape[0]) +
               " elements");
      }
      break;
    }
    case OpKind::Free:
    case OpKind::Sync:
      break;
  }
  if (kind != OpKind::Gather && kind != OpKind::Scatter) {
    const std::string bad = check_types(instr, rule);
    if (!bad.empty()) reject(bad);
  }
}

bool input_needs_copy(const Instruction& instr, int i) {
  const Operand& o = instr.in[i];
  if (o.is_const || !may_overlap(instr.out, o.view)) return false;
  // An elementwise op reads each element before it writes the same one.
  return opcode_kind(instr.op) != OpKind::Elementwise || !same_elements(instr.out, o.view);
}

Dims copy_shape(const View& v) {
  Dims shape;
  for (int k = 0; k < v.rank(); ++k) shape.push_back(v.stride[k] == 0 ? 1 : v.shape[k]);
  return shape;
}

Instruction redirect_to_copy(Instruction* instr, int i, BaseId tmp) {
  View& view = instr->in[i].view;
  const Dims shape = copy_shape(view);
  Instruction copy;
  copy.op = Opcode::Identity;
  copy.out = contiguous_view(tmp, view.dtype, shape);
  View src = view;
  src.shape = shape;
  copy.add_input(Operand::of(src));
  View reread = contiguous_view(tmp, view.dtype, shape);
  reread.shape = view.shape;
  for (int k = 0; k < view.rank(); ++k) {
    if (shape[k] == 1) reread.stride[k] = 0;
  }
  view = reread;
  return copy;
}

}  // namespace arrvm
