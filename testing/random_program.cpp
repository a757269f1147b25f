#include "testing/random_program.hpp"

#include <algorithm>
#include <complex>
#include <cstring>
#include <optional>
#include <random>

#include "engine/runtime.hpp"
#include "vm/error.hpp"
#include "vm/length_class.hpp"
#include "vm/validate.hpp"

namespace arrvm::testing {

namespace {

constexpr int64_t kPersistentElems = 12;

struct Slice {
  int64_t offset;
  Dims stride;
};

// Injective views of the given shape inside a 12-element base.
const std::vector<Slice>& slices_of(const Dims& shape) {
  static const std::vector<Slice> s6 = {{0, {1}},   {1, {1}}, {2, {1}}, {6, {1}},
                                        {11, {-1}}, {0, {2}}, {1, {2}}, {5, {-1}}};
  // ... {3, {0, 1}} is a broadcast row (inputs only: an output must be
  // injective, so validation rejects it there and the draw is repeated).
  static const std::vector<Slice> s23 = {{0, {3, 1}}, {6, {3, 1}}, {0, {6, 1}}, {11, {-3, -1}}, {0, {1, 2}},
                                         {3, {4, 1}}, {3, {0, 1}}, {1, {1, 4}}, {10, {-1, -3}}};
  static const std::vector<Slice> s3 = {{0, {1}},  {3, {1}}, {9, {1}},  {0, {4}},
                                        {2, {-1}}, {1, {4}}, {11, {-2}}};
  static const std::vector<Slice> s2 = {{0, {1}}, {4, {1}}, {10, {1}}, {1, {5}}, {7, {-1}}};
  static const std::vector<Slice> s0 = {{0, {}}, {5, {}}, {11, {}}};
  if (shape.size() == 0) return s0;
  if (shape.size() == 2) return s23;
  if (shape[0] == 6) return s6;
  if (shape[0] == 3) return s3;
  return s2;
}

const Dims kShapes[] = {Dims{6}, Dims{2, 3}, Dims{3}};

class Generator {
 public:
  Generator(uint64_t seed, const RandomProgramOptions& o) : rng_(seed), o_(o) {
    const DType dtypes[] = {DType::Int32, DType::Float64, DType::Int8, DType::Complex128, DType::Complex64};
    dtype_ = dtypes[pick(o.complex ? 5 : 3)];
  }

  RandomProgram run() {
    for (int i = 0; i < o_.persistent_bases; ++i) {
      const BaseId id = add_base(dtype_, kPersistentElems);
      persistent_.push_back(id);
      if (chance(0.8)) p_.bases[id].data = random_data(dtype_, kPersistentElems);
    }
    const int n = o_.min_instructions + pick(o_.max_instructions - o_.min_instructions + 1);
    while (static_cast<int>(p_.batch.size()) < n) step(n);
    return std::move(p_);
  }

 private:
  struct Temp {
    BaseId id;
    Dims shape;
  };

  int pick(int n) { return static_cast<int>(std::uniform_int_distribution<int>(0, n - 1)(rng_)); }
  bool chance(double p) { return std::uniform_real_distribution<double>(0, 1)(rng_) < p; }

  BaseId add_base(DType t, int64_t nelem) {
    const BaseId id = registry_.add(t, nelem);
    p_.bases.push_back(BaseSpec{id, t, nelem, {}, false});
    return id;
  }

  std::vector<uint8_t> random_data(DType t, int64_t n) {
    std::vector<uint8_t> bytes(static_cast<std::size_t>(n) * dtype_size(t));
    for (int64_t i = 0; i < n; ++i) {
      const int v = pick(41) - 20;
      uint8_t* dst = bytes.data() + i * dtype_size(t);
      if (t == DType::Int32) {
        const int32_t x = v;
        std::memcpy(dst, &x, sizeof x);
      } else if (t == DType::Int8) {
        const int8_t x = static_cast<int8_t>(v);
        std::memcpy(dst, &x, sizeof x);
      } else if (t == DType::Complex128) {
        const std::complex<double> x(v / 4.0, (pick(41) - 20) / 8.0);
        std::memcpy(dst, &x, sizeof x);
      } else if (t == DType::Complex64) {
        const std::complex<float> x(static_cast<float>(v / 4.0), static_cast<float>((pick(41) - 20) / 8.0));
        std::memcpy(dst, &x, sizeof x);
      } else {
        const double x = v / 4.0;
        std::memcpy(dst, &x, sizeof x);
      }
    }
    return bytes;
  }

  // A slice of a persistent base (of `base` if given).
  View persistent_view(const Dims& shape, BaseId base = -1) {
    const std::vector<Slice>& s = slices_of(shape);
    const Slice& sl = s[pick(static_cast<int>(s.size()))];
    View v;
    v.base = base >= 0 ? base : persistent_[pick(static_cast<int>(persistent_.size()))];
    v.offset = sl.offset;
    v.shape = shape;
    v.stride = sl.stride;
    return v;
  }

  // A view of `shape` to read: a persistent slice or a live temporary.
  View input_view(const Dims& shape) {
    std::vector<const Temp*> temps;
    for (const Temp& t : temps_) {
      if (t.shape == shape) temps.push_back(&t);
    }
    if (!temps.empty() && chance(0.6)) {
      const Temp& t = *temps[pick(static_cast<int>(temps.size()))];
      return contiguous_view(t.id, dtype_of_base(t.id), t.shape);
    }
    return persistent_view(shape);
  }

  // A view of `shape` to write: a new temporary, a live one, or a slice.
  View output_view(const Dims& shape, DType t = DType::Bool, bool allow_new = true) {
    if (t == DType::Bool) t = dtype_;
    const int r = pick(10);
    if (allow_new && r < 4 && t == dtype_) {
      const BaseId id = add_base(t, shape.product());
      pending_temp_ = Temp{id, shape};
      return contiguous_view(id, t, shape);
    }
    if (r < 6) {
      for (const Temp& tmp : temps_) {
        if (tmp.shape == shape && dtype_of_base(tmp.id) == t) return contiguous_view(tmp.id, t, shape);
      }
    }
    return persistent_view(shape);
  }

  DType dtype_of_base(BaseId id) const { return p_.bases[id].dtype; }

  Operand operand(const Dims& shape) {
    if (chance(0.2)) return Operand::of(Scalar::of_int(dtype_, pick(7) - 3));
    if (shape.size() == 2 && chance(0.2)) return Operand::of(input_view(Dims{3}));  // broadcast
    return Operand::of(input_view(shape));
  }

  Instruction elementwise(const Dims& shape) {
    Instruction in;
    if (chance(0.25)) {
      // (|z| of a complex one has another dtype: its conjugate instead)
      const Opcode unary[] = {Opcode::Negative, is_complex(dtype_) ? Opcode::Conjugate : Opcode::Absolute,
                              Opcode::Identity};
      in.op = unary[pick(3)];
      in.add_input(Operand::of(input_view(shape)));
    } else {
      const Opcode binary[] = {Opcode::Add, Opcode::Subtract, Opcode::Multiply, Opcode::Maximum,
                               Opcode::Minimum};
      in.op = binary[pick(5)];
      in.add_input(operand(shape));
      in.add_input(operand(shape));
    }
    in.out = output_view(shape);
    read_own_base(&in);
    return in;
  }

  bool is_persistent(BaseId id) const {
    return std::find(persistent_.begin(), persistent_.end(), id) != persistent_.end();
  }

  // Often makes an input another view of the output's base (interleaved,
  // transposed, reversed, broadcast, partially overlapping or the same
  // elements): NumPy's overlap rule decides what such an instruction means.
  void read_own_base(Instruction* in) {
    if (!is_persistent(in->out.base) || !chance(0.4)) return;
    const int i = pick(in->nin);
    if (in->in[i].is_const) return;
    in->in[i].view = persistent_view(in->in[i].view.shape, in->out.base);
  }

  Instruction reduction() {
    Instruction in;
    const Opcode ops[] = {Opcode::AddReduce, Opcode::MaximumReduce, Opcode::MultiplyReduce};
    in.op = ops[pick(3)];
    const Dims& shape = kShapes[pick(3)];
    in.add_input(Operand::of(input_view(shape)));
    in.axis = pick(shape.size());
    in.out = output_view(shape.without(in.axis), DType::Bool, shape.size() == 2);
    read_own_base(&in);
    return in;
  }

  Instruction scan() {
    Instruction in;
    in.op = chance(0.5) ? Opcode::AddAccumulate : Opcode::MultiplyAccumulate;
    const Dims& shape = kShapes[pick(3)];
    in.add_input(Operand::of(input_view(shape)));
    in.axis = pick(shape.size());
    in.out = output_view(shape);
    read_own_base(&in);
    return in;
  }

  // A gather needs valid indices: a range into a new int64 temporary first
  // (a gather_clip's often shifted out of range: -4 .. 4n - 5, clamped).
  void gather(int limit) {
    if (static_cast<int>(p_.batch.size()) + 2 > limit) return;
    const Dims& shape = kShapes[pick(3)];
    const BaseId idx = add_base(DType::Int64, shape.product());
    Instruction r;
    r.op = Opcode::Range;
    r.out = contiguous_view(idx, DType::Int64, shape);
    if (!emit(r)) return;
    const bool clip = chance(0.35);
    if (clip && static_cast<int>(p_.batch.size()) + 4 <= limit && chance(0.6)) {
      Instruction s;
      s.op = Opcode::Multiply;
      s.out = r.out;
      s.add_input(Operand::of(r.out));
      s.add_input(Operand::of(Scalar::of_int(DType::Int64, 4)));
      emit(s);
      s.op = Opcode::Subtract;
      s.in[1] = Operand::of(Scalar::of_int(DType::Int64, 4));
      emit(s);
    }
    Instruction g;
    g.op = clip ? Opcode::GatherClip : Opcode::Gather;
    View src;
    src.base = persistent_[pick(static_cast<int>(persistent_.size()))];
    src.shape = Dims{kPersistentElems};
    src.stride = Dims{1};
    if (chance(0.5)) {
      src.offset = kPersistentElems - 1;
      src.stride = Dims{-1};
    }
    // Often the source is computed in the batch (seed 000: a gather of a
    // producer's output), and freed after the gather when it is not needed.
    BaseId computed = -1;
    // The producer: elementwise, a gather_clip (a gather of a gather), or
    // for a gather_clip a reduction over rows (a gather of a fold).
    if (static_cast<int>(p_.batch.size()) + 4 <= limit && chance(0.5)) {
      const Dims flat{kPersistentElems};
      Instruction e;
      const int kind = pick(clip ? 3 : 2);
      if (kind == 0) {
        e.op = chance(0.5) ? Opcode::Add : Opcode::Multiply;
        e.add_input(operand(flat));
        e.add_input(Operand::of(input_view(flat)));
        computed = add_base(dtype_, kPersistentElems);
        e.out = contiguous_view(computed, dtype_, flat);
      } else if (kind == 1) {  // its indices a reversed range, some clamped
        const BaseId inner = add_base(DType::Int64, kPersistentElems);
        Instruction ir;
        ir.op = Opcode::Range;
        ir.out = contiguous_view(inner, DType::Int64, flat);
        emit(ir);
        Instruction neg;
        neg.op = Opcode::Subtract;
        neg.out = ir.out;
        neg.add_input(Operand::of(Scalar::of_int(DType::Int64, kPersistentElems + 1)));
        neg.add_input(Operand::of(ir.out));
        emit(neg);
        e.op = Opcode::GatherClip;
        e.add_input(Operand::of(src));  // (the persistent view drawn above)
        e.add_input(Operand::of(ir.out));
        const DType t = registry_.find(src.base)->dtype;
        computed = add_base(t, kPersistentElems);
        e.out = contiguous_view(computed, t, flat);
      } else {  // the rows of a (3, 2) view reduced
        const Opcode ops[] = {Opcode::AddReduce, Opcode::MaximumReduce, Opcode::MinimumReduce};
        e.op = ops[pick(3)];
        e.add_input(Operand::of(persistent_view(Dims{3, 2}, src.base)));
        e.axis = 1;
        const DType t = registry_.find(src.base)->dtype;
        computed = add_base(t, 3);
        e.out = contiguous_view(computed, t, Dims{3});
      }
      if (emit(e)) {
        src = e.out;
      } else {
        computed = -1;
      }
    }
    g.add_input(Operand::of(src));
    g.add_input(Operand::of(contiguous_view(idx, DType::Int64, shape)));
    // Writing into the source's own base exercises NumPy's overlap rule.
    const BaseId own = computed >= 0 ? persistent_[pick(static_cast<int>(persistent_.size()))] : src.base;
    g.out = chance(0.3) ? persistent_view(shape, own) : output_view(shape);
    emit(g);
    if (chance(o_.p_free)) emit_free(idx);
    if (computed >= 0 && chance(0.7)) emit_free(computed);
  }

  bool emit(Instruction in) {
    LengthEffect classes;
    try {
      validate_instruction(in, registry_, p_.batch.size());
      classes = apply_length_classes(in, registry_, p_.batch.size());
    } catch (const Error&) {
      pending_temp_.reset();
      return false;
    }
    record_length_class(in, classes, registry_);
    // NumPy's overlap rule, as the Runtime applies it: a copy of each input
    // that shares elements with the output, freed after the instruction.
    std::vector<BaseId> copies;
    for (int i = 0; i < in.nin; ++i) {
      if (!input_needs_copy(in, i)) continue;
      const BaseId tmp = add_base(in.in[i].view.dtype, copy_shape(in.in[i].view).product());
      p_.batch.push_back(redirect_to_copy(&in, i, tmp));
      copies.push_back(tmp);
    }
    p_.batch.push_back(in);
    if (pending_temp_) temps_.push_back(*pending_temp_);
    pending_temp_.reset();
    for (BaseId tmp : copies) emit_free(tmp);
    return true;
  }

  // A filter (seed 003): a mask of a 6-element view, the compress into a new
  // base, then what iterates over its length class: an elementwise op, a
  // reduction, a scan, another filter; the mask (often) and the filtered
  // array (sometimes) freed, so fusion can contract them.
  void filter(int limit) {
    if (static_cast<int>(p_.batch.size()) + 3 > limit) return;
    const Dims six{6};
    const View values = input_view(six);
    auto compress = [&](const View& vals, const Operand& cmp) -> BaseId {
      const BaseId m = add_base(DType::Bool, 6);
      Instruction c;
      c.op = chance(0.5) ? Opcode::Greater : Opcode::LessEqual;
      c.add_input(Operand::of(vals));
      c.add_input(cmp);
      c.out = contiguous_view(m, DType::Bool, six);
      if (!emit(c)) return -1;
      const BaseId out = add_base(dtype_, 6);
      Instruction f;
      f.op = Opcode::Compress;
      f.add_input(Operand::of(vals));
      f.add_input(Operand::of(contiguous_view(m, DType::Bool, six)));
      f.out = contiguous_view(out, dtype_, six);
      const bool ok = emit(f);
      if (chance(0.8)) emit_free(m);
      return ok ? out : -1;
    };
    const BaseId kept = compress(values, Operand::of(Scalar::of_int(dtype_, pick(5) - 2)));
    if (kept < 0) return;
    std::vector<BaseId> members{kept};
    for (int k = pick(4); k > 0 && static_cast<int>(p_.batch.size()) + 2 <= limit; --k) {
      const View from = contiguous_view(members[pick(static_cast<int>(members.size()))], dtype_, six);
      const int r = pick(4);
      if (r == 0) {  // elementwise over the class, with a constant or a broadcast element
        Instruction e;
        e.op = chance(0.5) ? Opcode::Add : Opcode::Multiply;
        e.add_input(Operand::of(from));
        e.add_input(chance(0.5) ? Operand::of(Scalar::of_int(dtype_, pick(5) - 2))
                                : Operand::of(persistent_view(Dims{})));
        const BaseId out = add_base(dtype_, 6);
        e.out = contiguous_view(out, dtype_, six);
        if (emit(e)) members.push_back(out);
      } else if (r == 1) {  // a reduction over the kept elements
        Instruction red;
        red.op = chance(0.5) ? Opcode::AddReduce : Opcode::MultiplyReduce;
        red.add_input(Operand::of(from));
        red.out = chance(0.5) ? persistent_view(Dims{}) : output_view(Dims{});
        emit(red);
      } else if (r == 2) {  // a scan: a member of the class
        Instruction sc;
        sc.op = Opcode::AddAccumulate;
        sc.add_input(Operand::of(from));
        const BaseId out = add_base(dtype_, 6);
        sc.out = contiguous_view(out, dtype_, six);
        if (emit(sc)) members.push_back(out);
      } else {  // a filter of the filtered
        const BaseId again = compress(from, Operand::of(Scalar::of_int(dtype_, pick(3) - 1)));
        if (again >= 0) members.push_back(again);
      }
    }
    for (BaseId id : members) {
      if (chance(0.4)) emit_free(id);
    }
  }

  void emit_free(BaseId id) {
    Instruction f;
    f.op = Opcode::Free;
    f.out.base = id;
    if (!emit(f)) return;
    registry_.remove(id);
    p_.bases[id].freed = true;
    std::erase_if(temps_, [id](const Temp& t) { return t.id == id; });
  }

  void step(int limit) {
    if (!temps_.empty() && chance(0.15)) {
      emit_free(temps_[pick(static_cast<int>(temps_.size()))].id);
      return;
    }
    if (chance(o_.p_sync)) {
      Instruction s;
      s.op = Opcode::Sync;
      s.out.base = persistent_[pick(static_cast<int>(persistent_.size()))];
      emit(s);
      return;
    }
    const int r = pick(100);
    if (r < 60) {
      emit(elementwise(kShapes[pick(3)]));
    } else if (r < 68) {
      Instruction in;
      in.op = Opcode::Range;
      in.out = output_view(kShapes[pick(3)]);
      emit(in);
    } else if (r < 82) {
      emit(reduction());
    } else if (r < 92) {
      emit(scan());
    } else if (r < 96 || !o_.filters) {
      gather(limit);
    } else {
      filter(limit);
    }
  }

  std::mt19937_64 rng_;
  RandomProgramOptions o_;
  DType dtype_;
  RandomProgram p_;
  BaseRegistry registry_;
  std::vector<BaseId> persistent_;
  std::vector<Temp> temps_;
  std::optional<Temp> pending_temp_;
};

}  // namespace

RandomProgram random_program(uint64_t seed, const RandomProgramOptions& options) {
  return Generator(seed, options).run();
}

std::vector<std::vector<uint8_t>> run_program(Backend& backend, const RandomProgram& p,
                                              const Partition& partition) {
  for (const BaseSpec& b : p.bases) {
    backend.declare(b.id, b.dtype, b.nelem);
    if (!b.data.empty()) backend.copy_from_host(b.id, b.data.data());
  }
  backend.execute(p.batch, partition);
  std::vector<std::vector<uint8_t>> out;
  for (const BaseSpec& b : p.bases) {
    if (b.freed) continue;
    std::vector<uint8_t> bytes(static_cast<std::size_t>(b.nelem) * dtype_size(b.dtype));
    backend.copy_to_host(b.id, bytes.data());
    out.push_back(std::move(bytes));
  }
  return out;
}

}  // namespace arrvm::testing
