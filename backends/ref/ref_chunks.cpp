// Elementwise instructions over one shape interpreted a chunk at a time
// (see ref_block.hpp, run_block_chunked).
#include <algorithm>
#include <memory>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "backends/ref/ref_chunks.hpp"
#include "backends/ref/ref_kernels.hpp"
#include "vm/error.hpp"

namespace arrvm::ref {

namespace {

// Elements per chunk: a block's temporaries, 32 KB each in float64, stay in
// the core's L2 from the instruction that writes them to the ones that read
// them; a chunk costs each instruction one dispatch (~0.1 us) against
// 2-8 us of work.
constexpr int64_t kChunkElements = 4096;

struct Scratch {
  std::unique_ptr<unsigned char[]> bytes;
  DType dtype = DType::Float64;
};

// Bases as the chunk's instructions see them: a temporary is its scratch
// buffer; any other base is the backend's memory, allocated before the
// first chunk runs.
class ChunkAccess final : public MemoryAccess {
 public:
  ChunkAccess(HostMemory& memory, std::unordered_map<BaseId, Scratch>& temps)
      : memory_(memory), temps_(temps) {}

  BaseMemory for_write(BaseId id, int64_t) override {
    const auto t = temps_.find(id);
    if (t != temps_.end()) return {t->second.bytes.get(), t->second.dtype, kChunkElements};
    const HostMemory::Buffer& b = memory_.find(id);
    return {memory_.for_write(id, false), b.dtype, b.nelem};  // (allocated already: the flag is moot)
  }
  BaseMemory for_read(BaseId id) override {
    const auto t = temps_.find(id);
    if (t != temps_.end()) return {t->second.bytes.get(), t->second.dtype, kChunkElements};
    const HostMemory::Buffer& b = memory_.find(id);
    return {b.data.get(), b.dtype, b.nelem};
  }
  void release(BaseId) override { throw InternalError("ref: a release inside a chunk"); }
  void kept(BaseId, int64_t) override { throw InternalError("ref: a compress inside a chunk"); }

 private:
  HostMemory& memory_;
  std::unordered_map<BaseId, Scratch>& temps_;
};

// The views of an instruction: its output and its array inputs.
template <typename F>
void for_views(const Instruction& in, F f) {
  f(in.out, true);
  for (int k = 0; k < in.nin; ++k) {
    if (!in.in[k].is_const) f(in.in[k].view, false);
  }
}

template <typename F>
void for_views(Instruction& in, F f) {
  f(in.out);
  for (int k = 0; k < in.nin; ++k) {
    if (!in.in[k].is_const) f(in.in[k].view);
  }
}

// The axis a chunk runs along for a run over `shape`: the outermost whose
// inner extent (the product of the extents after it) fits a chunk.
int chunk_axis(const Dims& shape, int64_t* inner) {
  int d = shape.size() - 1;
  *inner = 1;
  while (d > 0 && *inner * shape[d] <= kChunkElements) *inner *= shape[d--];
  return d;
}

}  // namespace

const Dims& run_shape(const Instruction& in) {
  return opcode_kind(in.op) == OpKind::Reduce ? in.in[0].view.shape : in.out.shape;
}

bool chunkable(const Instruction& in) {
  if (in.length_class >= 0) return false;
  const OpKind kind = opcode_kind(in.op);
  if (kind == OpKind::Elementwise) return true;
  if (kind != OpKind::Reduce || in.nin != 1 || in.in[0].is_const) return false;
  int64_t inner = 0;
  const Dims& shape = in.in[0].view.shape;
  return shape.size() > 0 && in.axis > chunk_axis(shape, &inner) && in.axis < shape.size() &&
         in.out.shape == shape.without(in.axis);
}

bool run_chunks(std::span<const Instruction* const> body, const std::unordered_set<BaseId>& freed_here,
                HostMemory& memory, const char** reason) {
  // Instructions over one shape: elementwise ones, and reductions along an
  // axis after the chunk's (each output element is then within one chunk).
  if (body.size() < 2) return (*reason = "one instruction"), false;
  const Dims* shape = &run_shape(*body[0]);
  for (const Instruction* in : body) {
    if (!chunkable(*in) || run_shape(*in) != *shape)
      throw InternalError("ref: an instruction a chunk cannot run");
    bool ok = true;
    const bool reduces = opcode_kind(in->op) == OpKind::Reduce;
    for_views(*in, [&](const View& v, bool out) { ok = ok && (out && reduces ? true : v.shape == *shape); });
    if (!ok) return (*reason = "views of several shapes"), false;
  }
  if (shape->size() == 0 || shape->product() < kChunkMinElements) return (*reason = "too small"), false;

  // Every view of a base the block writes is that write's view or shares no
  // element with it: element e of every instruction then depends only on
  // element e of the others, so any grouping of elements runs as the whole
  // instructions would (the condition fusion puts on a kernel's block).
  std::unordered_map<BaseId, const View*> written;  // base -> the view it is written through
  for (const Instruction* in : body) written.emplace(in->out.base, &in->out);
  bool safe = true;
  for (const Instruction* in : body) {
    for_views(*in, [&](const View& v, bool) {
      const auto w = written.find(v.base);
      if (safe && w != written.end() && &v != w->second && !same_elements(v, *w->second) &&
          may_overlap(v, *w->second))
        safe = false;
    });
  }
  for (const Instruction* in : body) {  // (two writes of one base: the same check between them)
    const View& w = *written.at(in->out.base);
    if (&in->out != &w && !same_elements(in->out, w) && may_overlap(in->out, w)) safe = false;
  }
  if (!safe) return (*reason = "a write overlapping another view of its base"), false;

  // Temporaries: bases of `freed_here` (freed by the block, mentioned by
  // these instructions alone) that they write first (no read before, and
  // only through one set of elements). They get a chunk-sized scratch
  // buffer and are never allocated whole.
  std::unordered_map<BaseId, Scratch> temps;
  {
    std::unordered_map<BaseId, bool> first_is_write;  // base -> its first mention writes it
    std::unordered_map<BaseId, bool> one_view;
    for (const Instruction* in : body) {
      for (int k = 0; k < in->nin; ++k) {
        if (!in->in[k].is_const) first_is_write.emplace(in->in[k].view.base, false);
      }
      first_is_write.emplace(in->out.base, true);
    }
    for (const Instruction* in : body) {
      for_views(*in, [&](const View& v, bool) {
        const auto w = written.find(v.base);
        if (w != written.end() && !same_elements(v, *w->second)) one_view[v.base] = false;
      });
    }
    for (BaseId f : freed_here) {
      const auto w = first_is_write.find(f);
      if (w != first_is_write.end() && w->second && one_view.count(f) == 0 &&
          written.at(f)->shape == *shape && memory.find(f).data == nullptr) {
        Scratch s;
        s.dtype = memory.find(f).dtype;
        s.bytes.reset(new unsigned char[static_cast<std::size_t>(kChunkElements) * dtype_size(s.dtype)]);
        temps.emplace(f, std::move(s));
      }
    }
  }

  // The other bases the block writes, allocated now (in instruction order,
  // as the whole instructions would: a base whose first mention writes all
  // of it is not zero-filled). A failure releases what this allocated and
  // leaves the block to run_block, which reports it.
  {
    std::vector<BaseId> allocated;
    std::unordered_map<BaseId, bool> mentioned;
    try {
      for (const Instruction* in : body) {
        for (int k = 0; k < in->nin; ++k) {
          if (!in->in[k].is_const) mentioned.emplace(in->in[k].view.base, true);
        }
        const BaseId out = in->out.base;
        const bool first = mentioned.emplace(out, true).second;
        if (temps.count(out) == 0 && memory.find(out).data == nullptr) {
          // (Read before it is written, an unallocated base reads as zeros: zero-filled.)
          memory.for_write(out, first && in->out.nelem() == memory.find(out).nelem);
          allocated.push_back(out);
        }
      }
    } catch (const InternalError&) {
      throw;
    } catch (const Error&) {
      for (BaseId id : allocated) memory.release(id);
      return (*reason = "an allocation failed"), false;
    }
  }

  // The chunks: axis `d` is the outermost whose inner extent fits a chunk;
  // a chunk is `rows` of it (fewer at its end) at one index of the axes
  // before it.
  int64_t inner = 1;  // product of the extents after d
  const int d = chunk_axis(*shape, &inner);
  const int64_t rows = std::max<int64_t>(1, kChunkElements / inner);
  const int64_t extent = (*shape)[d];

  std::vector<Instruction> chunk;
  chunk.reserve(body.size());
  for (const Instruction* in : body) chunk.push_back(*in);
  Dims chunk_shape = *shape;
  for (int a = 0; a < d; ++a) chunk_shape[a] = 1;
  chunk_shape[d] = std::min(rows, extent);
  const Dims temp_stride = row_major_strides(chunk_shape);
  for (Instruction& in : chunk) {
    const bool reduces = opcode_kind(in.op) == OpKind::Reduce;
    for_views(in, [&](View& v) {
      // (A reduction's output: the chunk's shape without the reduced axis,
      // which comes after d: its axes up to d are the chunk's.)
      v.shape = reduces && &v == &in.out ? chunk_shape.without(in.axis) : chunk_shape;
      if (temps.count(v.base) != 0) {
        v.offset = 0;
        v.stride = temp_stride;
      }
    });
  }

  ChunkAccess access(memory, temps);
  Dims index = Dims::filled(d, 0);  // over the axes before d
  for (bool more = true; more;) {
    for (int64_t r = 0; r < extent; r += rows) {
      const int64_t n = std::min(rows, extent - r);
      for (std::size_t j = 0; j < body.size(); ++j) {
        Instruction& in = chunk[j];
        const Instruction& whole = *body[j];
        auto place = [&](View& v, const View& w) {
          v.shape[d] = n;
          if (temps.count(v.base) != 0) return;
          int64_t off = w.offset + r * w.stride[d];
          for (int a = 0; a < d; ++a) off += index[a] * w.stride[a];
          v.offset = off;
        };
        place(in.out, whole.out);
        for (int k = 0; k < in.nin; ++k) {
          if (!in.in[k].is_const) place(in.in[k].view, whole.in[k].view);
        }
        run_instruction(in, access);
      }
    }
    more = false;
    for (int a = d - 1; a >= 0; --a) {
      if (++index[a] < (*shape)[a]) {
        more = true;
        break;
      }
      index[a] = 0;
    }
  }
  return true;
}

}  // namespace arrvm::ref
