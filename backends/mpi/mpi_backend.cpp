// The mpi backend (design: backends/mpi/README.md). Each instruction (or
// fused block of elementwise instructions) is planned the same way on every
// rank: the iteration points whose output element a rank owns form a few
// boxes (distribution.hpp); the input elements those boxes read are fetched
// from their owners into the rank's extent of each base (one message per
// pair of ranks that share anything); the boxes then run on the node backend
// as ordinary instructions on rank-local bases. Every rank can compute every
// other rank's plan, so no request messages are needed: a rank sends what
// its peers will need and receives what it needs.
#include "backends/mpi/mpi_backend.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "backends/mpi/comm.hpp"
#include "backends/mpi/distribution.hpp"
#include "backends/philox.hpp"
#include "vm/error.hpp"
#include "vm/row_nest.hpp"

namespace arrvm {

namespace {

using mpi::Box;
using mpi::Distribution;

// The element range [lo, hi) of one base a rank must hold current.
struct Need {
  int64_t lo = 0, hi = 0;
};
using Needs = std::map<BaseId, Need>;  // by base, for one rank

void widen(Needs* needs, BaseId base, int64_t lo, int64_t hi) {  // hi exclusive
  auto it = needs->find(base);
  if (it == needs->end()) {
    needs->emplace(base, Need{lo, hi});
  } else {
    it->second.lo = std::min(it->second.lo, lo);
    it->second.hi = std::max(it->second.hi, hi);
  }
}

View contiguous(BaseId id, DType dtype, const Dims& shape) {
  return contiguous_view(id, dtype, shape);
}

Instruction make_instr(Opcode op, const View& out, std::initializer_list<Operand> ins, int axis = 0) {
  Instruction in;
  in.op = op;
  in.out = out;
  for (const Operand& o : ins) in.add_input(o);
  in.axis = axis;
  return in;
}

Opcode combine_op(Opcode reduction) {
  switch (reduction) {
    case Opcode::AddReduce:
    case Opcode::AddAccumulate:
      return Opcode::Add;
    case Opcode::MultiplyReduce:
    case Opcode::MultiplyAccumulate:
      return Opcode::Multiply;
    case Opcode::MinimumReduce:
    case Opcode::MinimumAccumulate:
      return Opcode::Minimum;
    case Opcode::MaximumReduce:
    case Opcode::MaximumAccumulate:
      return Opcode::Maximum;
    case Opcode::LogicalAndReduce:
      return Opcode::LogicalAnd;
    case Opcode::LogicalOrReduce:
      return Opcode::LogicalOr;
    default:
      throw InternalError("mpi: not a reduction: " + std::string(opcode_name(reduction)));
  }
}

// The value that leaves any element unchanged under `reduction`.
Scalar identity_of(Opcode reduction, DType dtype) {
  switch (reduction) {
    case Opcode::AddReduce:
    case Opcode::AddAccumulate:
      return Scalar::of_int(dtype, 0);
    case Opcode::MultiplyReduce:
    case Opcode::MultiplyAccumulate:
      return Scalar::of_int(dtype, 1);
    case Opcode::LogicalAndReduce:
      return Scalar::of_int(dtype, 1);
    case Opcode::LogicalOrReduce:
      return Scalar::of_int(dtype, 0);
    case Opcode::MinimumReduce:
    case Opcode::MaximumReduce:
    case Opcode::MinimumAccumulate:
    case Opcode::MaximumAccumulate: {
      const bool min = reduction == Opcode::MinimumReduce || reduction == Opcode::MinimumAccumulate;
      return visit_dtype(dtype, [&](auto t) {
        using T = decltype(t);
        if constexpr (kIsComplex<T>) {
          const double inf =
              min ? std::numeric_limits<double>::infinity() : -std::numeric_limits<double>::infinity();
          return Scalar::of_complex(dtype, inf, inf);
        } else if constexpr (std::is_floating_point_v<T>) {
          return Scalar::of_double(dtype, min ? std::numeric_limits<double>::infinity()
                                              : -std::numeric_limits<double>::infinity());
        } else if constexpr (std::is_unsigned_v<T>) {
          return Scalar::of_uint(dtype, min ? static_cast<uint64_t>(std::numeric_limits<T>::max()) : 0);
        } else {
          return Scalar::of_int(dtype, min ? static_cast<int64_t>(std::numeric_limits<T>::max())
                                           : static_cast<int64_t>(std::numeric_limits<T>::min()));
        }
      });
    }
    default:
      throw InternalError("mpi: not a reduction: " + std::string(opcode_name(reduction)));
  }
}

// Host bytes of an identity-filled buffer of n elements.
std::vector<uint8_t> identity_bytes(Opcode reduction, DType dtype, int64_t n) {
  const Scalar s = identity_of(reduction, dtype);
  std::vector<uint8_t> buf(static_cast<std::size_t>(n) * dtype_size(dtype));
  visit_dtype(dtype, [&](auto t) {
    using T = decltype(t);
    T v = s.as<T>();
    for (int64_t i = 0; i < n; ++i) std::memcpy(buf.data() + i * sizeof(T), &v, sizeof(T));
  });
  return buf;
}

bool whole_contiguous(const View& v, int64_t base_nelem) {
  if (v.offset != 0 || v.nelem() != base_nelem) return false;
  const Dims rm = row_major_strides(v.shape);
  for (int k = 0; k < v.rank(); ++k) {
    if (v.shape[k] > 1 && v.stride[k] != rm[k]) return false;
  }
  return true;
}

// `v` with axis k pinned to index i (the axis removed).
View pin_axis(const View& v, int k, int64_t i) {
  View p = v;
  p.offset += i * v.stride[k];
  p.shape = v.shape.without(k);
  p.stride = v.stride.without(k);
  return p;
}

class MpiBackend final : public Backend {
 public:
  explicit MpiBackend(const Config& config)
      : mem_limit_(config.mem_limit), row_fusion_(config.pass_on("row-fusion")) {
    Config node_config = config;
    node_config.backend = config.mpi_node_backend;
    node_config.mem_limit = 0;  // (charged here, alike on every rank: charge())
    if (node_config.backend == "mpi") throw Error("ARRVM_MPI_NODE_BACKEND cannot be 'mpi'");
    node_ = make_backend(node_config);
    node_->attach_profile(&node_profile_);
  }

  std::string name() const override { return "mpi"; }
  bool compiles_kernels() const override { return true; }

  // Reductions, scans, gathers and scatters run as collectives between node
  // kernels, so the fusers give each a block of its own (rule 8); a row nest
  // or row program runs whole, by rows (run_rows).
  FusionRules fusion_rules() const override { return {.sweeps_alone = true, .row_nests = row_fusion_}; }

  BackendStats stats() const override {
    const MpiBackendStats& s = comm_.stats();
    return {"mpi",
            {{"rank", s.rank},
             {"ranks", s.ranks},
             {"bytes_sent", s.bytes_sent},
             {"bytes_received", s.bytes_received},
             {"messages_sent", s.messages_sent},
             {"messages_received", s.messages_received},
             {"collectives", s.collectives},
             {"wait_s", s.wait_s},
             {"bytes_charged", charged_},
             {"bytes_charged_peak", charged_peak_}},
            {}};
  }

  void declare(BaseId id, DType dtype, int64_t nelem) override {
    Local b;
    b.dtype = dtype;
    b.nelem = nelem;
    bases_[id] = b;
  }

  void copy_from_host(BaseId id, const void* src) override {
    collective([&] { copy_in(id, src); });
  }

  void copy_to_host(BaseId id, void* dst) override {
    collective([&] { copy_out(id, dst); });
  }

  // The bodies of the two calls above.
  void copy_in(BaseId id, const void* src) {
    sync_node_profile();
    Local& b = find(id);
    if (!b.established) establish(id, Distribution::even(b.nelem, P()), false);
    if (b.ehi > b.elo) {
      node_->copy_from_host(b.node, static_cast<const uint8_t*>(src) + b.elo * dtype_size(b.dtype));
    }
    sync_node_profile();
  }

  void copy_out(BaseId id, void* dst) {
    Local& b = find(id);
    const std::size_t size = dtype_size(b.dtype);
    if (!b.established) {  // never written anywhere: zeros on every rank
      std::memset(dst, 0, static_cast<std::size_t>(b.nelem) * size);
      return;
    }
    std::vector<uint8_t> ext(static_cast<std::size_t>(b.ehi - b.elo) * size);
    if (!ext.empty()) node_->copy_to_host(b.node, ext.data());
    std::vector<int64_t> counts(P());
    for (int q = 0; q < P(); ++q) counts[q] = b.dist.hi(q) - b.dist.lo(q);
    comm_.allgatherv(ext.data() + (b.dist.lo(me()) - b.elo) * size, dst, counts, b.dtype);
    sync_node_profile();
  }

  void release(BaseId id) override {
    auto it = bases_.find(id);
    if (it == bases_.end()) return;
    if (it->second.node >= 0) node_->release(it->second.node);
    uncharge(it->second);
    bases_.erase(it);
  }

  void execute(std::span<const Instruction> batch, const Partition& partition) override {
    collective([&] { execute_blocks(batch, partition); });
  }

  // Errors: one that every rank raises alike (an index error agreed through
  // the counts exchange, the memory limit charged alike, an empty axis, an
  // unsupported compress: agreed()) is contained by the VM as on one
  // process, the same on every rank. Any other error (the node backend's:
  // memory that one rank cannot get, a compile that fails on one rank) may
  // be one rank's alone, and the others would wait for it forever in the
  // next collective: it ends the job on every rank (Comm::abort_all).
  template <class F>
  void collective(F&& f) {
    try {
      f();
    } catch (...) {
      if (agreed_) {
        agreed_ = false;
        throw;
      }
      try {
        throw;
      } catch (const std::exception& e) {
        comm_.abort_all(e.what());
      } catch (...) {
        comm_.abort_all("unknown exception");
      }
    }
  }

  template <class E>
  [[noreturn]] void agreed(const E& error) {
    agreed_ = true;
    throw error;
  }

  void execute_blocks(std::span<const Instruction> batch, const Partition& partition) {
    progress_ = {};
    for (const Block& block : partition.blocks) {
      std::vector<const Instruction*> work, frees;
      for (uint32_t i : block) {
        const Instruction& in = batch[i];
        if (in.op == Opcode::Free) frees.push_back(&in);
        if (!is_control(in.op)) work.push_back(&in);
      }
      if (work.size() == 1 && opcode_kind(work[0]->op) != OpKind::Elementwise) {
        run_special(*work[0]);
      } else if (row_fusion_ && by_rows(batch, block)) {
        profile().count_pass("row-fusion", 1);
        run_rows(work, frees);
      } else {
        check_elementwise_block(work);
        if (!work.empty()) run_elementwise(work, frees);
      }
      for (const Instruction* f : frees) release(f->out.base);
      ++progress_.done;
    }
    sync_node_profile();
  }

 private:
  struct Local {
    DType dtype = DType::Float64;
    int64_t nelem = 0;
    bool established = false;  // distribution fixed (at first write or first read)
    Distribution dist;
    BaseId node = -1;  // the node backend's base holding [elo, ehi)
    int64_t elo = 0, ehi = 0;
    uint64_t charged = 0;  // bytes counted against the memory limit
  };

  int me() const { return comm_.rank(); }
  int P() const { return comm_.size(); }

  Local& find(BaseId id) {
    auto it = bases_.find(id);
    if (it == bases_.end()) throw InternalError("mpi backend: unknown base b" + std::to_string(id));
    return it->second;
  }

  // The node backend's counters feed the VM's profile (kernels, compile
  // time, memory), and ours add the communication.
  void sync_node_profile() {
    Profile& p = profile();
    const Profile& n = node_profile_;
    p.codegen_s += n.codegen_s - seen_.codegen_s;
    p.compile_s += n.compile_s - seen_.compile_s;
    p.kernels_compiled += n.kernels_compiled - seen_.kernels_compiled;
    p.kernels_launched += n.kernels_launched - seen_.kernels_launched;
    p.kernels_on_team += n.kernels_on_team - seen_.kernels_on_team;
    p.kernel_cache_hits += n.kernel_cache_hits - seen_.kernel_cache_hits;
    p.kernel_cache_disk_hits += n.kernel_cache_disk_hits - seen_.kernel_cache_disk_hits;
    p.kernel_cache_misses += n.kernel_cache_misses - seen_.kernel_cache_misses;
    p.arrays_contracted += n.arrays_contracted - seen_.arrays_contracted;
    p.bytes_allocated = n.bytes_allocated;
    p.bytes_allocated_peak = std::max(p.bytes_allocated_peak, n.bytes_allocated_peak);
    seen_ = n;
    const MpiBackendStats& s = comm_.stats();
    p.comm_bytes_sent = s.bytes_sent;
    p.comm_bytes_received = s.bytes_received;
    p.comm_messages = s.messages_sent + s.collectives;
    p.comm_wait_s = s.wait_s;
  }

  // ---- memory: distribution, extents, the limit ----

  void charge(Local& b) {
    // The largest rank's share, so that every rank decides alike.
    int64_t most = 0;
    for (int q = 0; q < P(); ++q) most = std::max(most, b.dist.hi(q) - b.dist.lo(q));
    const uint64_t bytes = static_cast<uint64_t>(most) * dtype_size(b.dtype);
    if (mem_limit_ > 0 && charged_ + bytes > static_cast<uint64_t>(mem_limit_)) {
      agreed(OutOfMemoryError("out of memory: a base of " + std::to_string(b.nelem) + " " +
                              std::string(dtype_name(b.dtype)) + " needs " + std::to_string(bytes) +
                              " bytes on a rank that already holds " + std::to_string(charged_) +
                              " of ARRVM_MEM_LIMIT=" + std::to_string(mem_limit_) + " bytes (" +
                              std::to_string(P()) + " rank" + (P() > 1 ? "s" : "") + ")"));
    }
    b.charged = bytes;
    charged_ += bytes;
    charged_peak_ = std::max(charged_peak_, charged_);
  }

  void uncharge(Local& b) {
    charged_ -= b.charged;
    b.charged = 0;
  }

  // Fixes the base's distribution and gives it node memory for what this
  // rank owns. `defer_charge`: the caller charges later (a base written and
  // freed within one block is never charged).
  void establish(BaseId id, const Distribution& d, bool defer_charge) {
    Local& b = find(id);
    ARRVM_ASSERT(!b.established);
    b.dist = d;
    if (!defer_charge) charge(b);
    b.established = true;
    b.elo = d.lo(me());
    b.ehi = d.hi(me());
    b.node = next_node_id_++;
    node_->declare(b.node, b.dtype, b.ehi - b.elo);
  }

  void establish_even(BaseId id) {
    if (!find(id).established) establish(id, Distribution::even(find(id).nelem, P()), false);
  }

  // Grows this rank's extent of a base to cover [lo, hi), keeping its data.
  void ensure_extent(BaseId id, int64_t lo, int64_t hi) {
    Local& b = find(id);
    ARRVM_ASSERT(b.established);
    if (lo >= hi || (b.elo <= lo && hi <= b.ehi)) return;
    const int64_t nlo = b.ehi > b.elo ? std::min(lo, b.elo) : lo;
    const int64_t nhi = b.ehi > b.elo ? std::max(hi, b.ehi) : hi;
    const std::size_t size = dtype_size(b.dtype);
    std::vector<uint8_t> data(static_cast<std::size_t>(nhi - nlo) * size);
    if (b.ehi > b.elo) node_->copy_to_host(b.node, data.data() + (b.elo - nlo) * size);
    node_->release(b.node);
    b.node = next_node_id_++;
    b.elo = nlo;
    b.ehi = nhi;
    node_->declare(b.node, b.dtype, nhi - nlo);
    node_->copy_from_host(b.node, data.data());
  }

  View local(const View& g) {
    const Local& b = find(g.base);
    View l = g;
    l.base = b.node;
    l.offset -= b.elo;
    return l;
  }

  BaseId temp(DType dtype, int64_t n) {
    const BaseId id = next_node_id_++;
    node_->declare(id, dtype, n);
    temps_.push_back(id);
    return id;
  }

  void release_temps() {
    for (BaseId t : temps_) node_->release(t);
    temps_.clear();
  }

  void run_node(const std::vector<Instruction>& batch) {
    if (batch.empty()) return;
    node_->execute(batch, singleton_partition(batch.size()));
  }

  // ---- moving elements between ranks ----

  // Each rank q must hold current values of needs[q]; this rank sends the
  // parts it owns and receives the parts others own (one message per pair).
  void fetch(const std::vector<Needs>& needs) {
    for (const auto& [id, n] : needs[me()]) ensure_extent(id, n.lo, n.hi);
    std::vector<std::vector<View>> send(P()), recv(P());
    for (int q = 0; q < P(); ++q) {
      if (q == me()) continue;
      for (const auto& [id, n] : needs[q]) {  // what q needs that I own
        const Local& b = find(id);
        const int64_t lo = std::max(n.lo, b.dist.lo(me())), hi = std::min(n.hi, b.dist.hi(me()));
        if (lo < hi) send[q].push_back(make_view(id, lo, {hi - lo}, {1}));
      }
      for (const auto& [id, n] : needs[me()]) {  // what I need that q owns
        const Local& b = find(id);
        const int64_t lo = std::max(n.lo, b.dist.lo(q)), hi = std::min(n.hi, b.dist.hi(q));
        if (lo < hi) recv[q].push_back(make_view(id, lo, {hi - lo}, {1}));
      }
    }
    move_pieces(send, recv);
  }

  // Sends the elements of the views in send[q] to rank q and stores the
  // elements of recv[q] received from q, each packed in row-major order.
  void move_pieces(const std::vector<std::vector<View>>& send, const std::vector<std::vector<View>>& recv) {
    auto to_node = [&](const std::vector<std::vector<View>>& g) {
      std::vector<std::vector<View>> n(P());
      for (int q = 0; q < P(); ++q) {
        for (const View& v : g[q]) {
          View dv = v;
          dv.dtype = find(v.base).dtype;
          n[q].push_back(local(dv));
        }
      }
      return n;
    };
    move_node_views(to_node(send), to_node(recv), Opcode::Identity);
  }

  // move_pieces on node-backend views: the elements of send[q] go to rank q;
  // those from rank q are stored into recv[q] (`store` = Identity) or
  // combined into it (recv = store(recv, received)).
  void move_node_views(const std::vector<std::vector<View>>& send, const std::vector<std::vector<View>>& recv,
                       Opcode store) {
    const std::size_t mark = temps_.size();
    std::vector<std::vector<uint8_t>> out(P()), in(P());
    bool any = false;
    // Pack through the node backend: one contiguous temporary per piece.
    std::vector<Instruction> pack;
    std::vector<std::pair<int, BaseId>> packed;  // (peer, temp) in order
    for (int q = 0; q < P(); ++q) {
      for (const View& v : send[q]) {
        if (v.nelem() == 0) continue;
        const BaseId t = temp(v.dtype, v.nelem());
        pack.push_back(make_instr(Opcode::Identity, contiguous(t, v.dtype, v.shape), {Operand::of(v)}));
        packed.emplace_back(q, t);
      }
      std::size_t bytes = 0;
      for (const View& v : recv[q]) bytes += static_cast<std::size_t>(v.nelem()) * dtype_size(v.dtype);
      in[q].resize(bytes);
      any = any || bytes > 0 || !pack.empty();
    }
    if (!any) return;
    run_node(pack);
    for (std::size_t i = 0; i < packed.size(); ++i) {
      const auto [q, t] = packed[i];
      const View& o = pack[i].out;
      const std::size_t bytes = static_cast<std::size_t>(o.nelem()) * dtype_size(o.dtype);
      const std::size_t at = out[q].size();
      out[q].resize(at + bytes);
      node_->copy_to_host(t, out[q].data() + at);
    }
    comm_.exchange(out, &in);
    std::vector<Instruction> unpack;
    for (int q = 0; q < P(); ++q) {
      std::size_t at = 0;
      for (const View& v : recv[q]) {
        if (v.nelem() == 0) continue;
        const BaseId t = temp(v.dtype, v.nelem());
        node_->copy_from_host(t, in[q].data() + at);
        at += static_cast<std::size_t>(v.nelem()) * dtype_size(v.dtype);
        const Operand got = Operand::of(contiguous(t, v.dtype, v.shape));
        unpack.push_back(store == Opcode::Identity ? make_instr(Opcode::Identity, v, {got})
                                                   : make_instr(store, v, {Operand::of(v), got}));
      }
    }
    run_node(unpack);
    for (std::size_t i = mark; i < temps_.size(); ++i) node_->release(temps_[i]);
    temps_.resize(mark);
  }

  // After every rank q wrote `out` restricted to boxes[q] into its own
  // extent, ships each element to its owner (nothing when the boxes only
  // write owned elements, the usual case).
  void write_back(const View& out, const std::vector<std::vector<Box>>& boxes) {
    const Local& b = find(out.base);
    bool owned = true;
    for (int q = 0; q < P() && owned; ++q) {
      for (const Box& box : boxes[q]) {
        int64_t lo, hi;
        if (mpi::box_range(out, box, &lo, &hi) && (lo < b.dist.lo(q) || hi >= b.dist.hi(q))) {
          owned = false;
          break;
        }
      }
    }
    if (owned) return;
    std::vector<std::vector<View>> send(P()), recv(P());
    auto pieces = [&](int writer, int owner, std::vector<View>* list) {
      for (const Box& box : boxes[writer]) {
        const View sv = mpi::sub_view(out, box);
        int64_t lo, hi;
        if (!element_range(sv, &lo, &hi) || hi < b.dist.lo(owner) || lo >= b.dist.hi(owner)) continue;
        for (const Box& piece : mpi::owned_boxes(sv, b.dist.lo(owner), b.dist.hi(owner))) {
          list->push_back(mpi::sub_view(sv, piece));
        }
      }
    };
    for (int q = 0; q < P(); ++q) {
      if (q == me()) continue;
      pieces(me(), q, &send[q]);
      pieces(q, me(), &recv[q]);
    }
    move_pieces(send, recv);
  }

  // ---- instructions ----

  // The output base's distribution, fixed at its first write: aligned with
  // a same-shaped input when the output covers its whole base row-major.
  void establish_output(const Instruction& in, bool defer_charge) {
    Local& o = find(in.out.base);
    if (o.established) return;
    if (whole_contiguous(in.out, o.nelem)) {
      for (int i = 0; i < in.nin; ++i) {
        const Operand& op = in.in[i];
        if (op.is_const || op.view.base == in.out.base || op.view.shape != in.out.shape) continue;
        const Local& src = find(op.view.base);
        if (!src.established || !mpi::is_monotone(op.view)) continue;
        establish(in.out.base, mpi::aligned(op.view, src.dist), defer_charge);
        return;
      }
    }
    establish(in.out.base, Distribution::even(o.nelem, P()), defer_charge);
  }

  void establish_inputs(const Instruction& in) {
    for (int i = 0; i < in.nin; ++i) {
      if (!in.in[i].is_const) establish_even(in.in[i].view.base);
    }
  }

  // Boxes of `v`'s iteration space whose element each rank owns.
  std::vector<std::vector<Box>> owner_boxes(const View& v) {
    const Local& b = find(v.base);
    std::vector<std::vector<Box>> boxes(P());
    for (int q = 0; q < P(); ++q) boxes[q] = mpi::owned_boxes(v, b.dist.lo(q), b.dist.hi(q));
    return boxes;
  }

  // What each rank must hold to read `v` over its boxes.
  void add_needs(const View& v, const std::vector<std::vector<Box>>& boxes, std::vector<Needs>* needs) {
    for (int q = 0; q < P(); ++q) {
      for (const Box& box : boxes[q]) {
        int64_t lo, hi;
        if (mpi::box_range(v, box, &lo, &hi)) widen(&(*needs)[q], v.base, lo, hi + 1);
      }
    }
  }

  // Elementwise instructions of one iteration shape (a fused block): every
  // rank runs the iteration points whose first output element it owns.
  void run_elementwise(const std::vector<const Instruction*>& ins,
                       const std::vector<const Instruction*>& frees) {
    establish_block(ins, frees);
    const std::vector<std::vector<Box>> boxes = owner_boxes(ins[0]->out);
    std::vector<Needs> needs(P());
    std::vector<View> written;
    for (const Instruction* in : ins) {
      for (int i = 0; i < in->nin; ++i) {
        const Operand& op = in->in[i];
        if (op.is_const) continue;
        const bool produced_here = std::any_of(written.begin(), written.end(),
                                               [&](const View& w) { return same_elements(w, op.view); });
        if (!produced_here) add_needs(op.view, boxes, &needs);
      }
      written.push_back(in->out);
    }
    fetch(needs);
    for (const Instruction* in : ins) {
      for (const Box& box : boxes[me()]) {
        int64_t lo, hi;
        if (mpi::box_range(in->out, box, &lo, &hi)) ensure_extent(in->out.base, lo, hi + 1);
      }
    }
    // One node block per box; the frees go with the last, so that the node
    // backend may contract temporaries a single-box block writes and frees.
    std::vector<Instruction> batch;
    Partition part;
    for (std::size_t k = 0; k < boxes[me()].size(); ++k) {
      Block blk;
      for (const Instruction* in : ins) {
        append(localized(*in, [&](const View&) { return boxes[me()][k]; }), &batch, &blk);
      }
      if (k + 1 == boxes[me()].size()) append_frees(frees, &batch, &blk);
      part.blocks.push_back(std::move(blk));
    }
    if (!batch.empty()) node_->execute(batch, part);
    for (const Instruction* in : ins) {
      if (!freed_in(frees, in->out.base)) write_back(in->out, boxes);
    }
  }

  static bool freed_in(const std::vector<const Instruction*>& frees, BaseId id) {
    return std::any_of(frees.begin(), frees.end(), [&](const Instruction* f) { return f->out.base == id; });
  }

  // Fixes the distributions a block's instructions need (inputs still open:
  // even; outputs: establish_output) and charges the bases it creates and
  // keeps; returns the bases it creates.
  std::vector<BaseId> establish_block(const std::vector<const Instruction*>& ins,
                                      const std::vector<const Instruction*>& frees) {
    std::vector<BaseId> created;
    for (const Instruction* in : ins) {
      establish_inputs(*in);
      const bool fresh = !find(in->out.base).established;
      establish_output(*in, true);
      if (fresh) created.push_back(in->out.base);
    }
    for (BaseId id : created) {
      if (!freed_in(frees, id)) charge(find(id));
    }
    return created;
  }

  // `in` on this rank's node bases, each view restricted to box_of(view).
  template <class BoxOf>
  Instruction localized(const Instruction& in, BoxOf&& box_of) {
    Instruction l = in;
    l.out = local(mpi::sub_view(in.out, box_of(in.out)));
    for (int i = 0; i < l.nin; ++i) {
      if (!l.in[i].is_const) l.in[i].view = local(mpi::sub_view(in.in[i].view, box_of(in.in[i].view)));
    }
    return l;
  }

  static void append(Instruction in, std::vector<Instruction>* batch, Block* blk) {
    blk->push_back(static_cast<uint32_t>(batch->size()));
    batch->push_back(std::move(in));
  }

  // The block's frees of bases this rank's node holds, after its work (the
  // node backend may then contract what the block writes and frees).
  void append_frees(const std::vector<const Instruction*>& frees, std::vector<Instruction>* batch,
                    Block* blk) {
    for (const Instruction* f : frees) {
      auto it = bases_.find(f->out.base);
      if (it == bases_.end() || it->second.node < 0) continue;
      Instruction l = *f;
      l.out = local(f->out);
      append(std::move(l), batch, blk);
      it->second.node = -1;  // released by the node backend
    }
  }

  // Whether a block is a row nest or a legal row program (vm/row_nest.hpp).
  bool by_rows(std::span<const Instruction> batch, const Block& block) {
    if (row_nest_order(batch, block, &nest_order_)) return true;
    return row_program(batch, block, &program_) && row_program_legal(batch, block, program_);
  }

  // A row nest or row program: every conflicting access of its instructions
  // stays in its row (the legality vm/row_nest.hpp proves), so its rows run
  // apart. Rank q runs rows [bounds[q], bounds[q+1]) (mpi::row_bounds: those
  // whose first element of the first output it owns) as one node block, the
  // node backend's row nest or row program: it fetches what those rows read
  // of bases the block did not create, and ships the elements it wrote of
  // other ranks' parts to their owners.
  void run_rows(const std::vector<const Instruction*>& ins, const std::vector<const Instruction*>& frees) {
    const std::vector<BaseId> created = establish_block(ins, frees);
    const View& anchor = ins[0]->out;
    const std::vector<int64_t> rows = mpi::row_bounds(anchor, find(anchor.base).dist, P());
    auto boxes_of = [&](const View& v) {
      if (v.rank() == 0 || v.shape[0] != anchor.shape[0])
        throw InternalError("mpi backend: a row block's view of shape " + to_string(v.shape) +
                            " has not its " + std::to_string(anchor.shape[0]) + " rows");
      std::vector<std::vector<Box>> boxes(P());
      for (int q = 0; q < P(); ++q) {
        if (rows[q + 1] > rows[q]) boxes[q].push_back(mpi::row_box(v.shape, rows[q], rows[q + 1]));
      }
      return boxes;
    };
    // What a row reads of a base the block creates, that row wrote (a read
    // of another row's element would conflict across rows).
    auto made_here = [&](BaseId b) { return std::find(created.begin(), created.end(), b) != created.end(); };
    std::vector<Needs> needs(P());
    for (const Instruction* in : ins) {
      for (int i = 0; i < in->nin; ++i) {
        if (!in->in[i].is_const && !made_here(in->in[i].view.base))
          add_needs(in->in[i].view, boxes_of(in->in[i].view), &needs);
      }
    }
    fetch(needs);
    std::vector<Instruction> batch;
    Block blk;
    if (rows[me() + 1] > rows[me()]) {
      for (const Instruction* in : ins) {
        const Box box = mpi::row_box(in->out.shape, rows[me()], rows[me() + 1]);
        int64_t lo, hi;
        if (mpi::box_range(in->out, box, &lo, &hi)) ensure_extent(in->out.base, lo, hi + 1);
      }
      for (const Instruction* in : ins) {
        append(
            localized(*in, [&](const View& v) { return mpi::row_box(v.shape, rows[me()], rows[me() + 1]); }),
            &batch, &blk);
      }
      append_frees(frees, &batch, &blk);
    }
    if (!batch.empty()) node_->execute(batch, Partition{{std::move(blk)}});
    for (const Instruction* in : ins) {
      if (!freed_in(frees, in->out.base)) write_back(in->out, boxes_of(in->out));
    }
  }

  // The blocks the fusers give this backend (FusionRules::sweeps_alone):
  // elementwise instructions of one shape, or one other instruction alone.
  static void check_elementwise_block(const std::vector<const Instruction*>& work) {
    for (const Instruction* in : work) {
      if (opcode_kind(in->op) != OpKind::Elementwise || in->out.shape != work[0]->out.shape) {
        throw InternalError("mpi backend: a block fuses `" + to_string(*in) + "` with `" +
                            to_string(*work[0]) + "` against rule 8 (FusionRules::sweeps_alone)");
      }
    }
  }

  // A generator, reduction, scan, gather or scatter: one block of its own.
  void run_special(const Instruction& in) {
    switch (opcode_kind(in.op)) {
      case OpKind::Free:
      case OpKind::Sync:
      case OpKind::Elementwise:
        throw InternalError("mpi backend: run_special on `" + to_string(in) + "`");
      case OpKind::Compress:  // its output's length differs per rank: not distributed yet
        agreed(
            Error("the mpi backend does not run compress yet (a length class) in `" + to_string(in) + "`"));
      case OpKind::Generator:
        run_generator(in);
        return;
      case OpKind::Reduce:
        run_reduce(in);
        return;
      case OpKind::Accumulate:
        run_scan(in);
        return;
      case OpKind::Gather:
        run_gather(in);
        return;
      case OpKind::Scatter:
        run_scatter(in);
        return;
    }
  }

  // range and random: values of the global row-major index, computed on
  // the host for the owned boxes (Philox is a function of that index).
  void run_generator(const Instruction& in) {
    establish_output(in, false);
    const View& o = in.out;
    const Local& b = find(o.base);
    const Dims rm = row_major_strides(o.shape);
    std::vector<Instruction> batch;
    for (const Box& box : mpi::owned_boxes(o, b.dist.lo(me()), b.dist.hi(me()))) {
      const BaseId t = temp(o.dtype, box.nelem());
      std::vector<uint8_t> host(static_cast<std::size_t>(box.nelem()) * dtype_size(o.dtype));
      // The global flat index of each point of the box, in row-major order.
      View index = make_view(-1, 0, o.shape, rm);
      int64_t j = 0;
      visit_dtype(o.dtype, [&](auto tv) {
        using T = decltype(tv);
        T* p = reinterpret_cast<T*>(host.data());
        mpi::for_each_element(index, box, [&](int64_t flat) {
          if constexpr (kIsComplex<T>) {
            throw InternalError("mpi: a generator of a complex dtype passed validation");
          } else if (in.op == Opcode::Range) {
            p[j++] = cast_value<T>(flat);
          } else {
            p[j++] = random_value<T>(in.seed, static_cast<uint64_t>(flat));
          }
        });
      });
      node_->copy_from_host(t, host.data());
      batch.push_back(make_instr(Opcode::Identity, local(mpi::sub_view(o, box)),
                                 {Operand::of(contiguous(t, o.dtype, box.count))}));
    }
    run_node(batch);
    release_temps();
  }

  // Reductions: each rank reduces the input points it owns into a partial
  // result over the output elements they touch; a 0-d (or small) output is
  // combined with MPI_Allreduce, a larger one by sending each partial only
  // to the owner of its output elements, which combines and stores them (a
  // row-distributed array reduced along its rows then moves only the rows
  // split between two ranks).
  void run_reduce(const Instruction& in) {
    const View& v = in.in[0].view;
    const View& o = in.out;
    const int k = in.axis;
    if ((in.op == Opcode::MinimumReduce || in.op == Opcode::MaximumReduce) && v.shape[k] == 0 &&
        o.nelem() > 0) {
      agreed(Error(std::string(opcode_name(in.op)) + " over an empty axis in `" + to_string(in) + "`"));
    }
    establish_even(v.base);
    establish_output(in, false);
    const DType dt = o.dtype;
    const int64_t n = o.nelem();
    std::vector<uint8_t> host = identity_bytes(in.op, dt, n);
    const BaseId acc = temp(dt, n);
    node_->copy_from_host(acc, host.data());
    const View accv = contiguous(acc, dt, o.shape);
    const Local& src = find(v.base);
    std::vector<std::vector<Box>> touched(P());  // per rank: output boxes its input points reach
    for (int q = 0; q < P(); ++q) {
      for (const Box& box : mpi::owned_boxes(v, src.dist.lo(q), src.dist.hi(q))) {
        touched[q].push_back(mpi::box_without(box, k));
      }
    }
    std::vector<Instruction> batch;
    for (const Box& box : mpi::owned_boxes(v, src.dist.lo(me()), src.dist.hi(me()))) {
      const Box ob = mpi::box_without(box, k);
      const BaseId t = temp(dt, ob.nelem());
      const View tv = contiguous(t, dt, ob.count);
      batch.push_back(make_instr(in.op, tv, {Operand::of(local(mpi::sub_view(v, box)))}, k));
      const View part = mpi::sub_view(accv, ob);
      batch.push_back(make_instr(combine_op(in.op), part, {Operand::of(part), Operand::of(tv)}));
    }
    run_node(batch);
    constexpr int64_t kAllreduceMax = 64;  // elements: below this one collective is cheapest
    if (n <= kAllreduceMax || P() == 1 || !all_disjoint(touched)) {
      node_->copy_to_host(acc, host.data());
      comm_.allreduce(host.data(), n, dt, in.op);
      store_replicated(o, host);
      release_temps();
      return;
    }
    const Local& ob = find(o.base);
    std::vector<std::vector<View>> send(P()), recv(P());
    auto pieces = [&](int from, int to, std::vector<View>* list) {
      for (const Box& t : touched[from]) {
        const View ov = mpi::sub_view(o, t);
        int64_t lo, hi;
        if (!element_range(ov, &lo, &hi) || hi < ob.dist.lo(to) || lo >= ob.dist.hi(to)) continue;
        for (const Box& piece : mpi::owned_boxes(ov, ob.dist.lo(to), ob.dist.hi(to))) {
          list->push_back(mpi::sub_view(mpi::sub_view(accv, t), piece));
        }
      }
    };
    for (int q = 0; q < P(); ++q) {
      if (q == me()) continue;
      pieces(me(), q, &send[q]);
      pieces(q, me(), &recv[q]);
    }
    move_node_views(send, recv, combine_op(in.op));
    std::vector<Instruction> store;
    for (const Box& box : mpi::owned_boxes(o, ob.dist.lo(me()), ob.dist.hi(me()))) {
      store.push_back(make_instr(Opcode::Identity, local(mpi::sub_view(o, box)),
                                 {Operand::of(mpi::sub_view(accv, box))}));
    }
    run_node(store);
    release_temps();
  }

  // Whether no rank's boxes share a point (a rank's partial for a point is
  // then sent once).
  static bool all_disjoint(const std::vector<std::vector<Box>>& boxes) {
    for (const std::vector<Box>& list : boxes) {
      for (std::size_t i = 0; i < list.size(); ++i) {
        for (std::size_t j = i + 1; j < list.size(); ++j) {
          bool meet = true;
          for (int a = 0; a < list[i].start.size() && meet; ++a) {
            meet = list[i].start[a] < list[j].start[a] + list[j].count[a] &&
                   list[j].start[a] < list[i].start[a] + list[i].count[a];
          }
          if (meet) return false;
        }
      }
    }
    return true;
  }

  // Stores the owned elements of `o` from `host`, the whole of `o` in
  // row-major order (identical on every rank).
  void store_replicated(const View& o, const std::vector<uint8_t>& host) {
    const Local& b = find(o.base);
    const BaseId res = temp(o.dtype, o.nelem());
    node_->copy_from_host(res, host.data());
    const View resv = contiguous(res, o.dtype, o.shape);
    std::vector<Instruction> batch;
    for (const Box& box : mpi::owned_boxes(o, b.dist.lo(me()), b.dist.hi(me()))) {
      batch.push_back(make_instr(Opcode::Identity, local(mpi::sub_view(o, box)),
                                 {Operand::of(mpi::sub_view(resv, box))}));
    }
    run_node(batch);
  }

  // Scans: rank q scans slab q of the scan axis (an even split), then adds
  // the exclusive prefix of the slab totals of the lower ranks (MPI_Exscan).
  void run_scan(const Instruction& in) {
    const View& v = in.in[0].view;
    const View& o = in.out;
    const int k = in.axis;
    establish_even(v.base);
    establish_output(in, false);
    const DType dt = o.dtype;
    const Distribution slabs = Distribution::even(v.shape[k], P());
    std::vector<std::vector<Box>> boxes(P());
    for (int q = 0; q < P(); ++q) {
      Box b = mpi::full_box(v.shape);
      b.start[k] = slabs.lo(q);
      b.count[k] = slabs.hi(q) - slabs.lo(q);
      if (b.nelem() > 0) boxes[q].push_back(b);
    }
    std::vector<Needs> needs(P());
    add_needs(v, boxes, &needs);
    fetch(needs);
    const Dims rest = v.shape.without(k);
    const int64_t nrest = rest.product();
    std::vector<uint8_t> totals = identity_bytes(in.op, dt, nrest);
    BaseId t = -1;
    View tv;
    if (!boxes[me()].empty()) {
      const Box& box = boxes[me()][0];
      t = temp(dt, box.nelem());
      tv = contiguous(t, dt, box.count);
      const BaseId tot = temp(dt, nrest);
      run_node({make_instr(in.op, tv, {Operand::of(local(mpi::sub_view(v, box)))}, k),
                make_instr(Opcode::Identity, contiguous(tot, dt, rest),
                           {Operand::of(pin_axis(tv, k, box.count[k] - 1))})});
      node_->copy_to_host(tot, totals.data());
    }
    comm_.exscan(totals.data(), nrest, dt, in.op);
    if (t >= 0) {
      const Box& box = boxes[me()][0];
      std::vector<Instruction> batch;
      if (me() > 0) {
        const BaseId pre = temp(dt, nrest);
        node_->copy_from_host(pre, totals.data());
        // The prefix broadcast along the scan axis (stride 0).
        View pv = contiguous(pre, dt, rest);
        View bv;
        bv.base = pre;
        bv.dtype = dt;
        bv.offset = 0;
        for (int a = 0, r = 0; a < v.rank(); ++a) {
          bv.shape.push_back(box.count[a]);
          bv.stride.push_back(a == k ? 0 : pv.stride[r++]);
        }
        batch.push_back(make_instr(combine_op(in.op), tv, {Operand::of(tv), Operand::of(bv)}));
      }
      int64_t lo, hi;
      if (mpi::box_range(o, box, &lo, &hi)) ensure_extent(o.base, lo, hi + 1);
      batch.push_back(make_instr(Opcode::Identity, local(mpi::sub_view(o, box)), {Operand::of(tv)}));
      run_node(batch);
    }
    release_temps();
    write_back(o, boxes);
  }

  // The int64 values of `v` restricted to `boxes` (row-major per box, boxes
  // in order), read from this rank's extent.
  std::vector<int64_t> read_values(const View& v, const std::vector<Box>& boxes,
                                   std::vector<uint8_t>* bytes_out, DType dtype) {
    std::vector<Instruction> batch;
    std::vector<BaseId> ts;
    int64_t total = 0;
    for (const Box& box : boxes) {
      const BaseId t = temp(dtype, box.nelem());
      batch.push_back(make_instr(Opcode::Identity, contiguous(t, dtype, box.count),
                                 {Operand::of(local(mpi::sub_view(v, box)))}));
      ts.push_back(t);
      total += box.nelem();
    }
    run_node(batch);
    bytes_out->resize(static_cast<std::size_t>(total) * dtype_size(dtype));
    std::size_t at = 0;
    for (std::size_t i = 0; i < ts.size(); ++i) {
      node_->copy_to_host(ts[i], bytes_out->data() + at);
      at += static_cast<std::size_t>(boxes[i].nelem()) * dtype_size(dtype);
    }
    std::vector<int64_t> ints;
    if (dtype == DType::Int64) {
      ints.resize(total);
      if (!bytes_out->empty()) std::memcpy(ints.data(), bytes_out->data(), bytes_out->size());
    }
    return ints;
  }

  // The element of base `v.base` at logical row-major index i of `v`.
  static int64_t element_of(const View& v, int64_t i) {
    int64_t off = v.offset;
    for (int k = v.rank() - 1; k >= 0; --k) {
      off += (i % v.shape[k]) * v.stride[k];
      i /= v.shape[k];
    }
    return off;
  }

  // Index errors are found on one rank; the counts exchange tells all.
  static constexpr int64_t kBadIndex = -1;

  // gather: the owner of each output element asks the owners of the
  // source elements for them (Alltoallv of element numbers, then values).
  void run_gather(const Instruction& in) {
    const View& src = in.in[0].view;
    const View& idx = in.in[1].view;
    const View& o = in.out;
    establish_inputs(in);
    establish_output(in, false);
    const auto boxes = owner_boxes(o);
    std::vector<Needs> needs(P());
    add_needs(idx, boxes, &needs);
    fetch(needs);
    std::vector<uint8_t> raw;
    std::vector<int64_t> index = read_values(idx, boxes[me()], &raw, DType::Int64);
    const Local& s = find(src.base);
    const int64_t limit = src.nelem();
    if (in.op == Opcode::GatherClip && limit > 0) {  // (clamped into range; an empty source fails)
      for (int64_t& x : index) x = std::clamp<int64_t>(x, 0, limit - 1);
    }
    std::vector<std::vector<int64_t>> want(P());
    std::vector<std::pair<int, int64_t>> where(index.size());  // (owner, position in its list)
    BadIndex bad;
    for (std::size_t i = 0; i < index.size(); ++i) {
      if (index[i] < 0 || index[i] >= limit) {
        bad.note(point_position(idx.shape, boxes[me()], static_cast<int64_t>(i)), index[i]);
        continue;
      }
      if (bad.found()) continue;
      const int64_t e = element_of(src, index[i]);
      const int q = s.dist.owner(e);
      where[i] = {q, static_cast<int64_t>(want[q].size())};
      want[q].push_back(e);
    }
    exchange_lists(&want, bad, in);
    // want[q] now holds what q asks of me; serve it with a node gather.
    const std::size_t size = dtype_size(o.dtype);
    std::vector<std::vector<uint8_t>> reply(P()), got(P());
    for (int q = 0; q < P(); ++q) {
      reply[q] = serve(src.base, want[q]);
      got[q].resize(where_count(where, q, index.size()) * size);
    }
    comm_.alltoallv(reply, &got);
    // Values in the order of the output boxes.
    std::vector<uint8_t> vals(index.size() * size);
    for (std::size_t i = 0; i < index.size(); ++i) {
      std::memcpy(vals.data() + i * size, got[where[i].first].data() + where[i].second * size, size);
    }
    std::vector<Instruction> batch;
    std::size_t at = 0;
    for (const Box& box : boxes[me()]) {
      const BaseId t = temp(o.dtype, box.nelem());
      node_->copy_from_host(t, vals.data() + at);
      at += static_cast<std::size_t>(box.nelem()) * size;
      batch.push_back(make_instr(Opcode::Identity, local(mpi::sub_view(o, box)),
                                 {Operand::of(contiguous(t, o.dtype, box.count))}));
    }
    run_node(batch);
    release_temps();
  }

  static std::size_t where_count(const std::vector<std::pair<int, int64_t>>& where, int q, std::size_t n) {
    std::size_t c = 0;
    for (std::size_t i = 0; i < n; ++i) c += where[i].first == q;
    return c;
  }

  // The first out-of-range index a rank found: its row-major position in the
  // index array and its value.
  struct BadIndex {
    int64_t position = std::numeric_limits<int64_t>::max(), value = 0;
    bool found() const { return position != std::numeric_limits<int64_t>::max(); }
    void note(int64_t pos, int64_t v) {
      if (pos < position) {
        position = pos;
        value = v;
      }
    }
  };

  // The row-major position in `shape` of the i-th point of `boxes` (each box
  // in row-major order, the boxes one after another).
  static int64_t point_position(const Dims& shape, const std::vector<Box>& boxes, int64_t i) {
    for (const Box& b : boxes) {
      const int64_t n = b.nelem();
      if (i >= n) {
        i -= n;
        continue;
      }
      std::vector<int64_t> coord(static_cast<std::size_t>(shape.size()));
      for (int k = shape.size() - 1; k >= 0; --k) {
        coord[k] = b.start[k] + i % b.count[k];
        i /= b.count[k];
      }
      int64_t pos = 0;
      for (int k = 0; k < shape.size(); ++k) pos = pos * shape[k] + coord[k];
      return pos;
    }
    throw InternalError("mpi: point outside its boxes");
  }

  // Swaps the lists of element numbers: on return (*lists)[q] holds what q
  // sent me. If any rank found a bad index, every rank throws the same Error,
  // naming the bad index that comes first in row-major order (as ref does).
  void exchange_lists(std::vector<std::vector<int64_t>>* lists, const BadIndex& bad, const Instruction& in) {
    std::vector<int64_t> counts(P());
    for (int q = 0; q < P(); ++q)
      counts[q] = bad.found() ? kBadIndex : static_cast<int64_t>((*lists)[q].size());
    const std::vector<int64_t> theirs = comm_.alltoall(counts);
    bool bad_anywhere = bad.found();
    for (int q = 0; q < P(); ++q) bad_anywhere = bad_anywhere || theirs[q] == kBadIndex;
    if (bad_anywhere) {
      release_temps();
      int64_t first = bad.position;
      comm_.allreduce(&first, 1, DType::Int64, Opcode::MinimumReduce);
      int64_t value = bad.found() && bad.position == first ? bad.value : std::numeric_limits<int64_t>::min();
      comm_.allreduce(&value, 1, DType::Int64, Opcode::MaximumReduce);
      agreed(index_error(in, value));
    }
    std::vector<std::vector<uint8_t>> send(P()), recv(P());
    for (int q = 0; q < P(); ++q) {
      send[q].resize((*lists)[q].size() * 8);
      if (!send[q].empty()) std::memcpy(send[q].data(), (*lists)[q].data(), send[q].size());
      recv[q].resize(static_cast<std::size_t>(theirs[q]) * 8);
    }
    comm_.alltoallv(send, &recv);
    for (int q = 0; q < P(); ++q) {
      (*lists)[q].resize(theirs[q]);
      if (!recv[q].empty()) std::memcpy((*lists)[q].data(), recv[q].data(), recv[q].size());
    }
  }

  // The values of the listed elements of a base, all owned by this rank.
  std::vector<uint8_t> serve(BaseId id, const std::vector<int64_t>& elems) {
    const Local& b = find(id);
    const std::size_t size = dtype_size(b.dtype);
    std::vector<uint8_t> out(elems.size() * size);
    if (elems.empty()) return out;
    std::vector<int64_t> rel(elems.size());
    for (std::size_t i = 0; i < elems.size(); ++i) rel[i] = elems[i] - b.elo;
    const BaseId ti = temp(DType::Int64, static_cast<int64_t>(rel.size()));
    node_->copy_from_host(ti, rel.data());
    const BaseId tv = temp(b.dtype, static_cast<int64_t>(rel.size()));
    View whole = make_view(b.node, 0, {b.ehi - b.elo}, {1});
    whole.dtype = b.dtype;
    const Dims shape{static_cast<int64_t>(rel.size())};
    run_node({make_instr(Opcode::Gather, contiguous(tv, b.dtype, shape),
                         {Operand::of(whole), Operand::of(contiguous(ti, DType::Int64, shape))})});
    node_->copy_to_host(tv, out.data());
    return out;
  }

  // scatter: the owner of each input element sends (element number, value)
  // to the owner of its target element.
  void run_scatter(const Instruction& in) {
    const View& vals = in.in[0].view;
    const View& idx = in.in[1].view;
    const View& o = in.out;
    establish_inputs(in);
    establish_even(o.base);
    const auto boxes = owner_boxes(vals);
    std::vector<Needs> needs(P());
    add_needs(idx, boxes, &needs);
    fetch(needs);
    std::vector<uint8_t> raw, vraw;
    const std::vector<int64_t> index = read_values(idx, boxes[me()], &raw, DType::Int64);
    read_values(vals, boxes[me()], &vraw, o.dtype);
    const Local& t = find(o.base);
    const std::size_t size = dtype_size(o.dtype);
    const int64_t limit = o.nelem();
    std::vector<std::vector<int64_t>> to(P());
    std::vector<std::vector<uint8_t>> payload(P());
    BadIndex bad;
    for (std::size_t i = 0; i < index.size(); ++i) {
      if (index[i] < 0 || index[i] >= limit) {
        bad.note(point_position(idx.shape, boxes[me()], static_cast<int64_t>(i)), index[i]);
        continue;
      }
      if (bad.found()) continue;
      const int64_t e = element_of(o, index[i]);
      const int q = t.dist.owner(e);
      to[q].push_back(e);
      payload[q].insert(payload[q].end(), vraw.begin() + i * size, vraw.begin() + (i + 1) * size);
    }
    exchange_lists(&to, bad, in);
    std::vector<std::vector<uint8_t>> got(P());
    for (int q = 0; q < P(); ++q) got[q].resize(to[q].size() * size);
    comm_.alltoallv(payload, &got);
    // Apply in rank order (a later rank's duplicate wins: unspecified anyway).
    std::vector<int64_t> rel;
    std::vector<uint8_t> v;
    for (int q = 0; q < P(); ++q) {
      for (int64_t e : to[q]) rel.push_back(e - t.elo);
      v.insert(v.end(), got[q].begin(), got[q].end());
    }
    if (!rel.empty()) {
      const Dims shape{static_cast<int64_t>(rel.size())};
      const BaseId ti = temp(DType::Int64, shape[0]);
      node_->copy_from_host(ti, rel.data());
      const BaseId tv = temp(o.dtype, shape[0]);
      node_->copy_from_host(tv, v.data());
      View whole = make_view(t.node, 0, {t.ehi - t.elo}, {1});
      whole.dtype = o.dtype;
      run_node({make_instr(
          Opcode::Scatter, whole,
          {Operand::of(contiguous(tv, o.dtype, shape)), Operand::of(contiguous(ti, DType::Int64, shape))})});
    }
    release_temps();
  }

  mpi::Comm comm_;
  std::unique_ptr<Backend> node_;
  Profile node_profile_, seen_;
  std::map<BaseId, Local> bases_;  // ordered: deterministic iteration
  BaseId next_node_id_ = 0;
  std::vector<BaseId> temps_;
  int64_t mem_limit_;
  bool agreed_ = false;               // the error being thrown is raised alike on every rank (collective())
  bool row_fusion_;                   // the row-fusion pass (ARRVM_PASSES): row nests and programs (run_rows)
  std::vector<uint32_t> nest_order_;  // (by_rows' scratch)
  RowProgram program_;
  uint64_t charged_ = 0, charged_peak_ = 0;
};

}  // namespace

std::unique_ptr<Backend> make_mpi_backend(const Config& config) {
  return std::make_unique<MpiBackend>(config);
}

std::optional<MpiBackendStats> mpi_backend_stats(const Backend& backend) {
  const BackendStats g = backend.stats();
  if (g.backend != "mpi") return std::nullopt;
  MpiBackendStats s;
  s.rank = static_cast<int>(g.get("rank"));
  s.ranks = static_cast<int>(g.get("ranks"));
  s.bytes_sent = g.count("bytes_sent");
  s.bytes_received = g.count("bytes_received");
  s.messages_sent = g.count("messages_sent");
  s.messages_received = g.count("messages_received");
  s.collectives = g.count("collectives");
  s.wait_s = g.get("wait_s");
  s.bytes_charged = g.count("bytes_charged");
  s.bytes_charged_peak = g.count("bytes_charged_peak");
  return s;
}

}  // namespace arrvm
