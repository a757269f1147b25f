// Helpers for the fusion tests: building normalized batches by hand, the
// program of seed 001 Fig. 3, and loading a one-batch trace.
#pragma once

#include <string>
#include <vector>

#include "engine/runtime.hpp"
#include "vm/instruction.hpp"
#include "vm/partition.hpp"
#include "vm/trace.hpp"
#include "vm/validate.hpp"

namespace fusion_test {

using namespace arrvm;  // tests only

inline View view1(BaseId b, int64_t off, int64_t n, int64_t stride = 1) {
  View v;
  v.base = b;
  v.offset = off;
  v.shape = Dims{n};
  v.stride = Dims{stride};
  return v;
}

inline Instruction make(Opcode op, View out, std::vector<Operand> in = {}, int axis = 0) {
  Instruction i;
  i.op = op;
  i.out = out;
  for (const Operand& o : in) i.add_input(o);
  i.axis = axis;
  return i;
}

inline Instruction control(Opcode op, BaseId b) {
  Instruction i;
  i.op = op;
  i.out.base = b;
  return i;
}

inline Operand v(const View& x) {
  return Operand::of(x);
}
inline Operand c(DType t, int64_t x) {
  return Operand::of(Scalar::of_int(t, x));
}

// A batch over bases (dtype, nelem) with ids 0, 1, ..., normalized exactly as
// the Runtime does (vm/validate).
struct Batch {
  BaseRegistry registry;
  std::vector<Instruction> instrs;

  BaseId base(DType t, int64_t n) { return registry.add(t, n); }
  void add(Instruction in) {
    validate_instruction(in, registry, instrs.size());
    instrs.push_back(in);
  }
};

// Seed 001 Fig. 3b with int8 arrays (bytes = elements, as the paper counts).
// Bases: A=0 (4), B=1 (4), D=2 (5), E=3 (5), T=4 (4). Instructions 0..16 are
// the paper's lines 1..17.
inline std::vector<Instruction> fig3_batch() {
  Batch b;
  const DType i8 = DType::Int8;
  const BaseId A = b.base(i8, 4), B = b.base(i8, 4), D = b.base(i8, 5), E = b.base(i8, 5), T = b.base(i8, 4);
  b.add(make(Opcode::Identity, view1(A, 0, 4), {c(i8, 0)}));                              // COPY A, 0
  b.add(make(Opcode::Identity, view1(B, 0, 4), {c(i8, 0)}));                              // COPY B, 0
  b.add(make(Opcode::Identity, view1(D, 0, 5), {c(i8, 0)}));                              // COPY D, 0
  b.add(make(Opcode::Identity, view1(E, 0, 5), {c(i8, 0)}));                              // COPY E, 0
  b.add(make(Opcode::Add, view1(A, 0, 4), {v(view1(A, 0, 4)), v(view1(D, 0, 4))}));       // ADD A, A, D[:-1]
  b.add(make(Opcode::Identity, view1(A, 0, 4), {v(view1(D, 0, 4))}));                     // COPY A, D[:-1]
  b.add(make(Opcode::Add, view1(B, 0, 4), {v(view1(B, 0, 4)), v(view1(E, 0, 4))}));       // ADD B, B, E[:-1]
  b.add(make(Opcode::Identity, view1(B, 0, 4), {v(view1(E, 0, 4))}));                     // COPY B, E[:-1]
  b.add(make(Opcode::Multiply, view1(T, 0, 4), {v(view1(A, 0, 4)), v(view1(B, 0, 4))}));  // MUL T, A, B
  b.add(
      make(Opcode::Maximum, view1(D, 1, 4), {v(view1(T, 0, 4)), v(view1(E, 1, 4))}));  // MAX D[1:], T, E[1:]
  b.add(
      make(Opcode::Minimum, view1(E, 1, 4), {v(view1(T, 0, 4)), v(view1(D, 1, 4))}));  // MIN E[1:], T, D[1:]
  b.add(control(Opcode::Free, A));
  b.add(control(Opcode::Free, B));
  b.add(control(Opcode::Free, E));
  b.add(control(Opcode::Free, T));
  b.add(control(Opcode::Sync, D));
  b.add(control(Opcode::Free, D));
  return b.instrs;
}

// The instructions of a trace holding one batch (sync lines become sync
// instructions), normalized. Base ids must be 0, 1, ... in order.
inline std::vector<Instruction> load_trace_batch(const std::string& path) {
  Batch b;
  TraceReader reader(path);
  TraceEvent ev;
  while (reader.next(&ev)) {
    switch (ev.kind) {
      case TraceEvent::Kind::Base: {
        const BaseId id = b.base(ev.dtype, ev.nelem);
        if (id != ev.base) throw Error("load_trace_batch: base ids must be 0, 1, ...");
        break;
      }
      case TraceEvent::Kind::Data:
        break;
      case TraceEvent::Kind::Instr:
        b.add(ev.instr);
        break;
      case TraceEvent::Kind::Sync:
        b.add(control(Opcode::Sync, ev.base));
        break;
    }
  }
  return b.instrs;
}

inline bool same_view(const View& a, const View& b) {
  return a.base == b.base && a.dtype == b.dtype && a.offset == b.offset && a.shape == b.shape &&
         a.stride == b.stride;
}

inline bool same_instruction(const Instruction& a, const Instruction& b) {
  if (a.op != b.op || a.nin != b.nin || !same_view(a.out, b.out)) return false;
  for (int k = 0; k < a.nin; ++k) {
    if (a.in[k].is_const != b.in[k].is_const) return false;
    if (a.in[k].is_const ? a.in[k].constant.i != b.in[k].constant.i
                         : !same_view(a.in[k].view, b.in[k].view)) {
      return false;
    }
  }
  return true;
}

inline std::string to_string(const arrvm::Partition& p) {
  std::string s;
  for (const auto& b : p.blocks) {
    s += "{";
    for (std::size_t k = 0; k < b.size(); ++k) s += (k ? "," : "") + std::to_string(b[k] + 1);
    s += "}";
  }
  return s;
}

}  // namespace fusion_test
