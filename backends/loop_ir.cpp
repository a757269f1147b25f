#include "backends/loop_ir.hpp"

#include <algorithm>

#include <cstring>
#include <map>

#include "vm/error.hpp"

namespace arrvm::codegen {

namespace {

// The value's bytes in the low bytes of a 64-bit word (what the kernel
// memcpy's back into a variable of the constant's C type).
uint64_t pack_scalar(const Scalar& s) {
  uint64_t u = 0;
  visit_dtype(s.dtype, [&](auto t) {
    using T = decltype(t);
    const T v = s.as<T>();
    std::memcpy(&u, &v, sizeof(T));
  });
  return u;
}

// A write that covers every element of a base of `nelem` elements exactly
// once, in row-major order, so that loop index <-> element is a bijection.
bool is_full_write(const View& v, int64_t nelem) {
  if (v.offset != 0 || v.nelem() != nelem || nelem == 0) return false;
  const Dims rm = row_major_strides(v.shape);
  for (int d = 0; d < v.rank(); ++d) {
    if (v.shape[d] > 1 && v.stride[d] != rm[d]) return false;
  }
  return true;
}

// Whether base `b` (freed in the block, `nelem` elements) can be contracted.
bool contractible(std::span<const Instruction> batch, std::span<const uint32_t> block, BaseId b, int64_t nelem) {
  const View* first = nullptr;
  for (uint32_t i : block) {
    const Instruction& in = batch[i];
    if (opcode_kind(in.op) == OpKind::Sync && in.out.base == b) return false;
    if (is_control(in.op)) continue;
    // A gather reads, a scatter writes anywhere in its indexed view: it
    // needs the array, not one element per index.
    if (in.op == Opcode::Gather && in.in[0].view.base == b) return false;
    if (in.op == Opcode::Scatter && in.out.base == b) return false;
    for (int k = 0; k < in.nin; ++k) {
      if (in.in[k].is_const || in.in[k].view.base != b) continue;
      if (first == nullptr || !same_elements(*first, in.in[k].view)) return false;
    }
    if (in.out.base != b) continue;
    if (first == nullptr) {
      if (!is_full_write(in.out, nelem)) return false;
      first = &in.out;
    } else if (!same_elements(*first, in.out)) {
      return false;
    }
  }
  return first != nullptr;
}

}  // namespace

std::string LoopKernel::signature() const {
  std::string s = "r";
  s += std::to_string(rank);
  s += " v";
  for (std::size_t i = 0; i < views.size(); ++i) s += std::string(dtype_name(views[i])) + (written[i] ? "w," : ",");
  s += " t";
  for (DType t : temps) s += std::string(dtype_name(t)) + ",";
  s += " c";
  for (DType t : consts) s += std::string(dtype_name(t)) + ",";
  for (const Stmt& st : body) {
    s += ' ';
    s += opcode_name(st.op);
    s += '(';
    auto arg = [&](const Arg& a) {
      s += "vtci"[static_cast<int>(a.kind)];
      s += std::to_string(a.index);
      s += ',';
    };
    arg(st.out);
    for (int k = 0; k < st.nin; ++k) arg(st.in[k]);
    if (st.seed_slot >= 0) {
      s += 's';
      s += std::to_string(st.seed_slot);
    }
    if (st.acc >= 0) s += 'a' + std::to_string(st.acc);
    if (st.err >= 0) s += 'e' + std::to_string(st.err);
    s += ")";
  }
  // Fused kernels only, so that the signatures of lower_block stay as they were.
  if (sweep_axis >= 0) s += " sweep" + std::to_string(sweep_axis);
  if (!indexed.empty()) {
    s += " i";
    for (const IndexedSlot& x : indexed) {
      s += std::string(dtype_name(x.dtype)) + "r" + std::to_string(x.rank) + (x.written ? "w," : ",");
    }
  }
  if (!accs.empty()) {
    s += " a";
    for (DType t : accs) s += std::string(dtype_name(t)) + ",";
  }
  if (errors > 0) s += " e" + std::to_string(errors);
  if (std::any_of(inner.begin(), inner.end(), [](uint8_t c) { return c != kAnyInner; })) {
    s += " u";
    for (uint8_t c : inner) s += static_cast<char>('0' + c);
  }
  return s;
}

bool is_loop_block(std::span<const Instruction> batch, std::span<const uint32_t> block) {
  bool any = false;
  Dims shape;
  for (uint32_t i : block) {
    const Instruction& in = batch[i];
    if (is_control(in.op)) continue;
    const OpKind k = opcode_kind(in.op);
    if (k != OpKind::Elementwise && k != OpKind::Generator) return false;
    if (!any) {
      shape = in.out.shape;
      any = true;
    } else if (in.out.shape != shape) {
      return false;
    }
  }
  return any;
}

LoweredBlock lower_block(std::span<const Instruction> batch, std::span<const uint32_t> block) {
  ARRVM_ASSERT(is_loop_block(batch, block));
  LoweredBlock r;
  std::map<BaseId, int> temp_of;
  for (uint32_t i : block) {
    const Instruction& in = batch[i];
    if (opcode_kind(in.op) != OpKind::Free) continue;
    if (contractible(batch, block, in.out.base, in.out.nelem())) {
      temp_of[in.out.base] = static_cast<int>(r.kernel.temps.size());
      r.kernel.temps.push_back(in.out.dtype);
      r.contracted.push_back(in.out.base);
    }
  }
  auto view_arg = [&](const View& v, bool write) {
    auto it = temp_of.find(v.base);
    if (it != temp_of.end()) return Arg{ArgKind::Temp, it->second, v.dtype};
    const int slot = static_cast<int>(r.views.size());
    r.views.push_back(v);
    r.kernel.views.push_back(v.dtype);
    r.kernel.written.push_back(write);
    return Arg{ArgKind::View, slot, v.dtype};
  };
  auto const_slot = [&](DType t, uint64_t value) {
    r.kernel.consts.push_back(t);
    r.consts.push_back(value);
    return static_cast<int>(r.consts.size()) - 1;
  };
  bool have_shape = false;
  for (uint32_t i : block) {
    const Instruction& in = batch[i];
    if (is_control(in.op)) continue;
    if (!have_shape) {
      r.shape = in.out.shape;
      r.kernel.rank = in.out.rank();
      have_shape = true;
    }
    Stmt st;
    st.op = in.op;
    st.nin = in.nin;
    for (int k = 0; k < in.nin; ++k) {
      const Operand& o = in.in[k];
      if (o.is_const) {
        st.in[k] = Arg{ArgKind::Const, const_slot(o.constant.dtype, pack_scalar(o.constant)), o.constant.dtype};
      } else {
        ARRVM_ASSERT(o.view.shape == in.out.shape);
        st.in[k] = view_arg(o.view, false);
      }
    }
    if (in.op == Opcode::Random) st.seed_slot = const_slot(DType::UInt64, in.seed);
    st.out = view_arg(in.out, true);
    r.kernel.body.push_back(st);
  }
  return r;
}

std::vector<int64_t> pack_args(const LoweredBlock& b, bool parallel) {
  const int rank = b.kernel.rank;
  std::vector<int64_t> a(static_cast<std::size_t>(view_arg_index(rank, static_cast<int>(b.views.size()))));
  for (int d = 0; d < rank; ++d) a[d] = b.shape[d];
  a[rank] = parallel ? 1 : 0;
  for (std::size_t v = 0; v < b.views.size(); ++v) {
    const int64_t at = view_arg_index(rank, static_cast<int>(v));
    a[at] = b.views[v].offset;
    for (int d = 0; d < rank; ++d) a[at + 1 + d] = b.views[v].stride[d];
  }
  return a;
}

SweepKernel sweep_kernel(const Instruction& instr) {
  const OpKind k = opcode_kind(instr.op);
  ARRVM_ASSERT((k == OpKind::Reduce || k == OpKind::Accumulate) && instr.nin == 1 && !instr.in[0].is_const);
  SweepKernel s;
  s.op = instr.op;
  s.dtype = instr.in[0].view.dtype;
  s.rank = instr.in[0].view.rank() - 1;
  return s;
}

std::vector<int64_t> pack_sweep_args(const Instruction& instr, const View& out, const View& in, bool parallel) {
  const int rank = in.rank() - 1, axis = instr.axis;
  const bool scan = opcode_kind(instr.op) == OpKind::Accumulate;
  std::vector<int64_t> a(static_cast<std::size_t>(sweep_arg_index(rank, 2)));
  const Dims outer = in.shape.without(axis);
  for (int d = 0; d < rank; ++d) a[d] = outer[d];
  a[rank] = parallel ? 1 : 0;
  a[rank + 1] = in.shape[axis];
  const Dims out_outer = scan ? out.stride.without(axis) : out.stride;
  const Dims in_outer = in.stride.without(axis);
  int64_t at = sweep_arg_index(rank, 0);
  a[at] = out.offset;
  for (int d = 0; d < rank; ++d) a[at + 1 + d] = out_outer[d];
  a[at + 1 + rank] = scan ? out.stride[axis] : 0;
  at = sweep_arg_index(rank, 1);
  a[at] = in.offset;
  for (int d = 0; d < rank; ++d) a[at + 1 + d] = in_outer[d];
  a[at + 1 + rank] = in.stride[axis];
  return a;
}

// ---- fused blocks ------------------------------------------------------------

namespace {

bool is_sweep(Opcode op) {
  const OpKind k = opcode_kind(op);
  return k == OpKind::Reduce || k == OpKind::Accumulate;
}

// A reduction's output seen from the loop nest over its input shape: the
// sweep axis inserted with stride 0, so the slot's offset at an outer index
// is the output element of that index.
View with_sweep_axis(const View& out, int axis) {
  View v = out;
  v.shape = Dims();
  v.stride = Dims();
  for (int d = 0, o = 0; d <= out.rank(); ++d) {
    if (d == axis) {
      v.shape.push_back(1);  // not used by the kernel; keeps the view honest for overlap tests
      v.stride.push_back(0);
    } else {
      v.shape.push_back(out.shape[o]);
      v.stride.push_back(out.stride[o]);
      ++o;
    }
  }
  return v;
}

}  // namespace

const Dims& iteration_shape(const Instruction& in) {
  switch (opcode_kind(in.op)) {
    case OpKind::Reduce:
    case OpKind::Accumulate:
    case OpKind::Scatter:
      return in.in[0].view.shape;
    default:
      return in.out.shape;
  }
}

bool is_fused_block(std::span<const Instruction> batch, std::span<const uint32_t> block) {
  bool any = false;
  int axis = -1;
  Dims shape;
  for (uint32_t i : block) {
    const Instruction& in = batch[i];
    if (is_control(in.op)) continue;
    const Dims& s = iteration_shape(in);
    if (!any) {
      shape = s;
      any = true;
    } else if (s != shape) {
      return false;
    }
    if (is_sweep(in.op)) {
      if (axis >= 0 && in.axis != axis) return false;
      axis = in.axis;
    }
  }
  return any;
}

LoweredBlock lower_fused_block(std::span<const Instruction> batch, std::span<const uint32_t> block) {
  ARRVM_ASSERT(is_fused_block(batch, block));
  LoweredBlock r;
  LoopKernel& k = r.kernel;
  std::map<BaseId, int> temp_of;
  for (uint32_t i : block) {
    const Instruction& in = batch[i];
    if (opcode_kind(in.op) != OpKind::Free) continue;
    if (contractible(batch, block, in.out.base, in.out.nelem())) {
      temp_of[in.out.base] = static_cast<int>(k.temps.size());
      k.temps.push_back(in.out.dtype);
      r.contracted.push_back(in.out.base);
    }
  }
  auto view_arg = [&](const View& v, bool write, bool exclusive = false) {
    auto it = temp_of.find(v.base);
    if (it != temp_of.end()) return Arg{ArgKind::Temp, it->second, v.dtype};
    ARRVM_ASSERT(v.shape.size() == r.shape.size());
    const int slot = static_cast<int>(r.views.size());
    r.views.push_back(v);
    r.exclusive.push_back(exclusive);
    k.views.push_back(v.dtype);
    k.written.push_back(write);
    return Arg{ArgKind::View, slot, v.dtype};
  };
  auto indexed_arg = [&](const View& v, bool write) {
    const int slot = static_cast<int>(r.indexed.size());
    r.indexed.push_back(v);
    k.indexed.push_back(IndexedSlot{v.dtype, v.rank(), write});
    return Arg{ArgKind::Indexed, slot, v.dtype};
  };
  auto const_slot = [&](DType t, uint64_t value) {
    k.consts.push_back(t);
    r.consts.push_back(value);
    return static_cast<int>(r.consts.size()) - 1;
  };
  bool have_shape = false;
  for (uint32_t i : block) {
    const Instruction& in = batch[i];
    if (is_control(in.op)) continue;
    if (!have_shape) {
      r.shape = iteration_shape(in);
      k.rank = r.shape.size();
      have_shape = true;
    }
    Stmt st;
    st.op = in.op;
    st.nin = in.nin;
    switch (opcode_kind(in.op)) {
      case OpKind::Reduce:
        k.sweep_axis = in.axis;
        st.in[0] = view_arg(in.in[0].view, false);
        st.acc = static_cast<int>(k.accs.size());
        k.accs.push_back(in.in[0].view.dtype);
        st.out = temp_of.count(in.out.base) ? view_arg(in.out, true)  // dead: freed, never read in the block
                                            : view_arg(with_sweep_axis(in.out, in.axis), true, true);
        break;
      case OpKind::Accumulate:
        k.sweep_axis = in.axis;
        st.in[0] = view_arg(in.in[0].view, false);
        st.acc = static_cast<int>(k.accs.size());
        k.accs.push_back(in.in[0].view.dtype);
        st.out = view_arg(in.out, true);
        break;
      case OpKind::Gather:
        st.in[0] = indexed_arg(in.in[0].view, false);
        st.in[1] = view_arg(in.in[1].view, false);
        st.out = view_arg(in.out, true);
        st.err = k.errors++;
        r.error_instr.push_back(i);
        break;
      case OpKind::Scatter:
        st.in[0] = view_arg(in.in[0].view, false);
        st.in[1] = view_arg(in.in[1].view, false);
        st.out = indexed_arg(in.out, true);
        st.err = k.errors++;
        r.error_instr.push_back(i);
        break;
      default:  // elementwise and generators, as lower_block
        for (int j = 0; j < in.nin; ++j) {
          const Operand& o = in.in[j];
          if (o.is_const) {
            st.in[j] = Arg{ArgKind::Const, const_slot(o.constant.dtype, pack_scalar(o.constant)), o.constant.dtype};
          } else {
            st.in[j] = view_arg(o.view, false);
          }
        }
        if (in.op == Opcode::Random) st.seed_slot = const_slot(DType::UInt64, in.seed);
        st.out = view_arg(in.out, true);
    }
    k.body.push_back(st);
  }
  if (k.rank > 0) {
    const int ax = k.sweep_axis >= 0 ? k.sweep_axis : k.rank - 1;
    for (const View& v : r.views) {
      const bool unit = v.stride[ax] == 1 || r.shape[ax] <= 1;
      k.inner.push_back(unit ? kUnitInner : v.stride[ax] == 0 ? kZeroInner : kAnyInner);
    }
  }
  return r;
}

int64_t fused_indexed_arg_index(const LoopKernel& k, int slot) {
  int64_t at = view_arg_index(k.rank, static_cast<int>(k.views.size()));
  for (int j = 0; j < slot; ++j) at += 2 + 2 * static_cast<int64_t>(k.indexed[j].rank);
  return at;
}

std::vector<int64_t> pack_fused_args(const LoweredBlock& b, bool parallel) {
  std::vector<int64_t> a = pack_args(b, parallel);
  ARRVM_ASSERT(static_cast<int64_t>(a.size()) == fused_indexed_arg_index(b.kernel, 0));
  for (const View& v : b.indexed) {
    a.push_back(v.offset);
    a.push_back(v.nelem());
    for (int d = 0; d < v.rank(); ++d) a.push_back(v.shape[d]);
    for (int d = 0; d < v.rank(); ++d) a.push_back(v.stride[d]);
  }
  return a;
}

}  // namespace arrvm::codegen
