// Pass `contract` of codegen::lower (backends/loop_ir.hpp): a base that the
// block creates and frees, whose every access is preceded by a full write in
// the block and which no sync in the block reads, becomes a scalar
// temporary of the loop body: it is never allocated (seed 001's contraction).
#include <algorithm>
#include <map>
#include <unordered_map>

#include "backends/loop_ir.hpp"
#include "vm/error.hpp"

namespace arrvm::codegen {

namespace {

// A write that covers every element of a base of `nelem` elements exactly
// once, in row-major order, so that loop index <-> element is a bijection.
// Axes of stride 0 are left out: only a row-fused statement's output has
// them (lower_nest widens it to the nest; it runs once per row), since an
// instruction's output never repeats an element.
bool is_full_write(const View& v, int64_t nelem) {
  Dims shape;
  std::vector<int64_t> stride;
  for (int d = 0; d < v.rank(); ++d) {
    if (v.stride[d] == 0 && v.shape[d] > 1) continue;
    shape.push_back(v.shape[d]);
    stride.push_back(v.stride[d]);
  }
  if (v.offset != 0 || shape.product() != nelem || nelem == 0) return false;
  const Dims rm = row_major_strides(shape);
  for (int d = 0; d < shape.size(); ++d) {
    if (shape[d] > 1 && stride[d] != rm[d]) return false;
  }
  return true;
}

// How the block uses one base, in one pass over the block: contractible if
// its first access is a write that covers it (row-major, checked at its
// free), every later access is that same view, and no sync reads it and no
// gather or scatter indexes it (they need the array, not one element per
// index).
struct BaseUse {
  const View* first = nullptr;  // the first access, a write
  bool ok = true;
};

std::unordered_map<BaseId, BaseUse> base_uses(std::span<const Instruction> batch,
                                              std::span<const uint32_t> block) {
  std::unordered_map<BaseId, BaseUse> uses;
  for (uint32_t i : block) {
    const Instruction& in = batch[i];
    if (opcode_kind(in.op) == OpKind::Sync) uses[in.out.base].ok = false;
    if (is_control(in.op)) continue;
    if (opcode_kind(in.op) == OpKind::Gather) uses[in.in[0].view.base].ok = false;
    if (in.op == Opcode::Scatter) uses[in.out.base].ok = false;
    for (int k = 0; k < in.nin; ++k) {
      if (in.in[k].is_const) continue;
      BaseUse& u = uses[in.in[k].view.base];
      if (u.first == nullptr || !same_elements(*u.first, in.in[k].view)) u.ok = false;
    }
    BaseUse& u = uses[in.out.base];
    if (u.first == nullptr) {
      u.first = &in.out;
    } else if (!same_elements(*u.first, in.out)) {
      u.ok = false;
    }
  }
  return uses;
}

}  // namespace

namespace {

// Store-to-load forwarding. An elementwise or generator statement writes an
// injective view that a later statement reads through an identical view
// (the program still holds the array, so it is stored): the writer computes
// into a temporary, an identity statement right after it stores that, and
// the later reads take the temporary. Fusibility (Def. 12) guarantees the
// read is of the element the same iteration wrote, and without it the
// compiler sees the store and the load through different pointers of one
// base (no vectorization, a load per use).
void forward_stores(LoweredBlock* b) {
  LoopKernel& k = b->kernel;
  std::vector<Stmt> body;
  body.reserve(k.body.size());
  std::vector<std::pair<std::size_t, int>> live;  // (view slot written, its temporary)
  auto forwarded = [&](const Arg& a) -> const std::pair<std::size_t, int>* {
    if (a.kind != ArgKind::View) return nullptr;
    for (const auto& f : live) {
      if (same_elements(b->views[f.first], b->views[a.index])) return &f;
    }
    return nullptr;
  };
  for (std::size_t s = 0; s < k.body.size(); ++s) {
    Stmt st = k.body[s];
    // A row program's segment is a loop of its own: its temporaries end with it.
    if (s > 0 && k.body[s - 1].segment != st.segment) live.clear();
    for (int j = 0; j < st.nin; ++j) {
      if (const auto* f = forwarded(st.in[j])) st.in[j] = Arg{ArgKind::Temp, f->second, st.in[j].dtype};
    }
    // A write of another view of a forwarded base ends its forwarding.
    if (st.out.kind == ArgKind::View) {
      std::erase_if(live,
                    [&](const auto& f) { return b->views[f.first].base == b->views[st.out.index].base; });
    }
    const OpKind kind = opcode_kind(st.op);
    bool read_later = false;
    if (st.out.kind == ArgKind::View && (kind == OpKind::Elementwise || kind == OpKind::Generator) &&
        !b->exclusive[st.out.index] && is_injective(b->views[st.out.index])) {
      const View& w = b->views[st.out.index];
      for (std::size_t t = s + 1; t < k.body.size() && !read_later; ++t) {
        const Stmt& later = k.body[t];
        if (later.segment != st.segment) break;
        for (int j = 0; j < later.nin; ++j) {
          const Arg& a = later.in[j];
          if (a.kind == ArgKind::View && a.index != st.out.index && same_elements(b->views[a.index], w)) {
            read_later = true;
          }
        }
      }
    }
    if (!read_later) {
      body.push_back(st);
      continue;
    }
    const int temp = static_cast<int>(k.temps.size());
    k.temps.push_back(st.out.dtype);
    const Arg view = st.out;
    st.out = Arg{ArgKind::Temp, temp, view.dtype};
    body.push_back(st);
    Stmt store;
    store.op = Opcode::Identity;
    store.out = view;
    store.in[0] = Arg{ArgKind::Temp, temp, view.dtype};
    store.nin = 1;
    store.domain = st.domain;
    store.depth = st.depth;
    store.segment = st.segment;
    body.push_back(store);
    live.emplace_back(static_cast<std::size_t>(view.index), temp);
  }
  k.body = std::move(body);
}

// Dead-store elimination. A statement that stores into a view (after
// forward_stores: the identity that stores a forwarded temporary) is dropped
// when the next access to its base in the block is a write of the same
// elements by an elementwise or generator statement that runs wherever it
// runs: nothing can read the earlier value, in this iteration (the reads of
// that view are temporaries now) or in another (the block is fusible). An
// in-place update in a loop fused N times (`count += inside` in an escape-
// time loop) stored the array N times through N pointers of one base; the
// C compiler must assume any two of them alias, and its compile time grew
// with them (2.4 s for a 100-step Mandelbrot kernel, 0.95 s with one store).
// Any other access of the base in between (a read of another view, a
// gather, a scatter, a reduction's output) keeps the store.
void drop_overwritten_stores(LoweredBlock* b) {
  LoopKernel& k = b->kernel;
  if (k.counters > 0) return;
  auto plain_write = [&](const Stmt& st) {
    const OpKind kind = opcode_kind(st.op);
    return st.out.kind == ArgKind::View && (kind == OpKind::Elementwise || kind == OpKind::Generator) &&
           st.acc < 0 && st.err < 0 && st.domain < 0 && !b->exclusive[st.out.index] &&
           is_injective(b->views[st.out.index]);
  };
  // Per base, the statements that access it through a view slot, in order;
  // a base an indexed slot names is never touched.
  std::unordered_map<BaseId, std::vector<std::size_t>> accesses;
  for (std::size_t s = 0; s < k.body.size(); ++s) {
    const Stmt& st = k.body[s];
    auto note = [&](const Arg& a) {
      if (a.kind != ArgKind::View) return;
      std::vector<std::size_t>& list = accesses[b->views[a.index].base];
      if (list.empty() || list.back() != s) list.push_back(s);
    };
    note(st.out);
    for (int j = 0; j < st.nin; ++j) note(st.in[j]);
  }
  for (const View& v : b->indexed) accesses.erase(v.base);
  std::vector<bool> dead(k.body.size(), false);
  bool any = false;
  for (const auto& [base, list] : accesses) {
    for (std::size_t n = 0; n + 1 < list.size(); ++n) {
      const Stmt& first = k.body[list[n]];
      const Stmt& next = k.body[list[n + 1]];
      if (!plain_write(first) || !plain_write(next) || first.depth != next.depth) continue;
      if (first.segment != next.segment) continue;
      if (!same_elements(b->views[first.out.index], b->views[next.out.index])) continue;
      bool reads = false;  // `next` reading the base reads the old value
      for (int j = 0; j < next.nin; ++j) {
        reads |= next.in[j].kind == ArgKind::View && b->views[next.in[j].index].base == base;
      }
      if (reads) continue;
      dead[list[n]] = true;
      any = true;
    }
  }
  if (!any) return;
  std::vector<Stmt> body;
  body.reserve(k.body.size());
  for (std::size_t s = 0; s < k.body.size(); ++s) {
    if (!dead[s]) body.push_back(k.body[s]);
  }
  k.body = std::move(body);
}

// One slot per view read, and none unread. build() gives every operand its
// own slot, so a view read by several instructions (water_ice's density
// reads T and S a dozen times each) became as many pointers and offsets:
// about 60 offsets live in the loop nest, spilled and recomputed at every
// row. Read-only slots of the same view (base, offset, shape, strides) now
// share one slot, and the slots of reads forward_stores replaced go.
// Written slots stay apart (cpu's writes_all() skips zero-filling a base
// whose only slot is written, which a merged read-write slot would break;
// forward_stores already turns a read after a write into a temporary), and
// so does every slot of a kernel with a compress (a slot's length class
// decides how it is indexed).
void merge_reads(LoweredBlock* b) {
  LoopKernel& k = b->kernel;
  if (k.counters > 0) return;
  // Slots no statement names any more (reads forward_stores replaced) go.
  std::vector<bool> used(b->views.size(), false);
  for (const Stmt& st : k.body) {
    if (st.out.kind == ArgKind::View) used[st.out.index] = true;
    for (int j = 0; j < st.nin; ++j) {
      if (st.in[j].kind == ArgKind::View) used[st.in[j].index] = true;
    }
  }
  std::vector<int> to(b->views.size(), -1);
  std::vector<View> views;
  std::vector<bool> exclusive, written;
  std::vector<DType> dtypes;
  std::map<std::pair<BaseId, int64_t>, std::vector<int>> reads;  // (base, offset) -> read-only slots kept
  for (std::size_t v = 0; v < b->views.size(); ++v) {
    if (!used[v]) continue;
    const View& x = b->views[v];
    const bool shareable = !k.written[v] && !b->exclusive[v];
    if (shareable) {
      std::vector<int>& candidates = reads[{x.base, x.offset}];
      for (int u : candidates) {
        const View& y = views[u];
        if (y.dtype == x.dtype && y.shape == x.shape && y.stride == x.stride) {
          to[v] = u;
          break;
        }
      }
      if (to[v] >= 0) continue;
      candidates.push_back(static_cast<int>(views.size()));
    }
    to[v] = static_cast<int>(views.size());
    views.push_back(x);
    exclusive.push_back(b->exclusive[v]);
    written.push_back(k.written[v]);
    dtypes.push_back(k.views[v]);
  }
  if (views.size() == b->views.size()) return;
  auto remap = [&](Arg& a) {
    if (a.kind == ArgKind::View) a.index = to[a.index];
  };
  for (Stmt& st : k.body) {
    remap(st.out);
    for (int j = 0; j < st.nin; ++j) remap(st.in[j]);
  }
  b->views = std::move(views);
  b->exclusive = std::move(exclusive);
  k.written = std::move(written);
  k.views = std::move(dtypes);
}

}  // namespace

LoweredBlock contract(LoweredBlock b, std::span<const Instruction> batch, std::span<const uint32_t> block,
                      std::span<const BaseId> keep) {
  b = contract_bases(std::move(b), batch, block, keep);
  forward_stores(&b);
  drop_overwritten_stores(&b);
  merge_reads(&b);
  return b;
}

LoweredBlock contract_bases(LoweredBlock b, std::span<const Instruction> batch,
                            std::span<const uint32_t> block, std::span<const BaseId> keep) {
  const bool frees = std::any_of(block.begin(), block.end(),
                                 [&](uint32_t i) { return opcode_kind(batch[i].op) == OpKind::Free; });
  if (!frees) return b;
  std::map<BaseId, int> temp_of;
  const std::unordered_map<BaseId, BaseUse> uses = base_uses(batch, block);
  for (uint32_t i : block) {
    const Instruction& in = batch[i];
    if (opcode_kind(in.op) != OpKind::Free) continue;
    auto it = uses.find(in.out.base);
    if (std::find(keep.begin(), keep.end(), in.out.base) != keep.end()) continue;
    if (it != uses.end() && it->second.ok && it->second.first != nullptr &&
        is_full_write(*it->second.first, in.out.nelem())) {
      temp_of[in.out.base] = static_cast<int>(b.kernel.temps.size());
      b.kernel.temps.push_back(in.out.dtype);
      b.contracted.push_back(in.out.base);
    }
  }
  if (temp_of.empty()) return b;
  // Renumber the view slots that stay; the others become temporaries.
  LoopKernel& k = b.kernel;
  std::vector<Arg> slot_arg(b.views.size());
  std::vector<View> views;
  std::vector<bool> exclusive, written;
  std::vector<DType> dtypes;
  for (std::size_t v = 0; v < b.views.size(); ++v) {
    auto it = temp_of.find(b.views[v].base);
    if (it != temp_of.end()) {
      slot_arg[v] = Arg{ArgKind::Temp, it->second, k.views[v]};
      continue;
    }
    slot_arg[v] = Arg{ArgKind::View, static_cast<int>(views.size()), k.views[v]};
    views.push_back(b.views[v]);
    exclusive.push_back(b.exclusive[v]);
    written.push_back(k.written[v]);
    dtypes.push_back(k.views[v]);
  }
  auto remap = [&](Arg& a) {
    if (a.kind == ArgKind::View) a = slot_arg[a.index];
  };
  for (Stmt& st : k.body) {
    remap(st.out);
    for (int j = 0; j < st.nin; ++j) remap(st.in[j]);
  }
  b.views = std::move(views);
  b.exclusive = std::move(exclusive);
  k.written = std::move(written);
  k.views = std::move(dtypes);
  return b;
}

}  // namespace arrvm::codegen
