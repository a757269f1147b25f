#include "backends/ref/dense_loops.hpp"

#include "backends/ref/scalar_ops.hpp"

namespace arrvm::ref {

namespace {

// out[i*so] = f(x[i*sx]) for i < n: unit steps as a flat loop the compiler
// vectorizes, any other steps (a column, a reversed view) element by element.
template <typename Res, typename T, typename F>
void map1(Res* o, int64_t so, const T* x, int64_t sx, int64_t n, F f) {
  if (so == 1 && sx == 1) {
    for (int64_t i = 0; i < n; ++i) o[i] = f(x[i]);
    return;
  }
  for (int64_t i = 0; i < n; ++i) o[i * so] = f(x[i * sx]);
}

// out[i*so] = f(x[i*sx], y[i*sy]); a constant is a step of 0.
template <typename Res, typename T, typename F>
void map2(Res* o, int64_t so, const T* x, int64_t sx, const T* y, int64_t sy, int64_t n, F f) {
  if (so == 1 && sx == 1 && sy == 1) {
    for (int64_t i = 0; i < n; ++i) o[i] = f(x[i], y[i]);
  } else if (so == 1 && sx == 1 && sy == 0) {
    const T v = *y;
    for (int64_t i = 0; i < n; ++i) o[i] = f(x[i], v);
  } else if (so == 1 && sx == 0 && sy == 1) {
    const T u = *x;
    for (int64_t i = 0; i < n; ++i) o[i] = f(u, y[i]);
  } else {
    for (int64_t i = 0; i < n; ++i) o[i * so] = f(x[i * sx], y[i * sy]);
  }
}

// An operand's elements: the run's, or its constant's value held in `*slot`.
template <typename T>
const T* elements(const DenseOperand& d, T* slot) {
  if (d.p != nullptr) return static_cast<const T*>(d.p);
  *slot = d.constant->as<T>();
  return slot;
}

template <Opcode Op, typename T>
void unary_loop(const DenseOperand& out, const DenseOperand& a, const DenseOperand&, int64_t n) {
  using Res = decltype(unary<Op>(T{}));
  T u;
  const T* x = elements(a, &u);
  map1(static_cast<Res*>(out.p), out.step, x, a.p ? a.step : 0, n, [](T v) { return unary<Op>(v); });
}

template <Opcode Op, typename T>
void binary_loop(const DenseOperand& out, const DenseOperand& a, const DenseOperand& b, int64_t n) {
  using Res = decltype(binary<Op>(T{}, T{}));
  T u, v;
  const T* x = elements(a, &u);
  const T* y = elements(b, &v);
  map2(static_cast<Res*>(out.p), out.step, x, a.p ? a.step : 0, y, b.p ? b.step : 0, n,
       [](T p, T q) { return binary<Op>(p, q); });
}

template <typename To, typename From>
void cast_loop(const DenseOperand& out, const DenseOperand& a, const DenseOperand&, int64_t n) {
  From u;
  const From* x = elements(a, &u);
  map1(static_cast<To*>(out.p), out.step, x, a.p ? a.step : 0, n, [](From v) { return cast_value<To>(v); });
}

// The loop of one opcode, as ref's Kernel<Elementwise> picks its scalar
// function (the same guards: what ref runs, this runs).
template <Opcode Op, OpKind K, TypeRule R, int Arity>
DenseLoop loop_for(DType in, DType out) {
  if constexpr (K != OpKind::Elementwise || R == TypeRule::Select || (Arity != 1 && Arity != 2)) {
    return nullptr;
  } else if constexpr (R == TypeRule::Cast) {
    return visit_dtype(out, [&](auto to) {
      return visit_dtype(in, [&](auto from) -> DenseLoop {
        using To = decltype(to);
        using From = decltype(from);
        // Not a float to an integer: its range checks, compiled in a flat
        // loop, may be if-converted into a conversion of every element,
        // which raises `invalid` for an infinity that ref's loop answers
        // without converting (flags would then differ from ref's).
        if constexpr ((std::is_floating_point_v<From> || kIsComplex<From>)&&std::is_integral_v<To> &&
                      !std::is_same_v<To, bool>)
          return nullptr;
        else
          return &cast_loop<To, From>;
      });
    });
  } else {
    return visit_dtype(in, [&](auto t) -> DenseLoop {
      using T = decltype(t);
      if constexpr (!op_accepts<Op, R, T>()) {
        return nullptr;
      } else if constexpr (Arity == 1) {
        using Res = decltype(unary<Op>(T{}));
        return dtype_of<Res>() == out ? &unary_loop<Op, T> : nullptr;
      } else {
        using Res = decltype(binary<Op>(T{}, T{}));
        return dtype_of<Res>() == out ? &binary_loop<Op, T> : nullptr;
      }
    });
  }
}

}  // namespace

DenseLoop dense_loop(Opcode op, DType in, DType out) {
  switch (op) {
#define ARRVM_OPCODE(E, N, A, K, R) \
  case Opcode::E:                   \
    return loop_for<Opcode::E, OpKind::K, TypeRule::R, A>(in, out);
#include "vm/opcodes.def"
#undef ARRVM_OPCODE
  }
  return nullptr;
}

bool run_dense(HostMemory& memory, Opcode op, std::span<const DenseRun> in, DenseRun out, DType out_dtype,
               int64_t n) {
  if (in.empty() || in.size() > 2 || n < 0) return false;
  const DType t = in[0].constant != nullptr ? in[0].constant->dtype : memory.find(in[0].base).dtype;
  const DenseLoop loop = dense_loop(op, t, out_dtype);
  if (loop == nullptr) return false;
  DenseOperand x[2];
  for (std::size_t k = 0; k < in.size(); ++k) {
    if (in[k].constant != nullptr) {
      if (in[k].constant->dtype != t) return false;
      x[k].constant = in[k].constant;
      continue;
    }
    const HostMemory::Buffer& b = memory.find(in[k].base);
    if (b.dtype != t || !b.data) return false;
    x[k].p = static_cast<char*>(b.data.get()) + in[k].offset * static_cast<int64_t>(dtype_size(t));
    x[k].step = in[k].stride;
  }
  const HostMemory::Buffer& o = memory.find(out.base);
  ARRVM_ASSERT(o.dtype == out_dtype);
  // (No zero fill where every element is written: a new array's.)
  const bool whole = out.offset == 0 && n == o.nelem && (out.stride == 1 || n <= 1);
  DenseOperand r;
  r.p = static_cast<char*>(memory.for_write(out.base, whole)) +
        out.offset * static_cast<int64_t>(dtype_size(out_dtype));
  r.step = out.stride;
  loop(r, x[0], x[1], n);
  return true;
}

}  // namespace arrvm::ref
