// The interpreted tier a chunk at a time (backends/ref/ref_block.hpp,
// run_block_chunked): random blocks of elementwise instructions over one
// shape (rows, columns, transposed and broadcast inputs, constants,
// in-place updates, temporaries written and freed) with reductions and
// gathers among them (some out of range) leave every base byte for byte as
// run_block does and fail the same instructions; a run whose write overlaps
// another view of its base other than itself, or a small one, runs whole.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <unordered_map>
#include <vector>

#include "backends/host_memory.hpp"
#include "backends/ref/ref_block.hpp"
#include "vm/error.hpp"

using namespace arrvm;

namespace {

struct Base {
  BaseId id;
  DType dtype;
  int64_t nelem;
};

// A random block over `shape`: inputs b0..b3 and b5 (b0, b1 of the shape's
// size, b2 of the shape reversed for a transposed view, b3 the last axis
// alone for a broadcast, b5 int64 flat indices into b1, one of them out of
// range when `bad_index`), then `count` instructions: elementwise ones
// writing new temporaries (freed at the end unless kept), b0 in place or
// b4; now and then a sum or maximum over the first or last axis of a
// temporary (along the last, within a chunk when a chunk holds whole rows),
// or a gather from b1.
struct RandomBlock {
  std::vector<Instruction> batch;
  std::vector<Base> bases;
  std::vector<BaseId> freed;
};

View full_view(BaseId base, const Dims& shape, DType dtype = DType::Float64) {
  return contiguous_view(base, dtype, shape);
}

RandomBlock random_block(std::mt19937_64& rng, const Dims& shape, int count) {
  RandomBlock r;
  const int rank = shape.size();
  const int64_t n = shape.product();
  Dims reversed = Dims::filled(rank, 0);
  for (int a = 0; a < rank; ++a) reversed[a] = shape[rank - 1 - a];
  r.bases = {{0, DType::Float64, n}, {1, DType::Float64, n},
             {2, DType::Float64, n}, {3, DType::Float64, shape[rank - 1]},
             {4, DType::Float64, n}, {5, DType::Int64, n}};
  std::vector<View> inputs = {full_view(0, shape), full_view(1, shape)};
  View t = full_view(2, reversed);  // transposed: strides reversed
  for (int a = 0; a < rank; ++a) t.stride[a] = full_view(2, reversed).stride[rank - 1 - a];
  t.shape = shape;
  inputs.push_back(t);
  View bc = full_view(3, shape);  // the last axis broadcast over the others
  for (int a = 0; a < rank - 1; ++a) bc.stride[a] = 0;
  inputs.push_back(bc);
  View reversed_rows = full_view(1, shape);  // b1 read backwards along axis 0
  reversed_rows.stride[0] = -reversed_rows.stride[0];
  reversed_rows.offset = (shape[0] - 1) * full_view(1, shape).stride[0];
  inputs.push_back(reversed_rows);

  const Opcode binary[] = {Opcode::Add, Opcode::Subtract, Opcode::Multiply, Opcode::Divide, Opcode::Maximum};
  const Opcode unary[] = {Opcode::Sqrt, Opcode::Negative, Opcode::Absolute, Opcode::Exp};
  std::vector<BaseId> temps;
  BaseId next = 10;
  auto fresh = [&](const Dims& s) {
    r.bases.push_back({next, DType::Float64, s.product()});
    return next++;
  };
  for (int k = 0; k < count; ++k) {
    Instruction in;
    const int what = static_cast<int>(rng() % 10);
    if (what == 0 && !temps.empty()) {  // a sum over the first or last axis of a temporary
      in.op = rng() % 2 == 0 ? Opcode::AddReduce : Opcode::MaximumReduce;
      in.axis = rng() % 2 == 0 ? 0 : rank - 1;
      in.add_input(Operand::of(full_view(temps[rng() % temps.size()], shape)));
      const Dims rest = shape.without(in.axis);
      in.out = full_view(fresh(rest), rest);
      r.batch.push_back(in);
      continue;
    }
    if (what == 1) {  // a gather from b1 at b5's indices
      in.op = Opcode::Gather;
      Dims flat;
      flat.push_back(n);
      in.add_input(Operand::of(full_view(1, flat)));
      in.add_input(Operand::of(full_view(5, shape, DType::Int64)));
      const BaseId out = fresh(shape);
      in.out = full_view(out, shape);
      temps.push_back(out);
      r.batch.push_back(in);
      continue;
    }
    auto operand = [&]() -> Operand {
      const int pick = static_cast<int>(rng() % 8);
      if (pick == 0)
        return Operand::of(Scalar::of_double(DType::Float64, 0.5 + static_cast<double>(rng() % 7)));
      if (pick <= 3 && !temps.empty()) return Operand::of(full_view(temps[rng() % temps.size()], shape));
      return Operand::of(inputs[rng() % inputs.size()]);
    };
    if (rng() % 3 == 0) {
      in.op = unary[rng() % 4];
      in.add_input(operand());
      if (in.in[0].is_const) in.in[0] = Operand::of(inputs[0]);
    } else {
      in.op = binary[rng() % 5];
      in.add_input(operand());
      in.add_input(operand());
      if (in.in[0].is_const && in.in[1].is_const) in.in[0] = Operand::of(inputs[1]);
    }
    const int where = static_cast<int>(rng() % 6);
    if (where == 0) {  // b0 in place (every view of b0 in the block is the same)
      in.out = inputs[0];
    } else if (where == 1) {
      in.out = full_view(4, shape);
    } else {
      in.out = full_view(fresh(shape), shape);
      temps.push_back(in.out.base);
    }
    r.batch.push_back(in);
  }
  for (BaseId id : temps) {
    if (rng() % 4 == 0) continue;  // kept: a result of the block
    Instruction f;
    f.op = Opcode::Free;
    f.out = full_view(id, shape);
    r.batch.push_back(f);
    r.freed.push_back(id);
  }
  return r;
}

void declare(HostMemory& m, const RandomBlock& r, uint64_t seed, bool bad_index) {
  std::mt19937_64 rng(seed);
  for (const Base& b : r.bases) {
    m.declare(b.id, b.dtype, b.nelem);
    if (b.id == 4 || b.id >= 10) continue;  // outputs and temporaries start unallocated
    void* p = m.for_write(b.id, true);
    for (int64_t i = 0; i < b.nelem; ++i) {
      if (b.dtype == DType::Int64) {
        static_cast<int64_t*>(p)[i] = static_cast<int64_t>(rng() % static_cast<uint64_t>(b.nelem));
      } else {
        static_cast<double*>(p)[i] = static_cast<double>(rng() % 1000) / 37.0 + 0.25;
      }
    }
    if (b.dtype == DType::Int64 && bad_index) static_cast<int64_t*>(p)[b.nelem / 2] = b.nelem + 3;
  }
}

// Base `id`'s bytes (empty if unallocated).
std::vector<unsigned char> bytes(HostMemory& m, const Base& b) {
  const void* p = m.for_read(b.id);
  if (p == nullptr) return {};
  std::vector<unsigned char> out(static_cast<std::size_t>(b.nelem) * dtype_size(b.dtype));
  std::memcpy(out.data(), p, out.size());
  return out;
}

std::vector<uint32_t> all(const RandomBlock& r) {
  std::vector<uint32_t> block(r.batch.size());
  for (uint32_t i = 0; i < block.size(); ++i) block[i] = i;
  return block;
}

// The instructions that failed (run_block's InstructionsFailed), in order.
template <typename F>
std::vector<uint32_t> failed(F run) {
  try {
    run();
  } catch (const InstructionsFailed& e) {
    std::vector<uint32_t> out;
    for (const auto& f : e.failures) out.push_back(f.instr);
    return out;
  }
  return {};
}

// The bases a failure poisons: the failed instructions' outputs and what is
// computed from them, in order.
std::vector<BaseId> poisoned(const RandomBlock& r, const std::vector<uint32_t>& failures) {
  std::vector<BaseId> bad;
  for (uint32_t i = 0; i < r.batch.size(); ++i) {
    const Instruction& in = r.batch[i];
    bool hit = std::find(failures.begin(), failures.end(), i) != failures.end();
    for (int k = 0; k < in.nin; ++k) {
      if (!in.in[k].is_const && std::find(bad.begin(), bad.end(), in.in[k].view.base) != bad.end())
        hit = true;
    }
    if (hit && in.op != Opcode::Free) bad.push_back(in.out.base);
  }
  return bad;
}

Dims dims(std::initializer_list<int64_t> extents) {
  Dims d;
  for (int64_t e : extents) d.push_back(e);
  return d;
}

}  // namespace

TEST_CASE("chunked interpretation: random blocks equal run_block byte for byte, failures alike") {
  const std::vector<Dims> shapes = {dims({50000}), dims({300, 170}), dims({7, 9001}), dims({3, 5, 4000}),
                                    dims({2, 70000})};
  std::size_t chunked = 0, failing = 0;
  for (uint64_t seed = 0; seed < 80; ++seed) {
    std::mt19937_64 rng(seed);
    const Dims& shape = shapes[seed % shapes.size()];
    const RandomBlock r = random_block(rng, shape, 2 + static_cast<int>(rng() % 12));
    const bool bad_index = seed % 4 == 3;
    const std::vector<uint32_t> block = all(r);
    CAPTURE(seed);
    HostMemory whole, chunks;
    declare(whole, r, seed, bad_index);
    declare(chunks, r, seed, bad_index);
    std::unordered_map<BaseId, int64_t> lengths;
    std::size_t ran = 0;
    const std::vector<uint32_t> expect = failed([&] { ref::run_block(r.batch, block, whole, lengths); });
    const std::vector<uint32_t> got =
        failed([&] { ran = ref::run_block_chunked(r.batch, block, chunks, lengths); });
    CHECK(got == expect);
    chunked += ran;
    failing += expect.empty() ? 0 : 1;
    const std::vector<BaseId> bad = poisoned(r, expect);
    for (const Base& b : r.bases) {
      if (std::find(r.freed.begin(), r.freed.end(), b.id) != r.freed.end()) continue;
      if (std::find(bad.begin(), bad.end(), b.id) != bad.end()) continue;  // (poisoned: any bytes)
      CAPTURE(b.id);
      CHECK(bytes(whole, b) == bytes(chunks, b));
    }
    // Temporaries freed in the block and mentioned by one run were never
    // allocated whole: run_block returned more to the pool than chunks did.
    CHECK(chunks.pooled_bytes() <= whole.pooled_bytes());
  }
  CHECK(chunked > 200);  // most of these blocks' elementwise instructions ran a chunk at a time
  CHECK(failing > 5);    // and some blocks failed
}

TEST_CASE("chunked interpretation: temporaries of a chunked run are never allocated") {
  // t1 = b0 * 2; t2 = t1 + b0; b1 = sqrt(t2); free t1, t2.
  const Dims shape = dims({100000});
  auto instr = [&](Opcode op, BaseId out, std::vector<Operand> in) {
    Instruction x;
    x.op = op;
    x.out = full_view(out, shape);
    for (const Operand& o : in) x.add_input(o);
    return x;
  };
  Instruction f1, f2;
  f1.op = f2.op = Opcode::Free;
  f1.out = full_view(10, shape);
  f2.out = full_view(11, shape);
  const std::vector<Instruction> batch = {
      instr(Opcode::Multiply, 10,
            {Operand::of(full_view(0, shape)), Operand::of(Scalar::of_double(DType::Float64, 2))}),
      instr(Opcode::Add, 11, {Operand::of(full_view(10, shape)), Operand::of(full_view(0, shape))}),
      instr(Opcode::Sqrt, 1, {Operand::of(full_view(11, shape))}), f1, f2};
  const std::vector<uint32_t> block = {0, 1, 2, 3, 4};
  HostMemory m;
  for (BaseId id : {0, 1, 10, 11}) m.declare(id, DType::Float64, 100000);
  auto* p = static_cast<double*>(m.for_write(0, true));
  for (int i = 0; i < 100000; ++i) p[i] = i;
  std::unordered_map<BaseId, int64_t> lengths;
  CHECK(ref::run_block_chunked(batch, block, m, lengths) == 3);
  CHECK(m.pooled_bytes() == 0);  // t1 and t2 never held memory
  const auto* out = static_cast<const double*>(m.for_read(1));
  for (int i = 0; i < 100000; i += 997) CHECK(out[i] == std::sqrt(3.0 * i));
}

TEST_CASE(
    "chunked interpretation: a row sum of a temporary runs in the chunks, the temporary never allocated") {
  // t = b0 * b0; s = t.sum(axis=1); free t (400 rows of 1000: a chunk holds 4 rows).
  const Dims shape = dims({400, 1000});
  Instruction sq, sum, f;
  sq.op = Opcode::Multiply;
  sq.out = full_view(10, shape);
  sq.add_input(Operand::of(full_view(0, shape)));
  sq.add_input(Operand::of(full_view(0, shape)));
  sum.op = Opcode::AddReduce;
  sum.axis = 1;
  sum.out = full_view(1, dims({400}));
  sum.add_input(Operand::of(full_view(10, shape)));
  f.op = Opcode::Free;
  f.out = full_view(10, shape);
  const std::vector<Instruction> batch = {sq, sum, f};
  const std::vector<uint32_t> block = {0, 1, 2};
  HostMemory m, w;
  for (HostMemory* x : {&m, &w}) {
    x->declare(0, DType::Float64, 400000);
    x->declare(1, DType::Float64, 400);
    x->declare(10, DType::Float64, 400000);
    auto* p = static_cast<double*>(x->for_write(0, true));
    for (int i = 0; i < 400000; ++i) p[i] = 0.001 * (i % 977) - 0.3;
  }
  std::unordered_map<BaseId, int64_t> lengths;
  CHECK(ref::run_block_chunked(batch, block, m, lengths) == 2);
  CHECK(m.pooled_bytes() == 0);
  ref::run_block(batch, block, w, lengths);
  CHECK(w.pooled_bytes() > 0);
  CHECK(std::memcmp(m.for_read(1), w.for_read(1), 400 * sizeof(double)) == 0);
  // Along axis 0, each column's sum spans every chunk: the sum runs whole after them.
  Instruction col = sum;
  col.axis = 0;
  col.out = full_view(1, dims({1000}));
  HostMemory m2, w2;
  for (HostMemory* x : {&m2, &w2}) {
    x->declare(0, DType::Float64, 400000);
    x->declare(1, DType::Float64, 1000);
    x->declare(10, DType::Float64, 400000);
    auto* p = static_cast<double*>(x->for_write(0, true));
    for (int i = 0; i < 400000; ++i) p[i] = 0.001 * (i % 977) - 0.3;
  }
  const std::vector<Instruction> batch2 = {sq, col, f};
  CHECK(ref::run_block_chunked(batch2, block, m2, lengths) == 0);  // (the product alone: one instruction)
  ref::run_block(batch2, block, w2, lengths);
  CHECK(std::memcmp(m2.for_read(1), w2.for_read(1), 1000 * sizeof(double)) == 0);
}

TEST_CASE("chunked interpretation: a write overlapping another view of its base runs whole") {
  // t = b0[:-1] + 1; b0[1:] = t; c = b0[:-1] * 2: element e of the last
  // reads what the second wrote at e - 1, which a chunked run would have
  // written later.
  const Dims part = dims({59999});
  View head = make_view(0, 0, part, row_major_strides(part));
  View tail = make_view(0, 1, part, row_major_strides(part));
  head.dtype = tail.dtype = DType::Float64;
  Instruction a, b, c;
  a.op = Opcode::Add;
  a.out = contiguous_view(1, DType::Float64, part);
  a.add_input(Operand::of(head));
  a.add_input(Operand::of(Scalar::of_double(DType::Float64, 1.0)));
  b.op = Opcode::Identity;
  b.out = tail;
  b.add_input(Operand::of(a.out));
  c.op = Opcode::Multiply;
  c.out = contiguous_view(2, DType::Float64, part);
  c.add_input(Operand::of(head));
  c.add_input(Operand::of(Scalar::of_double(DType::Float64, 2.0)));
  const std::vector<Instruction> batch = {a, b, c};
  const std::vector<uint32_t> block = {0, 1, 2};
  HostMemory m, w;
  for (HostMemory* x : {&m, &w}) {
    x->declare(0, DType::Float64, 60000);
    x->declare(1, DType::Float64, 59999);
    x->declare(2, DType::Float64, 59999);
    auto* p = static_cast<double*>(x->for_write(0, true));
    for (int i = 0; i < 60000; ++i) p[i] = i;
  }
  std::unordered_map<BaseId, int64_t> lengths;
  const char* why = nullptr;
  CHECK(ref::run_block_chunked(batch, block, m, lengths, &why) == 0);
  REQUIRE(why != nullptr);
  CHECK(std::string(why).find("overlapping") != std::string::npos);
  ref::run_block(batch, block, w, lengths);
  for (BaseId id : {0, 1, 2}) {
    const std::size_t n = id == 0 ? 60000 : 59999;
    CHECK(std::memcmp(m.for_read(id), w.for_read(id), n * sizeof(double)) == 0);
  }
}

TEST_CASE("chunked interpretation: small runs run whole") {
  const Dims shape = dims({1000});  // under 2^15 elements
  Instruction a;
  a.op = Opcode::Add;
  a.out = contiguous_view(1, DType::Float64, shape);
  a.add_input(Operand::of(contiguous_view(0, DType::Float64, shape)));
  a.add_input(Operand::of(Scalar::of_double(DType::Float64, 1.0)));
  Instruction b = a;
  b.out.base = 2;
  HostMemory m;
  for (BaseId id : {0, 1, 2}) m.declare(id, DType::Float64, 1000);
  const std::vector<Instruction> batch = {a, b};
  const std::vector<uint32_t> block = {0, 1};
  std::unordered_map<BaseId, int64_t> lengths;
  const char* why = nullptr;
  CHECK(ref::run_block_chunked(batch, block, m, lengths, &why) == 0);
  REQUIRE(why != nullptr);
  CHECK(std::string(why) == "too small");
  const auto* out = static_cast<const double*>(m.for_read(2));
  REQUIRE(out != nullptr);
  CHECK(out[5] == 1.0);
}
