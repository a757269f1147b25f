// Elementwise operations of the C++ array API: NumPy type resolution (weak
// scalars, promotion, the casts NumPy's ufunc loops imply), broadcasting, and
// the instructions that compute them.
#include "arrvm/arrvm.hpp"

#include <algorithm>
#include <initializer_list>
#include <limits>
#include <optional>
#include <vector>

#include "frontend/array_internal.hpp"
#include "vm/error.hpp"

namespace arrvm {
namespace frontend {
namespace {

// An operand as the user gave it: an array, or a number (weak, NumPy 2).
struct Arg {
  Arg(const Array& a) : array(&a) {}
  Arg(const HostScalar& s) : scalar(&s) {}
  const Array* array = nullptr;
  const HostScalar* scalar = nullptr;
};

// An operand ready for an instruction, of the op's input dtype: the caller's array when it has the
// dtype already (no handle copied: an Array copy allocates its shape and
// strides), a cast copy otherwise, or a constant.
struct Prepared {
  const Array* ref = nullptr;  // the caller's array, alive until the instruction is issued
  Array owned;                 // else: a cast copy
  bool is_const = false;
  Scalar constant;

  const Array& array() const { return ref ? *ref : owned; }
};

std::string name_of(Opcode op) {
  return std::string(opcode_name(op));
}

bool is_int_kind(HostScalar::Kind k) {
  return k == HostScalar::Kind::Int || k == HostScalar::Kind::UInt;
}

// True if an integer scalar is representable in the integer dtype `d`.
bool fits(const HostScalar& s, DType d) {
  return visit_dtype(d, [&](auto t) {
    using T = decltype(t);
    if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
      constexpr auto lo = std::numeric_limits<T>::min();
      constexpr auto hi = std::numeric_limits<T>::max();
      if (s.kind() == HostScalar::Kind::UInt) return s.as_uint() <= static_cast<uint64_t>(hi);
      const int64_t v = s.as_int();
      if constexpr (std::is_signed_v<T>) {
        return v >= static_cast<int64_t>(lo) && v <= static_cast<int64_t>(hi);
      } else {
        return v >= 0 && static_cast<uint64_t>(v) <= static_cast<uint64_t>(hi);
      }
    }
    return true;
  });
}

std::string scalar_text(const HostScalar& s) {
  switch (s.kind()) {
    case HostScalar::Kind::UInt:
      return std::to_string(s.as_uint());
    case HostScalar::Kind::Float:
      return std::to_string(s.as_double());
    case HostScalar::Kind::Complex:
      return "(" + std::to_string(s.as_double()) + (s.imag() < 0 ? "" : "+") + std::to_string(s.imag()) +
             "j)";
    default:
      return std::to_string(s.as_int());
  }
}

// NumPy 2's dtype for array (dtype d) op scalar: the scalar takes the array's
// dtype if that can hold its kind. An integer that does not fit is an error
// (NumPy's OverflowError), except in comparisons, which NumPy evaluates
// exactly: there the computation moves to a dtype that holds both.
DType weak_dtype(DType d, const HostScalar& s, bool comparison, const char* what) {
  DType r = d;
  if (s.kind() == HostScalar::Kind::Float && !is_float(d) && !is_complex(d)) r = DType::Float64;
  // A complex number next to a float array keeps its precision (float32 *
  // 1j is complex64), next to an integer or bool one it is complex128.
  if (s.kind() == HostScalar::Kind::Complex && !is_complex(d))
    r = is_float(d) ? complex_dtype(d) : DType::Complex128;
  if (is_int_kind(s.kind()) && is_bool(d)) r = DType::Int64;
  if (is_int_kind(s.kind()) && is_integer(r) && !fits(s, r)) {
    const DType natural =
        s.kind() == HostScalar::Kind::UInt && !fits(s, DType::Int64) ? DType::UInt64 : DType::Int64;
    if (!comparison || !fits(s, natural)) {
      throw Error(std::string(what) + ": integer " + scalar_text(s) + " is out of bounds for " +
                  std::string(dtype_name(r)));
    }
    r = promote(r, natural);
  }
  return r;
}

// The common dtype of two operands (at least one an array).
DType common_dtype(const Arg& a, const Arg& b, bool comparison, const char* what) {
  if (a.array && b.array) return promote(a.array->dtype(), b.array->dtype());
  if (a.array) return weak_dtype(a.array->dtype(), *b.scalar, comparison, what);
  return weak_dtype(b.array->dtype(), *a.scalar, comparison, what);
}

Prepared prepare(const Arg& a, DType in) {
  Prepared p;
  if (a.array) {
    if (a.array->dtype() == in) {
      p.ref = a.array;
    } else {
      p.owned = copy_as(*a.array, in);
    }
  } else {
    p.is_const = true;
    p.constant = to_scalar(*a.scalar, in);
  }
  return p;
}

Prepared prepared(const Array& a) {
  Prepared p;
  p.ref = &a;
  return p;
}

// The eager path without an instruction (Runtime::run_dense_now): `op` on
// inputs that each are one run of their base (ArrayAccess::run) of one
// shape, 0-d arrays or constants, into `target` (one run, of that shape
// and out_dtype) or else a new array `*made`, run at once where the VM
// can. false where it cannot; then `*made` is the new output if it was
// made (emit issues into it).
bool run_dense(Opcode op, DType out_dtype, const Prepared* ins, std::size_t n, const Array* target,
               Array* made) {
  const Array* shaped = nullptr;  // the input whose shape is the result's
  for (std::size_t k = 0; k < n; ++k) {
    if (ins[k].is_const) continue;
    if (shaped == nullptr || shaped->ndim() == 0) shaped = &ins[k].array();
  }
  if (shaped == nullptr) return false;
  const std::shared_ptr<Runtime>& rt = runtime_ptr(*shaped);
  const int64_t count = shaped->size();
  if (!rt->dense_now_ok(count)) return false;
  DenseRun out;
  if (target != nullptr && (target->dtype() != out_dtype || runtime_ptr(*target) != rt ||
                            target->shape() != shaped->shape() || !ArrayAccess::run(*target, &out.stride)))
    return false;
  DenseRun in[3];
  for (std::size_t k = 0; k < n; ++k) {
    const Prepared& p = ins[k];
    if (p.is_const) {
      in[k].constant = &p.constant;
      continue;
    }
    const Array& a = p.array();
    if (runtime_ptr(a) != rt) return false;
    if (&a != shaped && a.ndim() != 0 && a.shape() != shaped->shape()) return false;
    if (!ArrayAccess::run(a, &in[k].stride)) return false;
    if (a.ndim() == 0) in[k].stride = 0;  // (one element for every element of the result)
    in[k].base = ArrayAccess::base(a).id;
    in[k].offset = ArrayAccess::offset(a);
  }
  if (target != nullptr) {
    out.base = ArrayAccess::base(*target).id;
    out.offset = ArrayAccess::offset(*target);
  } else {
    *made = new_array(rt, out_dtype, to_dims(shaped->shape()));
    out.base = ArrayAccess::base(*made).id;
  }
  return rt->run_dense_now(op, {in, n}, out, out_dtype, count);
}

// Issues `op` over the broadcast shape of `ins` into a new array of
// `out_dtype`, or straight into `target` when it has that dtype and shape
// (the VM copies inputs that overlap it). With any other target, the
// result is then cast and written into the target's view.
Array emit(Opcode op, DType out_dtype, const Prepared* ins, std::size_t n, const Array* target) {
  ARRVM_ASSERT(n <= 3);
  if (target) check_writeable(*target);  // (before anything is issued)
  Array made;
  if (run_dense(op, out_dtype, ins, n, target, &made)) {
    if (target) return *target;
    return made;  // (moved: a copy would allocate its shape again)
  }
  const std::shared_ptr<Runtime>* rt = nullptr;
  Dims shape;
  Instruction instr;
  instr.op = op;
  // Each operand's view is built once, straight into the instruction (no
  // temporary View or Operand: copies of them were most of emit's time).
  for (std::size_t k = 0; k < n; ++k) {
    const Prepared& p = ins[k];
    Operand& o = instr.in[instr.nin++];
    if (p.is_const) {
      o.is_const = true;
      o.constant = p.constant;
      continue;
    }
    const Array& a = p.array();
    if (rt && *rt != runtime_ptr(a)) throw Error(name_of(op) + ": the arrays belong to different Vms");
    ArrayAccess::view_into(a, &o.view);
    const Dims& s = o.view.shape;
    if (!rt) {
      shape = s;
    } else if (!(s == shape)) {
      shape = broadcast_shapes(shape, s, opcode_name(op).data());
    }
    rt = &runtime_ptr(a);
  }
  ARRVM_ASSERT(rt != nullptr);
  if (target && target->dtype() == out_dtype && to_dims(target->shape()) == shape) {
    if (runtime_ptr(*target) != *rt) throw Error(name_of(op) + ": the arrays belong to different Vms");
    instr.out = view_of(*target);
    runtime_of(*target).issue(instr);
    return *target;
  }
  Array r = made.valid() ? std::move(made) : new_array(*rt, out_dtype, shape);
  // view_of(r), made from what r was made of, in place
  instr.out.base = ArrayAccess::base(r).id;
  instr.out.dtype = out_dtype;
  instr.out.shape = shape;
  instr.out.stride = row_major_strides(shape);
  runtime_of(r).issue(instr);
  if (target) {
    write_into(*target, r);
    return *target;
  }
  return r;
}

Array emit(Opcode op, DType out_dtype, std::initializer_list<Prepared> ins, const Array* target) {
  return emit(op, out_dtype, ins.begin(), ins.size(), target);
}

enum class Division { None, True, Floor };

struct Plan {
  Opcode op;
  DType in;
  DType out;
};

// Which instruction computes a NumPy binary ufunc on operands of dtype `c`.
Plan plan_binary(Opcode op, Division div, DType c) {
  // (Built only for an error: this runs once per operation.)
  auto what = [&] { return div == Division::Floor ? std::string("floor_divide") : name_of(op); };
  // (logical_and/or/xor take a complex operand's truth: either part nonzero)
  if (is_complex(c) && opcode_type_rule(op) != TypeRule::Logical &&
      (!complex_opcode(op) || div == Division::Floor))
    throw Error(what() + ": not supported for complex operands");
  switch (opcode_type_rule(op)) {
    case TypeRule::Arith:
      if (is_bool(c)) {
        // NumPy's bool loops: + and max are "or", * and min are "and".
        switch (op) {
          case Opcode::Add:
          case Opcode::Maximum:
            return {Opcode::LogicalOr, c, c};
          case Opcode::Multiply:
          case Opcode::Minimum:
            return {Opcode::LogicalAnd, c, c};
          case Opcode::Subtract:
            throw Error("subtract: not supported for bool operands (NumPy); use logical_xor");
          default:
            break;
        }
        if (op == Opcode::Divide && div == Division::True) return {op, DType::Float64, DType::Float64};
        return {op, DType::Int8, DType::Int8};  // power, mod, floor_divide
      }
      if (op == Opcode::Divide && div == Division::True && !is_float(c) && !is_complex(c)) {
        return {op, DType::Float64, DType::Float64};
      }
      return {op, c, c};
    case TypeRule::Compare:
      return {op, c, DType::Bool};
    case TypeRule::Logical:
      return {op, DType::Bool, DType::Bool};
    case TypeRule::Bitwise:
      if (is_float(c)) throw Error(what() + ": not supported for float operands");
      return {op, c, c};
    case TypeRule::Shift:
      if (is_float(c)) throw Error(what() + ": not supported for float operands");
      return {op, is_bool(c) ? DType::Int8 : c, is_bool(c) ? DType::Int8 : c};
    case TypeRule::Float:
      return {op, is_float(c) ? c : DType::Float64, is_float(c) ? c : DType::Float64};
    default:
      break;
  }
  throw InternalError("plan_binary: " + what() + " is not a binary elementwise opcode");
}

Array float_floor_divide(const Prepared& x, const Prepared& y, DType t, const Array* target);

// NumPy's 'same_kind' casting of a ufunc's result into out= (and into the
// left operand of an in-place operator): allowed when the result's kind
// comes no later than out's in bool < unsigned < signed < float < complex, so
// float64 -> float32 and uint64 -> int8 pass, float -> int and int -> uint
// raise (as numpy.can_cast(from, to, 'same_kind')).
int kind_rank(DType t) {
  return is_bool(t) ? 0 : is_unsigned_int(t) ? 1 : is_signed_int(t) ? 2 : is_float(t) ? 3 : 4;
}

void check_output_cast(std::string_view ufunc, DType result, DType out) {
  if (kind_rank(result) <= kind_rank(out)) return;
  throw Error("Cannot cast ufunc '" + std::string(ufunc) + "' output from dtype('" +
              std::string(dtype_name(result)) + "') to dtype('" + std::string(dtype_name(out)) +
              "') with casting rule 'same_kind'");
}

Array binary(Opcode op, Division div, const Arg& a, const Arg& b, const Array* target) {
  const bool comparison = opcode_type_rule(op) == TypeRule::Compare;
  // opcode names are NUL-terminated literals (the opcode table)
  const char* what = div == Division::Floor ? "floor_divide" : opcode_name(op).data();
  if (a.array && b.array) common_runtime(*a.array, *b.array);
  const Plan plan = plan_binary(op, div, common_dtype(a, b, comparison, what));
  if (target) check_output_cast(what, plan.out, target->dtype());
  // NumPy: an integer power with a negative integer exponent is an error (an
  // exponent array is checked by NumPy when it runs; a number here).
  if (op == Opcode::Power && !is_float(plan.in) && !is_complex(plan.in) && !is_bool(plan.in) &&
      b.scalar != nullptr && b.scalar->kind() == HostScalar::Kind::Int && b.scalar->as_int() < 0) {
    throw Error("Integers to negative integer powers are not allowed.");
  }
  const Prepared ins[2] = {prepare(a, plan.in), prepare(b, plan.in)};
  if (div == Division::Floor && is_float(plan.in)) return float_floor_divide(ins[0], ins[1], plan.in, target);
  // NumPy's fast paths for a float array to a constant power (its
  // fast_scalar_power): x**2 is x*x, x**0.5 sqrt(x), x**-1 1/x, x**1 a copy,
  // the values NumPy gives (pow's differ in the last bit, and at -0.0 and
  // -inf for 0.5) at the cost of a multiply instead of a pow. x**3, which
  // NumPy leaves to pow, is the cube rounded once (the cube opcode: pow's
  // value where pow rounds correctly, at about x*x*x's cost).
  if (op == Opcode::Power && is_float(plan.in) && !ins[0].is_const && ins[1].is_const) {
    const double e = ins[1].constant.f;
    if (e == 2.0) return emit(Opcode::Multiply, plan.out, {ins[0], ins[0]}, target);
    if (e == 3.0) return emit(Opcode::Cube, plan.out, {ins[0]}, target);
    if (e == 0.5) return emit(Opcode::Sqrt, plan.out, {ins[0]}, target);
    if (e == 1.0) return emit(Opcode::Identity, plan.out, {ins[0]}, target);
    if (e == -1.0) {
      const HostScalar one(1.0);
      return emit(Opcode::Divide, plan.out, {prepare(Arg(one), plan.in), ins[0]}, target);
    }
  }
  // A complex z**2 is NumPy's cmul(z, z) (npy_cpow's n == 2), a multiply.
  if (op == Opcode::Power && is_complex(plan.in) && !ins[0].is_const && ins[1].is_const &&
      ins[1].constant.f == 2.0 && ins[1].constant.im == 0.0) {
    return emit(Opcode::Multiply, plan.out, {ins[0], ins[0]}, target);
  }
  return emit(plan.op, plan.out, ins, 2, target);
}

// NumPy's float floor_divide (npy_divmod): (x - remainder(x, y)) / y rounded
// to the nearest integer (it is an integer up to rounding error), x / y where y is
// zero, and a zero result carries the sign of x / y.
Array float_floor_divide(const Prepared& x, const Prepared& y, DType t, const Array* target) {
  auto arg = [&](const Prepared& p, std::optional<HostScalar>& hold) -> Arg {
    if (!p.is_const) return Arg(p.array());
    hold.emplace(p.constant.f);
    return Arg(*hold);
  };
  std::optional<HostScalar> hx, hy;
  const Arg ax = arg(x, hx), ay = arg(y, hy);
  if (y.is_const && y.constant.f == 0) return binary(Opcode::Divide, Division::True, ax, ay, target);
  const HostScalar zero(0.0);
  const Array m = binary(Opcode::Mod, Division::None, ax, ay, nullptr);
  const Array diff = binary(Opcode::Subtract, Division::None, ax, m, nullptr);
  const Array r = rint(binary(Opcode::Divide, Division::True, diff, ay, nullptr));
  const Array d = binary(Opcode::Divide, Division::True, ax, ay, nullptr);
  const Array r_is_zero = binary(Opcode::Equal, Division::None, r, zero, nullptr);
  const Array signed_zero = binary(Opcode::Multiply, Division::None, d, zero, nullptr);
  if (y.is_const)
    return emit(Opcode::Where, t, {prepared(r_is_zero), prepared(signed_zero), prepared(r)}, target);
  const Array fixed =
      emit(Opcode::Where, t, {prepared(r_is_zero), prepared(signed_zero), prepared(r)}, nullptr);
  const Array y_is_zero = binary(Opcode::Equal, Division::None, ay, zero, nullptr);
  return emit(Opcode::Where, t, {prepared(y_is_zero), prepared(d), prepared(fixed)}, target);
}

Array unary(Opcode op, const Array& a) {
  const DType d = a.dtype();
  const std::string what = name_of(op);
  Plan plan{op, d, d};
  if (op == Opcode::Conjugate && !is_complex(d))
    return emit(Opcode::Identity, d, {prepare(Arg(a), d)}, nullptr);
  if (is_complex(d)) {
    if (!complex_opcode(op) && opcode_type_rule(op) != TypeRule::Logical)
      throw Error(what + ": not supported for complex operands");
    if (op == Opcode::Absolute || op == Opcode::Imag) plan.out = real_dtype(d);
    if (opcode_type_rule(op) == TypeRule::Predicate) plan.out = DType::Bool;
    if (opcode_type_rule(op) == TypeRule::Logical) plan = {op, DType::Bool, DType::Bool};
    return emit(plan.op, plan.out, {prepare(Arg(a), plan.in)}, nullptr);
  }
  switch (opcode_type_rule(op)) {
    case TypeRule::Arith:
      if (is_bool(d)) {
        if (op == Opcode::Absolute) {
          plan = {Opcode::Identity, d, d};
        } else {
          throw Error(what + ": not supported for bool (NumPy); use invert or logical_not");
        }
      }
      break;
    case TypeRule::Logical:
      plan = {op, DType::Bool, DType::Bool};
      break;
    case TypeRule::Bitwise:
      if (is_float(d)) throw Error(what + ": not supported for float operands");
      break;
    case TypeRule::Float:
      if (!is_float(d)) plan = {op, DType::Float64, DType::Float64};
      break;
    case TypeRule::Predicate:
      plan.out = DType::Bool;
      break;
    default:
      throw InternalError("unary: " + what + " is not a unary elementwise opcode");
  }
  return emit(plan.op, plan.out, {prepare(Arg(a), plan.in)}, nullptr);
}

// where: cond cast to bool; a and b promoted (numbers weakly); all broadcast.
Array select(const Array& cond, const Arg& a, const Arg& b) {
  DType t;
  if (a.array || b.array) {
    if (a.array) common_runtime(cond, *a.array);
    if (b.array) common_runtime(cond, *b.array);
    t = common_dtype(a, b, false, "where");
  } else {
    auto kind_rank = [](HostScalar::Kind k) {
      return k == HostScalar::Kind::Complex ? 3 : k == HostScalar::Kind::Float ? 2 : is_int_kind(k) ? 1 : 0;
    };
    const int k = std::max(kind_rank(a.scalar->kind()), kind_rank(b.scalar->kind()));
    t = k == 3 ? DType::Complex128 : k == 2 ? DType::Float64 : k == 1 ? DType::Int64 : DType::Bool;
  }
  return emit(Opcode::Where, t, {prepare(Arg(cond), DType::Bool), prepare(a, t), prepare(b, t)}, nullptr);
}

}  // namespace
}  // namespace frontend

using frontend::Division;

// ---- binary functions ----

#define ARRVM_DEFINE_BINARY(name, opcode, division)                             \
  Array name(const Array& a, const Array& b) {                                  \
    return frontend::binary(Opcode::opcode, Division::division, a, b, nullptr); \
  }                                                                             \
  Array name(const Array& a, HostScalar b) {                                    \
    return frontend::binary(Opcode::opcode, Division::division, a, b, nullptr); \
  }                                                                             \
  Array name(HostScalar a, const Array& b) {                                    \
    return frontend::binary(Opcode::opcode, Division::division, a, b, nullptr); \
  }
ARRVM_DEFINE_BINARY(add, Add, None)
ARRVM_DEFINE_BINARY(subtract, Subtract, None)
ARRVM_DEFINE_BINARY(multiply, Multiply, None)
ARRVM_DEFINE_BINARY(divide, Divide, True)
ARRVM_DEFINE_BINARY(true_divide, Divide, True)
ARRVM_DEFINE_BINARY(floor_divide, Divide, Floor)
ARRVM_DEFINE_BINARY(power, Power, None)
ARRVM_DEFINE_BINARY(mod, Mod, None)
ARRVM_DEFINE_BINARY(remainder, Mod, None)
ARRVM_DEFINE_BINARY(maximum, Maximum, None)
ARRVM_DEFINE_BINARY(minimum, Minimum, None)
ARRVM_DEFINE_BINARY(equal, Equal, None)
ARRVM_DEFINE_BINARY(not_equal, NotEqual, None)
ARRVM_DEFINE_BINARY(less, Less, None)
ARRVM_DEFINE_BINARY(less_equal, LessEqual, None)
ARRVM_DEFINE_BINARY(greater, Greater, None)
ARRVM_DEFINE_BINARY(greater_equal, GreaterEqual, None)
ARRVM_DEFINE_BINARY(logical_and, LogicalAnd, None)
ARRVM_DEFINE_BINARY(logical_or, LogicalOr, None)
ARRVM_DEFINE_BINARY(logical_xor, LogicalXor, None)
ARRVM_DEFINE_BINARY(bitwise_and, BitwiseAnd, None)
ARRVM_DEFINE_BINARY(bitwise_or, BitwiseOr, None)
ARRVM_DEFINE_BINARY(bitwise_xor, BitwiseXor, None)
ARRVM_DEFINE_BINARY(left_shift, LeftShift, None)
ARRVM_DEFINE_BINARY(right_shift, RightShift, None)
ARRVM_DEFINE_BINARY(arctan2, Arctan2, None)
ARRVM_DEFINE_BINARY(hypot, Hypot, None)
#undef ARRVM_DEFINE_BINARY

// ---- unary functions ----

#define ARRVM_DEFINE_UNARY(name, opcode)       \
  Array name(const Array& a) {                 \
    return frontend::unary(Opcode::opcode, a); \
  }
ARRVM_DEFINE_UNARY(logical_not, LogicalNot)
ARRVM_DEFINE_UNARY(invert, Invert)
ARRVM_DEFINE_UNARY(negative, Negative)
ARRVM_DEFINE_UNARY(absolute, Absolute)
ARRVM_DEFINE_UNARY(sign, Sign)
ARRVM_DEFINE_UNARY(sqrt, Sqrt)
ARRVM_DEFINE_UNARY(exp, Exp)
ARRVM_DEFINE_UNARY(exp2, Exp2)
ARRVM_DEFINE_UNARY(expm1, Expm1)
ARRVM_DEFINE_UNARY(log, Log)
ARRVM_DEFINE_UNARY(log2, Log2)
ARRVM_DEFINE_UNARY(log10, Log10)
ARRVM_DEFINE_UNARY(log1p, Log1p)
ARRVM_DEFINE_UNARY(sin, Sin)
ARRVM_DEFINE_UNARY(cos, Cos)
ARRVM_DEFINE_UNARY(tan, Tan)
ARRVM_DEFINE_UNARY(arcsin, Arcsin)
ARRVM_DEFINE_UNARY(arccos, Arccos)
ARRVM_DEFINE_UNARY(arctan, Arctan)
ARRVM_DEFINE_UNARY(sinh, Sinh)
ARRVM_DEFINE_UNARY(cosh, Cosh)
ARRVM_DEFINE_UNARY(tanh, Tanh)
ARRVM_DEFINE_UNARY(cbrt, Cbrt)
ARRVM_DEFINE_UNARY(arcsinh, Arcsinh)
ARRVM_DEFINE_UNARY(arccosh, Arccosh)
ARRVM_DEFINE_UNARY(arctanh, Arctanh)
ARRVM_DEFINE_UNARY(floor, Floor)
ARRVM_DEFINE_UNARY(ceil, Ceil)
ARRVM_DEFINE_UNARY(trunc, Trunc)
ARRVM_DEFINE_UNARY(rint, Rint)
ARRVM_DEFINE_UNARY(isnan, Isnan)
ARRVM_DEFINE_UNARY(isinf, Isinf)
ARRVM_DEFINE_UNARY(isfinite, Isfinite)
ARRVM_DEFINE_UNARY(conjugate, Conjugate)
#undef ARRVM_DEFINE_UNARY

Array real(const Array& a) {
  return is_complex(a.dtype()) ? a.astype(real_dtype(a.dtype())) : a.astype(a.dtype());
}

Array imag(const Array& a) {
  if (is_complex(a.dtype())) return frontend::unary(Opcode::Imag, a);
  return Array::zeros(a.shape(), a.dtype(), a.vm());
}

Array make_complex(const Array& re, const Array& im) {
  frontend::common_runtime(re, im);
  DType t = promote(re.dtype(), im.dtype());
  if (is_complex(t)) throw Error("make_complex: the parts must be real, got " + std::string(dtype_name(t)));
  if (!is_float(t)) t = DType::Float64;
  using frontend::Arg;
  return frontend::emit(Opcode::Complex, complex_dtype(t),
                        {frontend::prepare(Arg(re), t), frontend::prepare(Arg(im), t)}, nullptr);
}

// ---- where ----

Array where(const Array& cond, const Array& a, const Array& b) {
  return frontend::select(cond, a, b);
}
Array where(const Array& cond, const Array& a, HostScalar b) {
  return frontend::select(cond, a, b);
}
Array where(const Array& cond, HostScalar a, const Array& b) {
  return frontend::select(cond, a, b);
}
Array where(const Array& cond, HostScalar a, HostScalar b) {
  return frontend::select(cond, a, b);
}

// ---- in-place operators: the result is cast into this view ----

#define ARRVM_DEFINE_INPLACE(op, opcode, division)                        \
  Array& Array::operator op(const Array& b) {                             \
    frontend::binary(Opcode::opcode, Division::division, *this, b, this); \
    return *this;                                                         \
  }                                                                       \
  Array& Array::operator op(HostScalar b) {                               \
    frontend::binary(Opcode::opcode, Division::division, *this, b, this); \
    return *this;                                                         \
  }
ARRVM_DEFINE_INPLACE(+=, Add, None)
ARRVM_DEFINE_INPLACE(-=, Subtract, None)
ARRVM_DEFINE_INPLACE(*=, Multiply, None)
ARRVM_DEFINE_INPLACE(/=, Divide, True)
ARRVM_DEFINE_INPLACE(%=, Mod, None)
ARRVM_DEFINE_INPLACE(&=, BitwiseAnd, None)
ARRVM_DEFINE_INPLACE(|=, BitwiseOr, None)
ARRVM_DEFINE_INPLACE(^=, BitwiseXor, None)
ARRVM_DEFINE_INPLACE(<<=, LeftShift, None)
ARRVM_DEFINE_INPLACE(>>=, RightShift, None)
#undef ARRVM_DEFINE_INPLACE

}  // namespace arrvm

// ---- ufuncs by name (bindings: the Python package) ----

namespace arrvm {
namespace {

struct UfuncEntry {
  const char* name;
  int arity;
  Opcode op;
  frontend::Division div;
  bool floats_only;  // fabs: NumPy's loop is for floats (ints are cast to float64)
};

using frontend::Division;

// NumPy's ufunc names (and aliases) with the instruction each one is.
const UfuncEntry kUfuncs[] = {
    {"add", 2, Opcode::Add, Division::None, false},
    {"subtract", 2, Opcode::Subtract, Division::None, false},
    {"multiply", 2, Opcode::Multiply, Division::None, false},
    {"divide", 2, Opcode::Divide, Division::True, false},
    {"true_divide", 2, Opcode::Divide, Division::True, false},
    {"floor_divide", 2, Opcode::Divide, Division::Floor, false},
    {"power", 2, Opcode::Power, Division::None, false},
    {"mod", 2, Opcode::Mod, Division::None, false},
    {"remainder", 2, Opcode::Mod, Division::None, false},
    {"maximum", 2, Opcode::Maximum, Division::None, false},
    {"minimum", 2, Opcode::Minimum, Division::None, false},
    {"equal", 2, Opcode::Equal, Division::None, false},
    {"not_equal", 2, Opcode::NotEqual, Division::None, false},
    {"less", 2, Opcode::Less, Division::None, false},
    {"less_equal", 2, Opcode::LessEqual, Division::None, false},
    {"greater", 2, Opcode::Greater, Division::None, false},
    {"greater_equal", 2, Opcode::GreaterEqual, Division::None, false},
    {"logical_and", 2, Opcode::LogicalAnd, Division::None, false},
    {"logical_or", 2, Opcode::LogicalOr, Division::None, false},
    {"logical_xor", 2, Opcode::LogicalXor, Division::None, false},
    {"bitwise_and", 2, Opcode::BitwiseAnd, Division::None, false},
    {"bitwise_or", 2, Opcode::BitwiseOr, Division::None, false},
    {"bitwise_xor", 2, Opcode::BitwiseXor, Division::None, false},
    {"left_shift", 2, Opcode::LeftShift, Division::None, false},
    {"right_shift", 2, Opcode::RightShift, Division::None, false},
    {"arctan2", 2, Opcode::Arctan2, Division::None, false},
    {"hypot", 2, Opcode::Hypot, Division::None, false},
    {"logical_not", 1, Opcode::LogicalNot, Division::None, false},
    {"invert", 1, Opcode::Invert, Division::None, false},
    {"bitwise_not", 1, Opcode::Invert, Division::None, false},
    {"negative", 1, Opcode::Negative, Division::None, false},
    {"absolute", 1, Opcode::Absolute, Division::None, false},
    {"abs", 1, Opcode::Absolute, Division::None, false},
    {"fabs", 1, Opcode::Absolute, Division::None, true},
    {"sign", 1, Opcode::Sign, Division::None, false},
    {"sqrt", 1, Opcode::Sqrt, Division::None, false},
    {"exp", 1, Opcode::Exp, Division::None, false},
    {"exp2", 1, Opcode::Exp2, Division::None, false},
    {"expm1", 1, Opcode::Expm1, Division::None, false},
    {"log", 1, Opcode::Log, Division::None, false},
    {"log2", 1, Opcode::Log2, Division::None, false},
    {"log10", 1, Opcode::Log10, Division::None, false},
    {"log1p", 1, Opcode::Log1p, Division::None, false},
    {"sin", 1, Opcode::Sin, Division::None, false},
    {"cos", 1, Opcode::Cos, Division::None, false},
    {"tan", 1, Opcode::Tan, Division::None, false},
    {"arcsin", 1, Opcode::Arcsin, Division::None, false},
    {"arccos", 1, Opcode::Arccos, Division::None, false},
    {"arctan", 1, Opcode::Arctan, Division::None, false},
    {"sinh", 1, Opcode::Sinh, Division::None, false},
    {"cosh", 1, Opcode::Cosh, Division::None, false},
    {"tanh", 1, Opcode::Tanh, Division::None, false},
    {"cbrt", 1, Opcode::Cbrt, Division::None, false},
    {"arcsinh", 1, Opcode::Arcsinh, Division::None, false},
    {"arccosh", 1, Opcode::Arccosh, Division::None, false},
    {"arctanh", 1, Opcode::Arctanh, Division::None, false},
    {"floor", 1, Opcode::Floor, Division::None, false},
    {"ceil", 1, Opcode::Ceil, Division::None, false},
    {"trunc", 1, Opcode::Trunc, Division::None, false},
    {"rint", 1, Opcode::Rint, Division::None, false},
    {"isnan", 1, Opcode::Isnan, Division::None, false},
    {"isinf", 1, Opcode::Isinf, Division::None, false},
    {"isfinite", 1, Opcode::Isfinite, Division::None, false},
    {"conjugate", 1, Opcode::Conjugate, Division::None, false},
    {"conj", 1, Opcode::Conjugate, Division::None, false},
};

const UfuncEntry* find_ufunc(std::string_view name) {
  for (const UfuncEntry& e : kUfuncs) {
    if (name == e.name) return &e;
  }
  return nullptr;
}

}  // namespace

int ufunc_arity(std::string_view name) {
  const UfuncEntry* e = find_ufunc(name);
  return e ? e->arity : 0;
}

Array ufunc(std::string_view name, const std::vector<ArrayOrScalar>& args, const Array* out) {
  const UfuncEntry* e = find_ufunc(name);
  const std::string what(name);
  if (!e) throw Error("ufunc: '" + what + "' is not a ufunc libarrvm computes");
  if (static_cast<int>(args.size()) != e->arity) {
    throw Error(what + ": takes " + std::to_string(e->arity) + " operand(s), got " +
                std::to_string(args.size()));
  }
  auto arg = [](const ArrayOrScalar& x) {
    return std::holds_alternative<Array>(x) ? frontend::Arg(std::get<Array>(x))
                                            : frontend::Arg(std::get<HostScalar>(x));
  };
  if (e->arity == 2) {
    if (!std::holds_alternative<Array>(args[0]) && !std::holds_alternative<Array>(args[1])) {
      throw Error(what + ": at least one operand must be an array");
    }
    return frontend::binary(e->op, e->div, arg(args[0]), arg(args[1]), out);
  }
  if (!std::holds_alternative<Array>(args[0])) throw Error(what + ": the operand must be an array");
  Array a = std::get<Array>(args[0]);
  if (e->floats_only && is_complex(a.dtype())) throw Error(what + ": not supported for complex operands");
  if (e->floats_only && !is_float(a.dtype())) a = a.astype(DType::Float64);
  Array r = frontend::unary(e->op, a);
  if (!out) return r;
  frontend::check_output_cast(what, r.dtype(), out->dtype());
  frontend::write_into(*out, r);
  return *out;
}

}  // namespace arrvm
