// Pass `nest` of codegen::lower (backends/loop_ir.hpp): a row nest
// (vm/row_nest.hpp, where the legality proof is) lowered as one loop nest
// over the nest's shape, the rows' statements once per index of the outer
// loop (Stmt::depth 1) before the loops inside it; and a row program, its
// statements numbered by segment (Stmt::segment), which the printer runs
// one after the other in each row.
//
// On cpu the loop over rows is OpenMP's; on OpenCl it is the work items'
// (one row an item: the kernel is one launch over m items) and every inner
// loop is a plain loop of that item (device_rows).
#include <algorithm>
#include <unordered_map>
#include <vector>

#include "backends/loop_ir.hpp"
#include "vm/error.hpp"
#include "vm/row_nest.hpp"

namespace arrvm::codegen {

namespace {

// `v` with the nest's inner axes appended at stride 0: a row's operand seen
// from the nest (a view of (m, 1), keepdims', gets the inner extent instead).
View widened(const View& v, const Dims& shape) {
  View w = v;
  if (w.rank() == 2 && shape.size() == 2 && w.shape[1] == 1) {
    w.shape[1] = shape[1];
    w.stride[1] = 0;
    return w;
  }
  for (int d = 1; d < shape.size(); ++d) {
    w.shape.push_back(shape[d]);
    w.stride.push_back(0);
  }
  return w;
}

// OpenCl: the rows are the work items, the loops inside them the item's own.
LoweredBlock device_rows(LoweredBlock b, Target target) {
  if (target != Target::OpenCl) return b;
  for (std::size_t L = 0; L < b.kernel.loops.size(); ++L) {
    Loop& l = b.kernel.loops[L];
    if (L == 0) {
      l.kind = LoopKind::WorkItems;
    } else if (l.kind != LoopKind::Sweep) {
      l.kind = LoopKind::Serial;
    }
  }
  return b;
}

}  // namespace

LoweredBlock lower_nest(std::span<const Instruction> batch, std::span<const uint32_t> block,
                        std::span<const uint32_t> rows, Target target) {
  const std::size_t nx = rows.size();
  if (!std::equal(rows.begin(), rows.end(), block.begin(), block.begin() + static_cast<std::ptrdiff_t>(nx)))
    throw InternalError("a row nest must list its rows' instructions first");
  if (!row_nest_legal(batch, block.first(nx), block.subspan(nx)))
    throw InternalError("a row nest whose accesses leave their rows: `" + to_string(batch[block[0]]) + "`");
  const Dims* shape = nullptr;
  for (std::size_t p = nx; p < block.size() && shape == nullptr; ++p) {
    if (!is_control(batch[block[p]].op)) shape = &batch[block[p]].out.shape;
  }
  // The block's instructions with the rows' operands widened to the nest's shape;
  // bases and constants are the block's, so binding_of and rebind see the
  // real batch the same way.
  std::vector<Instruction> shadow;
  std::vector<uint32_t> order;
  shadow.reserve(block.size());
  int x_statements = 0;
  for (std::size_t p = 0; p < block.size(); ++p) {
    Instruction in = batch[block[p]];
    if (p < nx && !is_control(in.op)) {
      in.out = widened(in.out, *shape);
      for (int k = 0; k < in.nin; ++k) {
        if (!in.in[k].is_const) in.in[k].view = widened(in.in[k].view, *shape);
      }
      ++x_statements;
    }
    shadow.push_back(std::move(in));
    order.push_back(static_cast<uint32_t>(p));
  }
  LoweredBlock b = build(shadow, order);
  ARRVM_ASSERT(static_cast<int>(b.kernel.body.size()) >= x_statements);
  for (int s = 0; s < x_statements; ++s) b.kernel.body[s].depth = 1;
  b = contract(std::move(b), shadow, order);
  b = device_rows(schedule(std::move(b), target), target);
  ARRVM_ASSERT(!b.kernel.loops.empty() && b.kernel.loops[0].axis == 0);
  return stride_classes(std::move(b));
}

LoweredBlock lower_row_program(std::span<const Instruction> batch, std::span<const uint32_t> block,
                               const RowProgram& program, Target target) {
  if (!row_program_legal(batch, block, program))
    throw InternalError("a row program whose accesses leave their rows: `" + to_string(batch[block[0]]) +
                        "`");
  const Dims shape{program.m, program.n};
  // `shadow`: the rows' operands widened to (m, n), as in a nest. `seen`:
  // the reductions' outputs widened too, which is how their readers
  // (`s[:, None]`, a row's operand) see them, so that contract() finds one
  // value a row.
  std::vector<Instruction> shadow, seen;
  std::vector<uint32_t> order;
  std::vector<int> segment;  // per statement
  shadow.reserve(block.size());
  for (std::size_t p = 0; p < block.size(); ++p) {
    Instruction in = batch[block[p]];
    const int seg = program.segment[p];
    if (seg >= 0 && program.row[static_cast<std::size_t>(seg)]) {
      in.out = widened(in.out, shape);
      for (int k = 0; k < in.nin; ++k) {
        if (!in.in[k].is_const) in.in[k].view = widened(in.in[k].view, shape);
      }
    }
    shadow.push_back(in);
    if (opcode_kind(in.op) == OpKind::Reduce) in.out = widened(in.out, shape);
    seen.push_back(std::move(in));
    order.push_back(static_cast<uint32_t>(p));
    if (seg >= 0) segment.push_back(seg);
  }
  // An array that an elementwise statement over (m, n) writes is one element
  // an iteration of its segment's loop: read in another segment, it stays
  // in memory.
  std::unordered_map<BaseId, int> wide_writer;  // base -> the segment of such a write
  for (std::size_t p = 0; p < block.size(); ++p) {
    const int seg = program.segment[p];
    const Instruction& in = batch[block[p]];
    if (seg >= 0 && !program.row[static_cast<std::size_t>(seg)] && opcode_kind(in.op) == OpKind::Elementwise)
      wide_writer.emplace(in.out.base, seg);
  }
  std::vector<BaseId> keep;
  for (std::size_t p = 0; p < block.size(); ++p) {
    const int seg = program.segment[p];
    if (seg < 0) continue;
    const Instruction& in = batch[block[p]];
    for (int k = -1; k < in.nin; ++k) {
      if (k >= 0 && in.in[k].is_const) continue;
      const BaseId base = k < 0 ? in.out.base : in.in[k].view.base;
      const auto it = wide_writer.find(base);
      if (it != wide_writer.end() && it->second != seg) keep.push_back(base);
    }
  }
  LoweredBlock b = build(shadow, order);
  ARRVM_ASSERT(b.kernel.body.size() == segment.size());
  for (std::size_t s = 0; s < segment.size(); ++s) {
    b.kernel.body[s].segment = segment[s];
    b.kernel.body[s].depth = program.row[static_cast<std::size_t>(segment[s])] ? 1 : 0;
  }
  b = contract(std::move(b), seen, order, keep);
  b = device_rows(schedule(std::move(b), target), target);
  ARRVM_ASSERT(b.kernel.loops.size() == 2 && b.kernel.loops[0].axis == 0 && b.kernel.loops[1].axis == 1);
  return stride_classes(std::move(b));
}

}  // namespace arrvm::codegen
