#include "backends/loop_ir.hpp"

#include <algorithm>

#include <cstring>
#include <map>
#include <unordered_map>

#include "vm/error.hpp"
#include "vm/row_nest.hpp"

namespace arrvm::codegen {

namespace {

// A gather's source or a scatter's target with the axes that continue one
// another merged (axis d and d + 1 when stride[d] = stride[d+1] * shape[d+1];
// axes of length 1 dropped): the same row-major flat order, so a flat index
// finds its element with fewer divisions (a contiguous matrix: none).
View flattened(const View& v) {
  if (v.rank() <= 1 || v.nelem() == 0) return v;
  View c = v;
  c.shape = Dims{};
  c.stride = Dims{};
  for (int d = 0; d < v.rank(); ++d) {
    if (v.shape[d] == 1) continue;
    if (!c.shape.empty() && c.stride[c.shape.size() - 1] == v.stride[d] * v.shape[d]) {
      c.shape[c.shape.size() - 1] *= v.shape[d];
      c.stride[c.stride.size() - 1] = v.stride[d];
    } else {
      c.shape.push_back(v.shape[d]);
      c.stride.push_back(v.stride[d]);
    }
  }
  if (c.shape.empty()) {  // (every axis of length 1: one element)
    c.shape.push_back(1);
    c.stride.push_back(1);
  }
  return c;
}

// The value's bytes in the low bytes of a 64-bit word (what the kernel
// memcpy's back into a variable of the constant's C type).
// A constant's bytes as the kernel reads them from its constant slots: one
// 64-bit slot, two for complex128 (real part, then imaginary part: `word`
// 0 and 1; the second slot's dtype in LoopKernel::consts is UInt64).
uint64_t pack_scalar(const Scalar& s, int word = 0) {
  uint64_t u[2] = {0, 0};
  visit_dtype(s.dtype, [&](auto t) {
    using T = decltype(t);
    const T v = s.as<T>();
    static_assert(sizeof(T) <= sizeof u);
    std::memcpy(u, &v, sizeof(T));
  });
  return u[word];
}

int const_words(DType t) {
  return dtype_size(t) > 8 ? 2 : 1;
}

// The slot among `slots` that holds constant `c` (same dtype, same bytes:
// 0.0 and -0.0 differ, a NaN equals its own bits), or -1. A block's equal
// constants share a slot, so the compiler sees one value: water_ice's
// density evaluates `pow(s, 1.5)` twice (its two UNESCO formulas), and gcc
// folds the two calls into one only when both read the same variable.
int equal_const(const std::vector<DType>& dtypes, const std::vector<uint64_t>& values,
                const std::vector<int>& slots, const Scalar& c) {
  const uint64_t bits = pack_scalar(c), hi = pack_scalar(c, 1);
  for (int slot : slots) {
    if (dtypes[slot] == c.dtype && values[slot] == bits &&
        (const_words(c.dtype) == 1 || values[slot + 1] == hi))
      return slot;
  }
  return -1;
}

}  // namespace

std::string LoopKernel::signature() const {
  std::string s;
  s.reserve(64 + 24 * body.size() + 12 * views.size());
  s += "r";
  s += std::to_string(rank);
  s += " v";
  for (std::size_t i = 0; i < views.size(); ++i)
    s += std::string(dtype_name(views[i])) + (written[i] ? "w," : ",");
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
    if (st.domain >= 0) s += 'g' + std::to_string(st.domain);
    if (st.counter >= 0) s += 'k' + std::to_string(st.counter);
    if (st.depth > 0) s += 'd' + std::to_string(st.depth);
    if (st.segment > 0) s += 'p' + std::to_string(st.segment);
    s += ")";
  }
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
  if (counters > 0) s += " k" + std::to_string(counters);
  if (std::any_of(inner.begin(), inner.end(), [](uint8_t c) { return c != kAnyInner; })) {
    s += " u";
    for (uint8_t c : inner) s += static_cast<char>('0' + c);
  }
  s += " l";
  for (const Loop& l : loops) {
    s += std::to_string(l.axis);
    s += "SPQDWXIOHGC"[static_cast<int>(l.kind)];  // (one letter per LoopKind, in order)
  }
  return s;
}

bool LoopKernel::has(OpKind kind) const {
  return std::any_of(body.begin(), body.end(), [&](const Stmt& st) { return opcode_kind(st.op) == kind; });
}

namespace {

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

// Pass `build`: one statement per instruction; every array is a view slot.
LoweredBlock build(std::span<const Instruction> batch, std::span<const uint32_t> block) {
  LoweredBlock r;
  LoopKernel& k = r.kernel;
  auto view_arg = [&](const View& v, bool write, bool exclusive = false) {
    ARRVM_ASSERT(v.shape.size() == r.shape.size());
    const int slot = static_cast<int>(r.views.size());
    r.views.push_back(v);
    r.exclusive.push_back(exclusive);
    k.views.push_back(v.dtype);
    k.written.push_back(write);
    return Arg{ArgKind::View, slot, v.dtype};
  };
  auto indexed_arg = [&](const View& whole, bool write) {
    const int slot = static_cast<int>(r.indexed.size());
    const View v = flattened(whole);
    r.indexed.push_back(v);
    k.indexed.push_back(IndexedSlot{v.dtype, v.rank(), write});
    return Arg{ArgKind::Indexed, slot, v.dtype};
  };
  auto const_slot = [&](DType t, uint64_t value) {
    k.consts.push_back(t);
    r.consts.push_back(value);
    return static_cast<int>(r.consts.size()) - 1;
  };
  // Operand constants of one dtype and value share a slot (seeds never do).
  std::vector<int> operand_slots;
  auto operand_const = [&](const Scalar& c) {
    const int same = equal_const(k.consts, r.consts, operand_slots, c);
    if (same >= 0) return same;
    operand_slots.push_back(const_slot(c.dtype, pack_scalar(c)));
    if (const_words(c.dtype) == 2) const_slot(DType::UInt64, pack_scalar(c, 1));
    return operand_slots.back();
  };
  bool have_shape = false;
  std::unordered_map<BaseId, int> counter_of;  // length class -> the counter of its compress in the block
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
    if (in.length_class >= 0) {
      const auto it = counter_of.find(in.length_class);
      if (it == counter_of.end())
        throw InternalError("lowering: `" + to_string(in) +
                            "` of a length class whose compress is elsewhere");
      st.domain = it->second;
    }
    switch (opcode_kind(in.op)) {
      case OpKind::Compress:
        st.in[0] = view_arg(in.in[0].view, false);
        st.in[1] = view_arg(in.in[1].view, false);
        st.counter = k.counters++;
        counter_of[in.out.base] = st.counter;
        r.kept.push_back(in.out.base);
        st.out = view_arg(in.out, true);
        break;
      case OpKind::Reduce:
        k.sweep_axis = in.axis;
        st.in[0] = view_arg(in.in[0].view, false);
        st.acc = static_cast<int>(k.accs.size());
        k.accs.push_back(accumulator_dtype(in.op, in.in[0].view.dtype));
        st.out = view_arg(with_sweep_axis(in.out, in.axis), true, true);
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
      default:  // elementwise and generators
        for (int j = 0; j < in.nin; ++j) {
          const Operand& o = in.in[j];
          if (o.is_const) {
            st.in[j] = Arg{ArgKind::Const, operand_const(o.constant), o.constant.dtype};
          } else {
            st.in[j] = view_arg(o.view, false);
          }
        }
        if (in.op == Opcode::Random) st.seed_slot = const_slot(DType::UInt64, in.seed);
        st.out = view_arg(in.out, true);
    }
    k.body.push_back(st);
  }
  return r;
}

void block_key(std::span<const Instruction> batch, std::span<const uint32_t> block, BlockKey* key) {
  std::vector<uint64_t>& w = key->words;
  w.clear();
  key->bases.clear();
  key->consts.clear();
  // At most 3 views per instruction: a table of 8 slots per instruction stays under half full.
  std::size_t want = 64;
  while (want < 8 * block.size()) want *= 2;
  if (key->slots.size() < want || ++key->generation == 0) {
    key->slots.assign(std::max(want, key->slots.size()), BlockKey::Slot{});
    key->generation = 1;
  }
  const std::size_t mask = key->slots.size() - 1;
  auto base_number = [&](BaseId id) -> uint64_t {
    std::size_t s =
        static_cast<std::size_t>((static_cast<uint64_t>(id) * 0x9e3779b97f4a7c15ull) >> 20) & mask;
    while (true) {
      BlockKey::Slot& slot = key->slots[s];
      if (slot.generation != key->generation) {
        slot = {id, static_cast<uint32_t>(key->bases.size()), key->generation};
        key->bases.push_back(id);
        return slot.number;
      }
      if (slot.id == id) return slot.number;
      s = (s + 1) & mask;
    }
  };
  auto put_view = [&](const View& v) {
    w.push_back(base_number(v.base) | uint64_t{static_cast<uint8_t>(v.dtype)} << 32 |
                uint64_t{static_cast<uint8_t>(v.rank())} << 40);
    w.push_back(static_cast<uint64_t>(v.offset));
    for (int d = 0; d < v.rank(); ++d) {
      w.push_back(static_cast<uint64_t>(v.shape[d]));
      w.push_back(static_cast<uint64_t>(v.stride[d]));
    }
  };
  for (uint32_t i : block) {
    const Instruction& in = batch[i];
    w.push_back(uint64_t{static_cast<uint16_t>(in.op)} | uint64_t{static_cast<uint8_t>(in.nin)} << 16 |
                uint64_t{static_cast<uint8_t>(in.axis + 1)} << 24);
    if (in.length_class >= 0) w.push_back(uint64_t{1} << 62 | base_number(in.length_class));
    put_view(in.out);
    for (int j = 0; j < in.nin; ++j) {
      const Operand& o = in.in[j];
      if (o.is_const) {
        // Which of the block's distinct constants it is (build() shares a
        // slot between equal ones): the values stay out of the key, the
        // pattern of equal ones goes in.
        const BlockKey::Const c{static_cast<uint8_t>(o.constant.dtype), pack_scalar(o.constant),
                                pack_scalar(o.constant, 1)};
        std::size_t number = 0;
        while (number < key->consts.size() && !(key->consts[number] == c)) ++number;
        if (number == key->consts.size()) key->consts.push_back(c);
        w.push_back(uint64_t{1} << 63 | static_cast<uint8_t>(o.constant.dtype) | uint64_t{number} << 8);
      } else {
        put_view(o.view);
      }
    }
  }
  uint64_t h = 0xcbf29ce484222325ull;
  for (uint64_t x : w) h = (h ^ x) * 0x100000001b3ull ^ (x >> 29);
  key->hash = h;
}

namespace {

// The operand a Binding::Origin names (an output or a view input).
const View& origin_view(std::span<const Instruction> batch, std::span<const uint32_t> block,
                        const Binding::Origin& o) {
  const Instruction& in = batch[block[o.pos]];
  return o.operand == Binding::kOut ? in.out : in.in[o.operand].view;
}

}  // namespace

Binding binding_of(const LoweredBlock& b, std::span<const Instruction> batch,
                   std::span<const uint32_t> block) {
  Binding r;
  std::unordered_map<BaseId, Binding::Origin> first;  // each base's first appearance in the block
  for (uint32_t p = 0; p < block.size(); ++p) {
    const Instruction& in = batch[block[p]];
    first.try_emplace(in.out.base, Binding::Origin{p, Binding::kOut});
    for (int k = 0; k < in.nin; ++k) {
      if (!in.in[k].is_const) first.try_emplace(in.in[k].view.base, Binding::Origin{p, k});
    }
  }
  auto origin = [&](BaseId id) {
    const auto it = first.find(id);
    ARRVM_ASSERT(it != first.end());
    return it->second;
  };
  for (const View& v : b.views) {
    r.views.push_back(origin(v.base));
    r.view_shifts.push_back(v.offset - origin_view(batch, block, r.views.back()).offset);
  }
  for (const View& v : b.indexed) {
    r.indexed.push_back(origin(v.base));
    r.indexed_shifts.push_back(v.offset - origin_view(batch, block, r.indexed.back()).offset);
  }
  for (BaseId id : b.contracted) r.contracted.push_back(origin(id));
  for (BaseId id : b.kept) r.kept.push_back(origin(id));
  for (uint32_t i : b.error_instr) {
    r.errors.push_back(static_cast<uint32_t>(std::find(block.begin(), block.end(), i) - block.begin()));
  }
  // build()'s order of constant slots: each operand constant (a new slot
  // unless an equal one has one) and each random's seed.
  std::vector<int> operand_slots;
  int slots = 0;
  for (uint32_t p = 0; p < block.size(); ++p) {
    const Instruction& in = batch[block[p]];
    const OpKind kind = opcode_kind(in.op);
    if (is_control(in.op) || kind == OpKind::Reduce || kind == OpKind::Accumulate || kind == OpKind::Gather ||
        kind == OpKind::Scatter || kind == OpKind::Compress) {
      continue;
    }
    for (int k = 0; k < in.nin; ++k) {
      if (!in.in[k].is_const) continue;
      const int same = equal_const(b.kernel.consts, b.consts, operand_slots, in.in[k].constant);
      if (same >= 0) {
        r.consts.push_back({{p, k}, same, true});
      } else {
        operand_slots.push_back(slots);
        r.consts.push_back({{p, k}, slots, false});
        slots += const_words(in.in[k].constant.dtype);
      }
    }
    if (in.op == Opcode::Random) r.consts.push_back({{p, Binding::kSeed}, slots++, false});
  }
  ARRVM_ASSERT(static_cast<std::size_t>(slots) == b.consts.size());
  return r;
}

bool rebind(LoweredBlock* b, const Binding& binding, std::span<const Instruction> batch,
            std::span<const uint32_t> block) {
  auto base = [&](const Binding::Origin& o) { return origin_view(batch, block, o).base; };
  for (std::size_t v = 0; v < b->views.size(); ++v) {
    const View& o = origin_view(batch, block, binding.views[v]);
    b->views[v].base = o.base;
    b->views[v].offset = o.offset + binding.view_shifts[v];
  }
  for (std::size_t j = 0; j < b->indexed.size(); ++j) {
    const View& o = origin_view(batch, block, binding.indexed[j]);
    b->indexed[j].base = o.base;
    b->indexed[j].offset = o.offset + binding.indexed_shifts[j];
  }
  for (std::size_t c = 0; c < b->contracted.size(); ++c) b->contracted[c] = base(binding.contracted[c]);
  for (std::size_t e = 0; e < b->error_instr.size(); ++e) b->error_instr[e] = block[binding.errors[e]];
  for (std::size_t c = 0; c < b->kept.size(); ++c) b->kept[c] = base(binding.kept[c]);
  for (const Binding::ConstUse& u : binding.consts) {
    const Instruction& in = batch[block[u.origin.pos]];
    const bool seed = u.origin.operand == Binding::kSeed;
    const Scalar* c = seed ? nullptr : &in.in[u.origin.operand].constant;
    const int words = seed ? 1 : const_words(c->dtype);
    for (int w = 0; w < words; ++w) {
      const uint64_t value = seed ? in.seed : pack_scalar(*c, w);
      if (!u.shared) {
        b->consts[u.slot + w] = value;
      } else if (b->consts[u.slot + w] != value) {
        return false;  // constants equal in the lowered block differ in this one
      }
    }
  }
  return true;
}

// Pass `stride_classes`: the inner stride of each view slot, where constant.
LoweredBlock stride_classes(LoweredBlock r) {
  LoopKernel& k = r.kernel;
  k.inner.clear();
  if (k.rank > 0) {
    const int ax = !k.loops.empty() ? k.loops.back().axis : k.sweep_axis >= 0 ? k.sweep_axis : k.rank - 1;
    for (const View& v : r.views) {
      const bool unit = v.stride[ax] == 1 || r.shape[ax] <= 1;
      k.inner.push_back(unit ? kUnitInner : v.stride[ax] == 0 ? kZeroInner : kAnyInner);
    }
  }
  return r;
}

int64_t indexed_arg_index(const LoopKernel& k, int slot) {
  int64_t at = view_arg_index(k.rank, static_cast<int>(k.views.size()));
  for (int j = 0; j < slot; ++j) at += 2 + 2 * static_cast<int64_t>(k.indexed[j].rank);
  return at;
}

std::vector<int64_t> pack_args(const LoweredBlock& b, int64_t threads) {
  std::vector<int64_t> a;
  pack_args(b, threads, &a);
  return a;
}

void pack_args(const LoweredBlock& b, int64_t threads, std::vector<int64_t>* out) {
  std::vector<int64_t>& a = *out;
  const int rank = b.kernel.rank;
  a.assign(static_cast<std::size_t>(indexed_arg_index(b.kernel, 0)), 0);
  for (int d = 0; d < rank; ++d) a[d] = b.shape[d];
  a[rank] = threads;
  for (std::size_t v = 0; v < b.views.size(); ++v) {
    const int64_t at = view_arg_index(rank, static_cast<int>(v));
    a[at] = b.views[v].offset;
    for (int d = 0; d < rank; ++d) a[at + 1 + d] = b.views[v].stride[d];
  }
  for (const View& v : b.indexed) {
    a.push_back(v.offset);
    a.push_back(v.nelem());
    for (int d = 0; d < v.rank(); ++d) a.push_back(v.shape[d]);
    for (int d = 0; d < v.rank(); ++d) a.push_back(v.stride[d]);
  }
}

bool has_work(std::span<const Instruction> batch, std::span<const uint32_t> block) {
  return std::any_of(block.begin(), block.end(), [&](uint32_t i) { return !is_control(batch[i].op); });
}

void check_empty_axes(std::span<const Instruction> batch, std::span<const uint32_t> block) {
  for (uint32_t i : block) {
    const Instruction& in = batch[i];
    if (in.op != Opcode::MinimumReduce && in.op != Opcode::MaximumReduce) continue;
    if (in.in[0].view.shape[in.axis] != 0 || in.out.nelem() == 0) continue;
    throw Error(std::string(opcode_name(in.op)) + " over an empty axis in `" + to_string(in) + "`");
  }
}

bool launches(const LoweredBlock& b) {
  if (b.shape.product() > 0) return true;
  const int axis = b.kernel.sweep_axis;
  if (axis < 0 || b.shape.without(axis).product() == 0) return false;
  return std::any_of(b.kernel.body.begin(), b.kernel.body.end(), [](const Stmt& st) {
    return opcode_kind(st.op) == OpKind::Reduce && st.out.kind == ArgKind::View;
  });
}

LoweredBlock lower(std::span<const Instruction> batch, std::span<const uint32_t> block, Target target) {
  std::vector<uint32_t> rows, rest;
  if (row_nest_split(batch, block, &rows, &rest)) return lower_nest(batch, block, rows, target);
  // (A block one loop can run may also read as a row program where
  // may_overlap is more careful than the fusion graph: legal either way.)
  RowProgram program;
  if (row_program(batch, block, &program) && row_program_legal(batch, block, program))
    return lower_row_program(batch, block, program, target);
  verify_block(batch, block);
  return stride_classes(schedule(contract(build(batch, block), batch, block), target));
}

}  // namespace arrvm::codegen
