#include "backends/ref/dense_loops.hpp"

#include "backends/ref/scalar_ops.hpp"

namespace arrvm::ref {

namespace {

template <Opcode Op, typename T>
void unary_loop(void* out, const void* a, const void*, const Scalar* ca, const Scalar*, int64_t n) {
  using Res = decltype(unary<Op>(T{}));
  Res* o = static_cast<Res*>(out);
  if (a == nullptr) {
    const T v = ca->as<T>();
    for (int64_t i = 0; i < n; ++i) o[i] = unary<Op>(v);
    return;
  }
  const T* x = static_cast<const T*>(a);
  for (int64_t i = 0; i < n; ++i) o[i] = unary<Op>(x[i]);
}

template <Opcode Op, typename T>
void binary_loop(void* out, const void* a, const void* b, const Scalar* ca, const Scalar* cb, int64_t n) {
  using Res = decltype(binary<Op>(T{}, T{}));
  Res* o = static_cast<Res*>(out);
  const T* x = static_cast<const T*>(a);
  const T* y = static_cast<const T*>(b);
  if (x != nullptr && y != nullptr) {
    for (int64_t i = 0; i < n; ++i) o[i] = binary<Op>(x[i], y[i]);
  } else if (x != nullptr) {
    const T v = cb->as<T>();
    for (int64_t i = 0; i < n; ++i) o[i] = binary<Op>(x[i], v);
  } else if (y != nullptr) {
    const T u = ca->as<T>();
    for (int64_t i = 0; i < n; ++i) o[i] = binary<Op>(u, y[i]);
  } else {
    const T u = ca->as<T>(), v = cb->as<T>();
    for (int64_t i = 0; i < n; ++i) o[i] = binary<Op>(u, v);
  }
}

// The loop of one opcode, as ref's Kernel<Elementwise> picks its scalar
// function (the same guards: what ref runs, this runs).
template <Opcode Op, OpKind K, TypeRule R, int Arity>
DenseLoop loop_for(DType in, DType out) {
  if constexpr (K != OpKind::Elementwise || R == TypeRule::Cast || R == TypeRule::Select ||
                (Arity != 1 && Arity != 2)) {
    return nullptr;
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
  const void* p[2] = {nullptr, nullptr};
  const Scalar* c[2] = {nullptr, nullptr};
  for (std::size_t k = 0; k < in.size(); ++k) {
    if (in[k].constant != nullptr) {
      if (in[k].constant->dtype != t) return false;
      c[k] = in[k].constant;
      continue;
    }
    const HostMemory::Buffer& b = memory.find(in[k].base);
    if (b.dtype != t || !b.data) return false;
    ARRVM_ASSERT(in[k].offset >= 0 && in[k].offset <= b.nelem - n);
    p[k] = static_cast<const char*>(b.data.get()) + static_cast<std::size_t>(in[k].offset) * dtype_size(t);
  }
  const HostMemory::Buffer& o = memory.find(out.base);
  ARRVM_ASSERT(o.dtype == out_dtype && out.offset >= 0 && out.offset <= o.nelem - n);
  // (No zero fill where every element is written: a new array's.)
  char* dst = static_cast<char*>(memory.for_write(out.base, out.offset == 0 && n == o.nelem)) +
              static_cast<std::size_t>(out.offset) * dtype_size(out_dtype);
  loop(dst, p[0], p[1], c[0], c[1], n);
  return true;
}

}  // namespace arrvm::ref
