#include "vm/instruction.hpp"

#include <cstdio>

namespace arrvm {

namespace {

// (Without GCC's SLP vectorizer: GCC 12.2 at -O2/-O3 merged this switch's
// complex64 and complex128 cases into one vector store of the double parts,
// dropping complex64's rounding to float; test_complex checks it. Clang
// has no such attribute and needs none.)
#if defined(__GNUC__) && !defined(__clang__)
#define ARRVM_NO_SLP __attribute__((optimize("no-tree-slp-vectorize")))
#else
#define ARRVM_NO_SLP
#endif
template <typename From>
ARRVM_NO_SLP Scalar scalar_from(DType dtype, From v) {
  Scalar s;
  s.dtype = dtype;
  visit_dtype(dtype, [&](auto t) {
    using T = decltype(t);
    const T x = cast_value<T>(v);
    if constexpr (kIsComplex<T>) {
      s.f = x.real();
      s.im = x.imag();
    } else if constexpr (std::is_floating_point_v<T>) {
      s.f = x;
    } else if constexpr (std::is_unsigned_v<T> && !std::is_same_v<T, bool>) {
      s.u = x;
    } else {
      s.i = x;
    }
  });
  return s;
}

}  // namespace

Scalar Scalar::of_int(DType dtype, int64_t v) {
  return scalar_from(dtype, v);
}
Scalar Scalar::of_uint(DType dtype, uint64_t v) {
  return scalar_from(dtype, v);
}
Scalar Scalar::of_double(DType dtype, double v) {
  return scalar_from(dtype, v);
}
Scalar Scalar::of_complex(DType dtype, double re, double im) {
  return scalar_from(dtype, std::complex<double>(re, im));
}

template <typename T>
T Scalar::as() const {
  if constexpr (kIsComplex<T>) {
    using P = typename T::value_type;
    return T(static_cast<P>(f), static_cast<P>(im));
  } else if constexpr (std::is_floating_point_v<T>) {
    return static_cast<T>(f);
  } else if constexpr (std::is_unsigned_v<T> && !std::is_same_v<T, bool>) {
    return static_cast<T>(u);
  } else if constexpr (std::is_same_v<T, bool>) {
    return i != 0;
  } else {
    return static_cast<T>(i);
  }
}

#define ARRVM_DTYPE(E, T, N, K) template T Scalar::as<T>() const;
#include "vm/dtypes.def"
#undef ARRVM_DTYPE

std::string to_string(const Scalar& s) {
  char buf[64];
  if (is_complex(s.dtype)) {
    std::snprintf(buf, sizeof buf, "(%.17g%+.17gj)", s.f, s.im);
  } else if (is_float(s.dtype)) {
    std::snprintf(buf, sizeof buf, "%.17g", s.f);
  } else if (is_unsigned_int(s.dtype)) {
    std::snprintf(buf, sizeof buf, "%llu", static_cast<unsigned long long>(s.u));
  } else {
    std::snprintf(buf, sizeof buf, "%lld", static_cast<long long>(s.i));
  }
  return std::string(buf) + ":" + std::string(dtype_name(s.dtype));
}

std::string to_string(const Instruction& instr) {
  std::string s(opcode_name(instr.op));
  if (is_control(instr.op)) return s + " b" + std::to_string(instr.out.base);
  s += " " + to_string(instr.out) + ":" + std::string(dtype_name(instr.out.dtype));
  for (int i = 0; i < instr.nin; ++i) {
    s += (i == 0) ? " <- " : ", ";
    const Operand& o = instr.in[i];
    s += o.is_const ? to_string(o.constant) : to_string(o.view) + ":" + std::string(dtype_name(o.view.dtype));
  }
  const OpKind k = opcode_kind(instr.op);
  if (k == OpKind::Reduce || k == OpKind::Accumulate) s += " axis=" + std::to_string(instr.axis);
  if (instr.op == Opcode::Random) s += " seed=" + std::to_string(instr.seed);
  return s;
}

const Dims& iteration_shape(const Instruction& in) {
  switch (opcode_kind(in.op)) {
    case OpKind::Reduce:
    case OpKind::Accumulate:
    case OpKind::Scatter:
    case OpKind::Compress:
      return in.in[0].view.shape;
    default:
      return in.out.shape;
  }
}

}  // namespace arrvm
