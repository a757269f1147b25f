// Operands and instructions: the unit of the bytecode stream.
#pragma once

#include <array>
#include <cstdint>
#include <string>

#include "vm/dtype.hpp"
#include "vm/opcode.hpp"
#include "vm/view.hpp"

namespace arrvm {

// A typed scalar constant. The value is held exactly in its dtype: signed
// integers and bool in `i`, unsigned in `u`, floats in `f` (float32 values are
// stored already rounded to float), complex numbers as `f` (the real part)
// and `im` (complex64's parts rounded to float).
struct Scalar {
  DType dtype = DType::Float64;
  union {
    int64_t i;
    uint64_t u;
    double f;
  };
  double im = 0.0;  // complex dtypes: the imaginary part; else 0
  Scalar() : i(0) {}

  // Converts a number to `dtype` with the same rules as the `identity` cast.
  static Scalar of_int(DType dtype, int64_t v);
  static Scalar of_uint(DType dtype, uint64_t v);
  static Scalar of_double(DType dtype, double v);
  static Scalar of_complex(DType dtype, double re, double im);

  template <typename T>
  T as() const;  // the value as dtype's C++ type (T must match dtype)
};

struct Operand {
  bool is_const = false;
  View view;        // when !is_const
  Scalar constant;  // when is_const

  static Operand of(const View& v) {
    Operand o;
    o.view = v;
    return o;
  }
  static Operand of(const Scalar& s) {
    Operand o;
    o.is_const = true;
    o.constant = s;
    return o;
  }
  DType dtype() const { return is_const ? constant.dtype : view.dtype; }
};

// One bytecode instruction. `free` and `sync` carry the base in `out`, as a
// 1-D view of all of it (so data-dependency analysis needs no special case).
// An operand of the eager path's run without an instruction
// (Runtime::run_dense_now, Backend::run_dense_now): elements offset,
// offset + stride, offset + 2 * stride, ... of a base (a view whose
// elements are one such run: a contiguous block, a column, a reversed
// vector; stride 0 repeats one element), or (an input with `constant` set)
// one value for all.
struct DenseRun {
  BaseId base = -1;
  int64_t offset = 0;
  const Scalar* constant = nullptr;
  int64_t stride = 1;
};

struct Instruction {
  Opcode op = Opcode::Identity;
  View out;
  std::array<Operand, 3> in;
  int nin = 0;
  int axis = 0;       // reductions and scans
  uint64_t seed = 0;  // random
  // Set by the VM (vm/length_class.hpp), never by a frontend: the base of
  // the `compress` whose run-time length this instruction iterates over
  // (its views of that length class have the class's capacity as their
  // nominal length), or -1 for an ordinary instruction.
  BaseId length_class = -1;

  const Operand& input(int i) const { return in[i]; }
  void add_input(const Operand& o) { in[nin++] = o; }
};

std::string to_string(const Scalar& s);
std::string to_string(const Instruction& instr);  // "add b2[...] <- b0[...], 2.0:float64"

// The shape a (non-control) instruction iterates over: its input's for a
// reduction, scan, compress or scatter (whose target is indexed), its
// output's otherwise. Fusion puts instructions of one iteration shape in a
// block; a kernel loops over it.
const Dims& iteration_shape(const Instruction& instr);

// Cast between dtypes with the `identity` semantics (NumPy's astype, with
// float -> int defined for every input: NaN -> 0, out of range saturates).
template <typename To, typename From>
To cast_value(From v);

}  // namespace arrvm

#include "vm/cast.hpp"
