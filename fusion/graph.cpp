#include "fusion/graph.hpp"

#include <algorithm>
#include <atomic>
#include <string>
#include <unordered_map>

#include "vm/error.hpp"

namespace arrvm::fusion {

namespace {

// The interning key of a view: exactly what same_elements compares.
std::string view_key(const View& v) {
  std::string k;
  k.reserve(8 * (2 + 2 * v.rank()));
  auto put = [&k](int64_t x) { k.append(reinterpret_cast<const char*>(&x), sizeof x); };
  put(v.base);
  put(v.offset);
  put(v.rank());
  for (int i = 0; i < v.rank(); ++i) {
    put(v.shape[i]);
    put(v.shape[i] > 1 ? v.stride[i] : 0);
  }
  return k;
}

std::string dims_key(const Dims& d) {
  std::string k;
  for (int64_t x : d) k.append(reinterpret_cast<const char*>(&x), sizeof x);
  return k + static_cast<char>(d.size());
}

// True if every element of `x` is an element of `w`: identical views, or a
// `w` that is one contiguous run of elements containing x's range.
bool covers(const View& w, const View& x) {
  if (same_elements(w, x)) return true;
  int64_t wlo, whi, xlo, xhi;
  if (!element_range(w, &wlo, &whi) || !element_range(x, &xlo, &xhi)) return false;
  if (w.nelem() != whi - wlo + 1) return false;  // w has holes (w is injective)
  return wlo <= xlo && xhi <= whi;
}

}  // namespace

namespace {
std::atomic<uint64_t> next_serial{1};
}  // namespace

Graph::Graph(std::span<const Instruction> batch, FusionRules rules) : Graph(batch, rules, NoDependencies{}) {
  build_dependencies();
}

Graph::Graph(std::span<const Instruction> batch, FusionRules rules, NoDependencies)
    : batch_(batch), rules_(rules) {
  serial_ = next_serial.fetch_add(1, std::memory_order_relaxed);
  build_accesses();
  find_new_bases();
  succ_.assign(batch_.size(), {});
  pred_.assign(batch_.size(), {});
}

void Graph::build_accesses() {
  const std::size_t n = batch_.size();
  access_.resize(n);
  std::unordered_map<std::string, ArrayId> array_ids;
  std::unordered_map<std::string, uint32_t> shape_ids;
  std::unordered_map<BaseId, uint32_t> base_ids;
  auto base_of = [&](BaseId id) {
    auto [it, fresh] = base_ids.emplace(id, 0);
    if (fresh) {
      it->second = static_cast<uint32_t>(base_ids_.size());
      base_ids_.push_back(id);
      base_users_.emplace_back();
    }
    return it->second;
  };
  auto intern_view = [&](const View& v) {
    auto [it, fresh] = array_ids.emplace(view_key(v), 0);
    if (fresh) {
      it->second = static_cast<ArrayId>(arrays_.size());
      // The elements the view holds: a broadcast axis (stride 0) reads the
      // same ones again, from cache, so it does not multiply the traffic.
      int64_t distinct = 1;
      for (int d = 0; d < v.rank(); ++d) distinct *= v.stride[d] == 0 && v.shape[d] > 0 ? 1 : v.shape[d];
      arrays_.push_back(ArrayInfo{v, base_of(v.base), distinct * static_cast<int64_t>(dtype_size(v.dtype))});
      array_users_.emplace_back();
    }
    return it->second;
  };
  auto touch_base = [&](uint32_t base, uint32_t i) {
    auto& users = base_users_[base];
    if (users.empty() || users.back() != i) users.push_back(i);
  };
  auto touch_array = [&](ArrayId a, uint32_t i) {
    auto& users = array_users_[a];
    if (users.empty() || users.back() != i) users.push_back(i);
    touch_base(arrays_[a].base, i);
  };
  std::unordered_map<BaseId, uint32_t> compress_into;  // class (output base) -> its latest compress
  for (uint32_t i = 0; i < n; ++i) {
    const Instruction& in = batch_[i];
    Access& a = access_[i];
    a.kind = opcode_kind(in.op);
    if (in.length_class >= 0) {
      const auto it = compress_into.find(in.length_class);
      if (it == compress_into.end())
        throw InternalError("graph: `" + to_string(in) + "` of a length class with no compress before it");
      a.domain = it->second;
    }
    if (a.kind == OpKind::Compress) {
      compress_into[in.out.base] = i;
      filters_ = true;
    }
    if (a.is_control()) {
      a.control_base = base_of(in.out.base);
      if (a.kind == OpKind::Free) a.del_base = a.control_base;
      touch_base(a.control_base, i);
      continue;
    }
    for (int k = 0; k < in.nin; ++k) {
      if (in.in[k].is_const) continue;
      const ArrayId id = intern_view(in.in[k].view);
      if (std::find(a.reads.begin(), a.reads.begin() + a.nreads, id) == a.reads.begin() + a.nreads) {
        a.reads[a.nreads++] = id;
      }
      touch_array(id, i);
    }
    a.write = intern_view(in.out);
    touch_array(a.write, i);
    const Dims& shape = iteration_shape(in);
    auto [it, fresh] = shape_ids.emplace(dims_key(shape), static_cast<uint32_t>(shapes_.size()));
    if (fresh) shapes_.push_back(shape);
    a.shape = it->second;
    if (a.kind == OpKind::Reduce || a.kind == OpKind::Accumulate) a.axis = in.axis;
    if (a.kind == OpKind::Reduce) a.reduce_out = a.write;
    if (a.kind == OpKind::Gather) a.gather_src = intern_view(in.in[0].view);
    if (a.kind == OpKind::Scatter) a.scatter_target = a.write;
  }
}

// new[f]: f is the first instruction of the batch to touch its output's base,
// does not read that base, and overwrites every element of it the batch
// touches (free and sync count as touching the whole base). Then nothing the
// batch reads of the base comes from before the batch, so a block holding f
// reads none of it from memory.
void Graph::find_new_bases() {
  const std::size_t nb = base_ids_.size();
  creator_.assign(nb, kNone);
  releaser_.assign(nb, kNone);
  for (uint32_t i = 0; i < access_.size(); ++i) {
    if (access_[i].del_base != kNone) releaser_[access_[i].del_base] = i;
  }
  std::vector<int64_t> lo(nb, INT64_MAX), hi(nb, INT64_MIN);
  auto extend = [&](uint32_t base, const View& v) {
    int64_t a, b;
    if (!element_range(v, &a, &b)) return;
    lo[base] = std::min(lo[base], a);
    hi[base] = std::max(hi[base], b);
  };
  for (const ArrayInfo& ai : arrays_) extend(ai.base, ai.view);
  for (uint32_t i = 0; i < access_.size(); ++i) {
    if (access_[i].is_control()) extend(access_[i].control_base, batch_[i].out);
  }
  for (uint32_t base = 0; base < nb; ++base) {
    const uint32_t f = base_users_[base].front();
    Access& a = access_[f];
    if (a.is_control() || a.kind == OpKind::Scatter || a.write == kNone) continue;
    if (arrays_[a.write].base != base) continue;
    bool reads_base = false;
    for (ArrayId r : a.read_ids()) reads_base |= arrays_[r].base == base;
    if (reads_base) continue;
    const View& w = arrays_[a.write].view;
    int64_t wlo, whi;
    if (!element_range(w, &wlo, &whi) || w.nelem() != whi - wlo + 1) continue;
    if (wlo <= lo[base] && hi[base] <= whi) {
      a.new_base = base;
      creator_[base] = f;
      ++new_bases_;
    }
  }
}

// Per base, the accesses a later access may conflict with. A write that
// covers an earlier access replaces it: anything that conflicts with the
// earlier access overlaps the write, so it is ordered after it anyway.
template <typename F>
void Graph::for_each_access(uint32_t i, F&& f) const {
  const Access& a = access_[i];
  if (a.kind == OpKind::Sync) {
    f(a.control_base, batch_[i].out, false);
  } else if (a.kind == OpKind::Free) {
    f(a.control_base, batch_[i].out, true);
  } else {
    for (ArrayId r : a.read_ids()) f(arrays_[r].base, arrays_[r].view, false);
    f(arrays_[a.write].base, arrays_[a.write].view, true);
  }
}

std::string Graph::order_violation(std::span<const uint32_t> block_of) const {
  struct Seen {
    uint32_t block;
    uint32_t instr;
    const View* view;
    bool write;
  };
  // Per base, the accesses a later one may conflict with, as
  // build_dependencies keeps them (a covering write replaces what it
  // covers), sorted by block (stable). Blocks mostly grow with the batch
  // index, so an insertion lands near the end and a lookup stops after the
  // few accesses of later blocks.
  std::vector<std::vector<Seen>> seen(base_ids_.size());
  auto insert = [&](uint32_t base, Seen e) {
    std::vector<Seen>& s = seen[base];
    s.insert(
        std::upper_bound(s.begin(), s.end(), e.block, [](uint32_t b, const Seen& x) { return b < x.block; }),
        e);
  };
  for (uint32_t j = 0; j < access_.size(); ++j) {
    const uint32_t b = block_of[j];
    std::string problem;
    for_each_access(j, [&](uint32_t base, const View& v, bool write) {
      const std::vector<Seen>& s = seen[base];
      for (auto it = s.rbegin(); problem.empty() && it != s.rend() && it->block > b; ++it) {
        if ((write || it->write) && may_overlap(v, *it->view)) {
          problem = "dependency " + std::to_string(it->instr) + " -> " + std::to_string(j) +
                    " goes from block " + std::to_string(it->block) + " back to block " + std::to_string(b);
        }
      }
    });
    if (!problem.empty()) return problem;
    const Access& a = access_[j];
    const bool covering = a.kind != OpKind::Scatter && a.kind != OpKind::Sync;
    const View* written = nullptr;
    uint32_t written_base = kNone;
    for_each_access(j, [&](uint32_t base, const View& v, bool write) {
      if (write) {
        written = &v;
        written_base = base;
      }
    });
    if (written != nullptr && covering) {
      std::erase_if(seen[written_base], [&](const Seen& e) { return covers(*written, *e.view); });
    }
    for_each_access(j, [&](uint32_t base, const View& v, bool write) {
      if (v.nelem() == 0 || (write && a.kind == OpKind::Free)) return;
      if (!write && written != nullptr && covering && base == written_base && covers(*written, v)) return;
      insert(base, Seen{b, j, &v, write});
    });
  }
  return {};
}

void Graph::build_dependencies() {
  const std::size_t n = batch_.size();
  succ_.assign(n, {});
  pred_.assign(n, {});
  struct Entry {
    uint32_t instr;
    View view;
  };
  std::vector<std::vector<Entry>> reads(base_ids_.size()), writes(base_ids_.size());
  std::vector<uint32_t> preds;
  std::vector<std::pair<uint32_t, const View*>> my_reads;
  for (uint32_t i = 0; i < n; ++i) {
    const Access& a = access_[i];
    const Instruction& in = batch_[i];
    preds.clear();
    my_reads.clear();
    const View* my_write = nullptr;
    bool covering = false;
    uint32_t write_base = kNone;
    if (a.kind == OpKind::Sync) {
      my_reads.emplace_back(a.control_base, &in.out);
    } else if (a.kind == OpKind::Free) {
      my_write = &in.out;
      write_base = a.control_base;
      covering = true;
    } else {
      for (ArrayId r : a.read_ids()) my_reads.emplace_back(arrays_[r].base, &arrays_[r].view);
      my_write = &arrays_[a.write].view;
      write_base = arrays_[a.write].base;
      covering = a.kind != OpKind::Scatter;  // a scatter writes only where indexed
    }
    for (auto [base, v] : my_reads) {
      for (const Entry& e : writes[base]) {
        if (may_overlap(*v, e.view)) preds.push_back(e.instr);
      }
    }
    if (my_write != nullptr) {
      for (const Entry& e : writes[write_base]) {
        if (may_overlap(*my_write, e.view)) preds.push_back(e.instr);
      }
      for (const Entry& e : reads[write_base]) {
        if (may_overlap(*my_write, e.view)) preds.push_back(e.instr);
      }
      if (covering) {
        auto covered = [&](const Entry& e) { return covers(*my_write, e.view); };
        std::erase_if(writes[write_base], covered);
        std::erase_if(reads[write_base], covered);
      }
    }
    for (auto [base, v] : my_reads) {
      if (v->nelem() == 0) continue;
      if (covering && write_base == base && covers(*my_write, *v)) continue;
      reads[base].push_back(Entry{i, *v});
    }
    if (my_write != nullptr && my_write->nelem() > 0 && a.kind != OpKind::Free) {
      writes[write_base].push_back(Entry{i, *my_write});
    }
    std::sort(preds.begin(), preds.end());
    preds.erase(std::unique(preds.begin(), preds.end()), preds.end());
    for (uint32_t p : preds) {
      ARRVM_ASSERT(p < i);
      succ_[p].push_back(i);
    }
    pred_[i] = preds;
  }
}

std::vector<std::pair<uint32_t, uint32_t>> Graph::dependency_edges() const {
  std::vector<std::pair<uint32_t, uint32_t>> e;
  for (uint32_t i = 0; i < succ_.size(); ++i) {
    for (uint32_t j : succ_[i]) e.emplace_back(i, j);
  }
  return e;
}

bool Graph::overlap(ArrayId a, ArrayId b) const {
  return may_overlap(arrays_[a].view, arrays_[b].view);
}

bool Graph::conflict(ArrayId a, ArrayId b) const {
  return a != b && overlap(a, b);
}

bool Graph::fusible(uint32_t i, uint32_t j) const {
  if (i == j) return true;
  const Access& a = access_[i];
  const Access& b = access_[j];
  if (a.is_control() || b.is_control()) return true;  // no iteration, no data access
  // Rule 8: the backend runs sweeps, gathers and scatters alone.
  if (rules_.sweeps_alone && (a.kind != OpKind::Elementwise || b.kind != OpKind::Elementwise)) return false;
  if (a.shape != b.shape) return false;
  if (a.axis >= 0 && b.axis >= 0 && a.axis != b.axis) return false;
  // Rule 7: a sweep along another axis than the last reorders the loop nest,
  // and a scatter must write in row-major order (duplicates: the last wins).
  const int last = shape_rank(a.shape) - 1;
  if ((a.kind == OpKind::Scatter && b.axis >= 0 && b.axis != last) ||
      (b.kind == OpKind::Scatter && a.axis >= 0 && a.axis != last)) {
    return false;
  }
  auto any_view = [](const Access& x, auto&& pred) {
    for (ArrayId r : x.read_ids()) {
      if (pred(r)) return true;
    }
    return x.write != kNone && pred(x.write);
  };
  for (const auto& pq : {std::pair{&a, &b}, std::pair{&b, &a}}) {
    // Not a structured binding: clang < 16 cannot capture one in a lambda.
    const Access* p = pq.first;
    const Access* q = pq.second;
    // Def. 12: p's output against q's inputs and output.
    if (any_view(*q, [&](ArrayId x) { return conflict(p->write, x); })) return false;
    if (p->reduce_out != kNone && any_view(*q, [&](ArrayId x) { return overlap(p->reduce_out, x); })) {
      return false;
    }
    if (p->gather_src != kNone && overlap(p->gather_src, q->write)) return false;
    if (p->scatter_target != kNone &&
        any_view(*q, [&](ArrayId x) { return overlap(p->scatter_target, x); })) {
      return false;
    }
  }
  return true;
}

std::vector<std::pair<uint32_t, uint32_t>> Graph::fuse_preventing_edges() const {
  std::vector<std::pair<uint32_t, uint32_t>> e;
  for (uint32_t i = 0; i < size(); ++i) {
    for (uint32_t j = i + 1; j < size(); ++j) {
      if (!fusible(i, j)) e.emplace_back(i, j);
    }
  }
  return e;
}

}  // namespace arrvm::fusion
