#include "backends/ref/ref_kernels.hpp"

#include <algorithm>
#include <array>
#include <cstdlib>
#include <string>
#include <type_traits>

#include "backends/backend.hpp"
#include "backends/philox.hpp"
#include "backends/ref/ref_iterate.hpp"
#include "backends/ref/scalar_ops.hpp"
#include "vm/error.hpp"

namespace arrvm::ref {

namespace {

// ---- operands ----------------------------------------------------------------

// An operand as a pointer plus element offset and strides. Constants and views
// of never-written bases become stride-0 reads of a single element, so that
// every loop below handles views only.
template <typename T>
struct In {
  const T* p = nullptr;
  int64_t offset = 0;
  Dims stride;
  const T& at(int64_t off) const { return p[off]; }
};

template <typename T>
struct Out {
  T* p = nullptr;
  int64_t offset = 0;
  Dims stride;
};

template <typename T>
const T* zero_element() {
  static const T zero{};
  return &zero;
}

[[noreturn]] void invalid(const Instruction& instr, const std::string& what) {
  throw InternalError("ref backend: " + what + " in `" + to_string(instr) + "`");
}

// The view must lie inside its base and carry the base's dtype; a violation
// is a validator bug, caught here rather than as memory corruption.
void check_view(const Instruction& instr, const View& v, const BaseMemory& m, DType want) {
  if (v.dtype != m.dtype || v.dtype != want) invalid(instr, "unexpected dtype of " + to_string(v));
  if (v.shape.size() != v.stride.size()) invalid(instr, "shape/stride rank mismatch in " + to_string(v));
  int64_t lo = 0, hi = 0;
  if (element_range(v, &lo, &hi) && (lo < 0 || hi >= m.nelem)) {
    invalid(instr, "view " + to_string(v) + " outside its base of " + std::to_string(m.nelem) + " elements");
  }
}

// The elements `instr` writes if it writes every element of its output
// view and reads nothing of the output's base (so a base it is the first
// to write needs no zero fill: the view is injective), else 0.
int64_t writes_all(const Instruction& instr) {
  switch (opcode_kind(instr.op)) {
    case OpKind::Elementwise:
    case OpKind::Generator:
    case OpKind::Accumulate:
      break;
    case OpKind::Reduce:  // (over an empty axis without an identity it throws instead)
      if (instr.nin < 1 || instr.in[0].is_const || instr.axis < 0 || instr.axis >= instr.in[0].view.rank() ||
          instr.in[0].view.shape[instr.axis] == 0)
        return 0;
      break;
    default:
      return 0;
  }
  for (int k = 0; k < instr.nin; ++k) {
    if (!instr.in[k].is_const && instr.in[k].view.base == instr.out.base) return 0;
  }
  return instr.out.nelem();
}

template <typename T>
Out<T> out_operand(const Instruction& instr, const View& v, MemoryAccess& mem) {
  const BaseMemory m = mem.for_write(v.base, &v == &instr.out ? writes_all(instr) : 0);
  check_view(instr, v, m, dtype_of<T>());
  return {static_cast<T*>(m.data), v.offset, v.stride};
}

// `rank` is the rank of the loop the operand takes part in (for constants).
// `constant` is storage for a constant's value that outlives the In.
template <typename T>
In<T> in_operand(const Instruction& instr, const Operand& o, int rank, MemoryAccess& mem, T* constant) {
  if (o.is_const) {
    if (o.constant.dtype != dtype_of<T>()) invalid(instr, "unexpected constant dtype");
    *constant = o.constant.as<T>();
    return {constant, 0, Dims::filled(rank, 0)};
  }
  const BaseMemory m = mem.for_read(o.view.base);
  check_view(instr, o.view, m, dtype_of<T>());
  if (m.data == nullptr) return {zero_element<T>(), 0, Dims::filled(o.view.rank(), 0)};
  return {static_cast<const T*>(m.data), o.view.offset, o.view.stride};
}

// ---- kernels by kind -----------------------------------------------------------

template <OpKind K>
struct Kernel;

template <>
struct Kernel<OpKind::Elementwise> {
  template <Opcode Op, TypeRule R, int Arity>
  static void run(const Instruction& instr, MemoryAccess& mem) {
    if (instr.out.nelem() == 0) return;
    if (instr.nin != Arity) invalid(instr, "wrong number of inputs");
    for (int i = 0; i < instr.nin; ++i) {
      if (!instr.in[i].is_const && instr.in[i].view.shape != instr.out.shape) {
        invalid(instr, "input " + std::to_string(i) + " not broadcast to the output shape");
      }
    }
    if constexpr (R == TypeRule::Cast) {
      visit_dtype(instr.out.dtype, [&](auto to) {
        using To = decltype(to);
        visit_dtype(instr.in[0].dtype(), [&](auto from) {
          using From = decltype(from);
          loop<To, From>(instr, mem, [](From a) { return cast_value<To>(a); });
        });
      });
    } else if constexpr (R == TypeRule::Select) {
      visit_dtype(instr.out.dtype, [&](auto t) {
        using T = decltype(t);
        const int rank = instr.out.rank();
        bool c0 = false;
        T c1{}, c2{};
        const Out<T> o = out_operand<T>(instr, instr.out, mem);
        const In<bool> cond = in_operand<bool>(instr, instr.in[0], rank, mem, &c0);
        const In<T> a = in_operand<T>(instr, instr.in[1], rank, mem, &c1);
        const In<T> b = in_operand<T>(instr, instr.in[2], rank, mem, &c2);
        for_each_index<4>(
            instr.out.shape, {o.offset, cond.offset, a.offset, b.offset},
            {&o.stride, &cond.stride, &a.stride, &b.stride},
            [&](const std::array<int64_t, 4>& x) { o.p[x[0]] = cond.at(x[1]) ? a.at(x[2]) : b.at(x[3]); });
      });
    } else {
      visit_dtype(instr.in[0].dtype(), [&](auto t) {
        using T = decltype(t);
        if constexpr (!op_accepts<Op, R, T>()) {
          invalid(instr, "dtype not accepted by the opcode");
        } else if constexpr (Arity == 1) {
          using Res = decltype(unary<Op>(T{}));
          loop<Res, T>(instr, mem, [](T a) { return unary<Op>(a); });
        } else {
          using Res = decltype(binary<Op>(T{}, T{}));
          loop<Res, T>(instr, mem, [](T a, T b) { return binary<Op>(a, b); });
        }
      });
    }
  }

 private:
  // out[i] = f(in0[i]) or f(in0[i], in1[i]): every input has out's shape.
  template <typename Res, typename T, typename F>
  static void loop(const Instruction& instr, MemoryAccess& mem, F f) {
    const int rank = instr.out.rank();
    T c[2]{};
    const Out<Res> o = out_operand<Res>(instr, instr.out, mem);
    const In<T> a = in_operand<T>(instr, instr.in[0], rank, mem, &c[0]);
    const Dims& shape = instr.out.shape;
    // Dense operands (the common case, and the eager path's) run as flat
    // loops the compiler vectorizes; the rest through for_each_index.
    const bool flat = dense(shape, o.stride);
    const int64_t n = shape.product();
    Res* out = o.p + o.offset;
    // Rows at unit step (the output's last axis at unit step, each input's
    // at unit or zero step: a slice of a matrix, a row or a column
    // broadcast): a flat loop per row, as dense operands get one in all.
    const int last = rank - 1;
    const int64_t inner = rank >= 1 ? shape[last] : 0;
    const bool rows =
        rank >= 2 && inner > 1 && o.stride[last] == 1 && (a.stride[last] == 0 || a.stride[last] == 1);
    if constexpr (std::is_invocable_v<F, T>) {
      if (flat && dense(shape, a.stride)) {
        const T* x = a.p + a.offset;
        for (int64_t i = 0; i < n; ++i) out[i] = f(x[i]);
        return;
      }
      if (rows) {
        const Dims outer = shape.without(last), os = o.stride.without(last), as = a.stride.without(last);
        const bool step = a.stride[last] == 1;
        for_each_index<2>(outer, {o.offset, a.offset}, {&os, &as}, [&](const std::array<int64_t, 2>& x) {
          Res* r = o.p + x[0];
          const T* u = a.p + x[1];
          if (step) {
            for (int64_t i = 0; i < inner; ++i) r[i] = f(u[i]);
          } else {
            const T v = *u;
            for (int64_t i = 0; i < inner; ++i) r[i] = f(v);
          }
        });
        return;
      }
      for_each_element<2>(instr.out.shape, {o.offset, a.offset}, {&o.stride, &a.stride},
                          [&](const std::array<int64_t, 2>& x) { o.p[x[0]] = f(a.at(x[1])); });
    } else {
      const In<T> b = in_operand<T>(instr, instr.in[1], rank, mem, &c[1]);
      if (flat) {
        const T* x = a.p + a.offset;
        const T* y = b.p + b.offset;
        const bool dx = dense(shape, a.stride), dy = dense(shape, b.stride);
        if (dx && dy) {
          for (int64_t i = 0; i < n; ++i) out[i] = f(x[i], y[i]);
          return;
        }
        if (dx && single(b.stride)) {
          const T v = *y;
          for (int64_t i = 0; i < n; ++i) out[i] = f(x[i], v);
          return;
        }
        if (single(a.stride) && dy) {
          const T v = *x;
          for (int64_t i = 0; i < n; ++i) out[i] = f(v, y[i]);
          return;
        }
      }
      if (rows && (b.stride[last] == 0 || b.stride[last] == 1)) {
        const Dims outer = shape.without(last), os = o.stride.without(last), as = a.stride.without(last),
                   bs = b.stride.without(last);
        const bool sx = a.stride[last] == 1, sy = b.stride[last] == 1;
        for_each_index<3>(outer, {o.offset, a.offset, b.offset}, {&os, &as, &bs},
                          [&](const std::array<int64_t, 3>& x) {
                            Res* r = o.p + x[0];
                            const T* u = a.p + x[1];
                            const T* w = b.p + x[2];
                            if (sx && sy) {
                              for (int64_t i = 0; i < inner; ++i) r[i] = f(u[i], w[i]);
                            } else if (sx) {
                              const T v = *w;
                              for (int64_t i = 0; i < inner; ++i) r[i] = f(u[i], v);
                            } else if (sy) {
                              const T v = *u;
                              for (int64_t i = 0; i < inner; ++i) r[i] = f(v, w[i]);
                            } else {
                              const T v = *u, z = *w;
                              for (int64_t i = 0; i < inner; ++i) r[i] = f(v, z);
                            }
                          });
        return;
      }
      for_each_element<3>(instr.out.shape, {o.offset, a.offset, b.offset}, {&o.stride, &a.stride, &b.stride},
                          [&](const std::array<int64_t, 3>& x) { o.p[x[0]] = f(a.at(x[1]), b.at(x[2])); });
    }
  }
};

template <>
struct Kernel<OpKind::Generator> {
  template <Opcode Op, TypeRule R, int Arity>
  static void run(const Instruction& instr, MemoryAccess& mem) {
    if (instr.out.nelem() == 0) return;
    visit_dtype(instr.out.dtype, [&](auto t) {
      using T = decltype(t);
      if constexpr (kIsComplex<T>) {
        invalid(instr, "dtype not accepted by the opcode");
      } else {
        generate<Op, T>(instr, mem);
      }
    });
  }

 private:
  template <Opcode Op, typename T>
  static void generate(const Instruction& instr, MemoryAccess& mem) {
    {
      const Out<T> o = out_operand<T>(instr, instr.out, mem);
      int64_t i = 0;  // the row-major flat index in the output's shape
      for_each_index<1>(instr.out.shape, {o.offset}, {&o.stride}, [&](const std::array<int64_t, 1>& x) {
        if constexpr (Op == Opcode::Range) {
          o.p[x[0]] = cast_value<T>(i);
        } else {
          static_assert(Op == Opcode::Random);
          o.p[x[0]] = random_value<T>(instr.seed, static_cast<uint64_t>(i));
        }
        ++i;
      });
    }
  }
};

// Shared checks of reductions and scans: one view input, a valid axis.
void check_axis(const Instruction& instr) {
  if (instr.nin != 1 || instr.in[0].is_const) invalid(instr, "reduction input must be one view");
  if (instr.axis < 0 || instr.axis >= instr.in[0].view.rank()) invalid(instr, "axis out of range");
}

template <>
struct Kernel<OpKind::Reduce> {
  template <Opcode Op, TypeRule R, int Arity>
  static void run(const Instruction& instr, MemoryAccess& mem) {
    check_axis(instr);
    const View& src = instr.in[0].view;
    if (instr.out.shape != src.shape.without(instr.axis)) invalid(instr, "reduction output shape");
    if (instr.out.nelem() == 0) return;
    visit_dtype(src.dtype, [&](auto t) {
      using T = decltype(t);
      if constexpr (!op_accepts<Op, R, T>()) {
        invalid(instr, "dtype not accepted by the opcode");
      } else {
        using Red = Reducer<Op>;
        T unused{};
        const Out<T> o = out_operand<T>(instr, instr.out, mem);
        const In<T> a = in_operand<T>(instr, instr.in[0], src.rank(), mem, &unused);
        const int64_t n = src.shape[instr.axis];
        const int64_t step = a.stride[instr.axis];
        const Dims a_outer = a.stride.without(instr.axis);
        if (n == 0) {
          if constexpr (HasIdentity<Op>) {
            for_each_index<1>(instr.out.shape, {o.offset}, {&o.stride}, [&](const std::array<int64_t, 1>& x) {
              o.p[x[0]] = Red::template identity<T>();
            });
            return;
          } else {
            throw Error(std::string(opcode_name(Op)) + " over an empty axis in `" + to_string(instr) + "`");
          }
        }
        // Start from the first element (not the identity) so that e.g. the
        // sum of [-0.0] is -0.0, as in NumPy.
        // The accumulator's dtype (accumulator_dtype: float64 for a float32 sum).
        using Acc = std::conditional_t<
            Op == Opcode::AddReduce && std::is_same_v<T, float>, double,
            std::conditional_t<Op == Opcode::AddReduce && std::is_same_v<T, std::complex<float>>,
                               std::complex<double>, T>>;
        static_assert(dtype_of<Acc>() == accumulator_dtype(Op, dtype_of<T>()));
        if constexpr (std::is_same_v<Acc, T>) {
          // Along an axis the input steps over more than along another
          // (a column sum, `X.mean(axis=0)`): the output accumulates a
          // slice at a time, so the input is read once in its order, not
          // once a column with a row's stride. Each output element combines
          // the same elements in the same order as below: equal bits.
          int64_t least = -1;  // the smallest step of the other axes that move
          for (int d = 0; d < src.rank(); ++d) {
            if (d != instr.axis && src.shape[d] > 1 && (least < 0 || std::abs(a.stride[d]) < least))
              least = std::abs(a.stride[d]);
          }
          if (least >= 0 && std::abs(step) > least && src.base != instr.out.base) {
            for_each_index<2>(instr.out.shape, {o.offset, a.offset}, {&o.stride, &a_outer},
                              [&](const std::array<int64_t, 2>& x) { o.p[x[0]] = a.at(x[1]); });
            for (int64_t k = 1; k < n; ++k) {
              for_each_index<2>(
                  instr.out.shape, {o.offset, a.offset + k * step}, {&o.stride, &a_outer},
                  [&](const std::array<int64_t, 2>& x) { o.p[x[0]] = Red::combine(o.p[x[0]], a.at(x[1])); });
            }
            return;
          }
        }
        if constexpr ((Op == Opcode::MinimumReduce || Op == Opcode::MaximumReduce) && kIsFloat<T>) {
          if (step == 1) {  // (a row's extreme: four chains, the fold's bits)
            for_each_index<2>(instr.out.shape, {o.offset, a.offset}, {&o.stride, &a_outer},
                              [&](const std::array<int64_t, 2>& x) {
                                o.p[x[0]] = float_extreme<Op == Opcode::MaximumReduce>(&a.at(x[1]), n);
                              });
            return;
          }
        }
        for_each_index<2>(instr.out.shape, {o.offset, a.offset}, {&o.stride, &a_outer},
                          [&](const std::array<int64_t, 2>& x) {
                            Acc acc = a.at(x[1]);
                            for (int64_t k = 1; k < n; ++k)
                              acc = Red::combine(acc, static_cast<Acc>(a.at(x[1] + k * step)));
                            o.p[x[0]] = static_cast<T>(acc);
                          });
      }
    });
  }
};

template <>
struct Kernel<OpKind::Accumulate> {
  template <Opcode Op, TypeRule R, int Arity>
  static void run(const Instruction& instr, MemoryAccess& mem) {
    check_axis(instr);
    const View& src = instr.in[0].view;
    if (instr.out.shape != src.shape) invalid(instr, "scan output shape");
    if (instr.out.nelem() == 0) return;
    visit_dtype(src.dtype, [&](auto t) {
      using T = decltype(t);
      if constexpr (!op_accepts<Op, R, T>()) {
        invalid(instr, "dtype not accepted by the opcode");
      } else {
        using Red = Reducer<Op>;
        T unused{};
        const int axis = instr.axis;
        const Out<T> o = out_operand<T>(instr, instr.out, mem);
        const In<T> a = in_operand<T>(instr, instr.in[0], src.rank(), mem, &unused);
        const int64_t n = src.shape[axis];
        const int64_t o_step = o.stride[axis], a_step = a.stride[axis];
        const Dims o_outer = o.stride.without(axis), a_outer = a.stride.without(axis);
        for_each_index<2>(src.shape.without(axis), {o.offset, a.offset}, {&o_outer, &a_outer},
                          [&](const std::array<int64_t, 2>& x) {
                            T acc = a.at(x[1]);
                            o.p[x[0]] = acc;
                            for (int64_t k = 1; k < n; ++k) {
                              acc = Red::combine(acc, a.at(x[1] + k * a_step));
                              o.p[x[0] + k * o_step] = acc;
                            }
                          });
      }
    });
  }
};

// Every index of `idx` (shape `shape`) must lie in [0, limit); checked before
// anything is written, so a failing gather/scatter leaves memory untouched.
void check_indices(const Instruction& instr, const In<int64_t>& idx, const Dims& shape, int64_t limit) {
  for_each_index<1>(shape, {idx.offset}, {&idx.stride}, [&](const std::array<int64_t, 1>& x) {
    const int64_t v = idx.at(x[0]);
    if (v < 0 || v >= limit) throw index_error(instr, v);
  });
}

void check_index_operands(const Instruction& instr, const Dims& idx_shape) {
  if (instr.nin != 2 || instr.in[1].is_const) invalid(instr, "expected a value operand and an index view");
  if (instr.in[1].view.dtype != DType::Int64) invalid(instr, "indices must be int64");
  if (instr.in[1].view.shape != idx_shape) invalid(instr, "index shape");
}

template <>
struct Kernel<OpKind::Gather> {
  template <Opcode Op, TypeRule R, int Arity>
  static void run(const Instruction& instr, MemoryAccess& mem) {
    check_index_operands(instr, instr.out.shape);
    if (instr.in[0].is_const) invalid(instr, "gather source must be a view");
    if (instr.out.nelem() == 0) return;
    const View& src = instr.in[0].view;
    int64_t unused_i = 0;
    const In<int64_t> idx = in_operand<int64_t>(instr, instr.in[1], instr.out.rank(), mem, &unused_i);
    // gather_clip clamps each index into [0, n): only an empty source fails.
    const bool clip = Op == Opcode::GatherClip;
    const int64_t n = src.nelem();
    if (clip && n == 0) throw index_error(instr, idx.at(idx.offset));
    if (!clip) check_indices(instr, idx, instr.out.shape, n);
    visit_dtype(instr.out.dtype, [&](auto t) {
      using T = decltype(t);
      T unused{};
      const In<T> s = in_operand<T>(instr, instr.in[0], src.rank(), mem, &unused);
      const Out<T> o = out_operand<T>(instr, instr.out, mem);
      // A dense source (the common `a[rows, :]`) needs no division per element.
      const bool flat = dense(src.shape, s.stride);
      for_each_index<2>(instr.out.shape, {o.offset, idx.offset}, {&o.stride, &idx.stride},
                        [&](const std::array<int64_t, 2>& x) {
                          const int64_t f = clip ? std::clamp<int64_t>(idx.at(x[1]), 0, n - 1) : idx.at(x[1]);
                          o.p[x[0]] =
                              s.at(flat ? s.offset + f : flat_to_offset(f, s.offset, src.shape, s.stride));
                        });
    });
  }
};

template <>
struct Kernel<OpKind::Scatter> {
  template <Opcode Op, TypeRule R, int Arity>
  static void run(const Instruction& instr, MemoryAccess& mem) {
    if (instr.in[0].is_const) invalid(instr, "scatter values must be a view");
    const Dims& shape = instr.in[0].view.shape;
    check_index_operands(instr, shape);
    if (shape.product() == 0) return;
    int64_t unused_i = 0;
    const In<int64_t> idx = in_operand<int64_t>(instr, instr.in[1], shape.size(), mem, &unused_i);
    check_indices(instr, idx, shape, instr.out.nelem());
    visit_dtype(instr.out.dtype, [&](auto t) {
      using T = decltype(t);
      T unused{};
      const In<T> v = in_operand<T>(instr, instr.in[0], shape.size(), mem, &unused);
      const Out<T> o = out_operand<T>(instr, instr.out, mem);
      const bool flat = dense(instr.out.shape, o.stride);
      for_each_index<2>(
          shape, {v.offset, idx.offset}, {&v.stride, &idx.stride}, [&](const std::array<int64_t, 2>& x) {
            const int64_t f = idx.at(x[1]);
            o.p[flat ? o.offset + f : flat_to_offset(f, o.offset, instr.out.shape, o.stride)] = v.at(x[0]);
          });
    });
  }
};

// compress: the values where the mask is true, in order, to the front of
// the output; the number kept is the length of the output's class.
template <>
struct Kernel<OpKind::Compress> {
  template <Opcode Op, TypeRule R, int Arity>
  static void run(const Instruction& instr, MemoryAccess& mem) {
    if (instr.in[0].is_const || instr.in[1].is_const) invalid(instr, "compress takes views");
    const Dims& shape = instr.in[0].view.shape;
    bool unused_b = false;
    const In<bool> mask = in_operand<bool>(instr, instr.in[1], 1, mem, &unused_b);
    int64_t kept = 0;
    visit_dtype(instr.out.dtype, [&](auto t) {
      using T = decltype(t);
      T unused{};
      const In<T> v = in_operand<T>(instr, instr.in[0], 1, mem, &unused);
      const Out<T> o = out_operand<T>(instr, instr.out, mem);
      for_each_index<2>(shape, {v.offset, mask.offset}, {&v.stride, &mask.stride},
                        [&](const std::array<int64_t, 2>& x) {
                          if (mask.at(x[1])) o.p[o.offset + kept++ * o.stride[0]] = v.at(x[0]);
                        });
    });
    mem.kept(instr.out.base, kept);
  }
};

template <>
struct Kernel<OpKind::Free> {
  template <Opcode Op, TypeRule R, int Arity>
  static void run(const Instruction& instr, MemoryAccess& mem) {
    mem.release(instr.out.base);
  }
};

template <>
struct Kernel<OpKind::Sync> {
  template <Opcode Op, TypeRule R, int Arity>
  static void run(const Instruction&, MemoryAccess&) {}  // the VM copies the base out
};

}  // namespace

void run_instruction(const Instruction& instr, MemoryAccess& mem) {
  // The dispatch is generated from the opcode table: adding an opcode there
  // and its scalar function in scalar_ops.hpp is all the interpreter needs.
  switch (instr.op) {
#define ARRVM_OPCODE(E, N, A, K, R) \
  case Opcode::E:                   \
    return Kernel<OpKind::K>::run<Opcode::E, TypeRule::R, A>(instr, mem);
#include "vm/opcodes.def"
#undef ARRVM_OPCODE
  }
  invalid(instr, "unknown opcode " + std::to_string(static_cast<int>(instr.op)));
}

}  // namespace arrvm::ref
