#include "backends/cpu/cpu_backend.hpp"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <functional>
#include <limits>
#include <memory>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "backends/c_printer.hpp"
#include "backends/cpu/cpu_kernels.hpp"
#include "backends/cpu/threads.hpp"
#include "backends/host_memory.hpp"
#include "backends/loop_ir.hpp"
#include "backends/ref/contraction.hpp"
#include "backends/ref/dense_loops.hpp"
#include "backends/ref/ref_block.hpp"
#include "vm/error.hpp"
#include "vm/fp_flags.hpp"
#include "vm/interrupt.hpp"
#include "vm/log.hpp"
#include "vm/row_nest.hpp"
#include "vm/timeline.hpp"

namespace arrvm {

namespace {

// Below this much work (elements x statements) a parallel region costs more
// than it saves; above it, how many threads run is Threads::for_launch's.
constexpr int64_t kParallelWork = 1 << 15;
// From this much work on, a parallel kernel always takes its team; below,
// a TeamChoice measures whether the team pays (threads.hpp).
constexpr int64_t kSureParallelWork = int64_t{1} << 21;

// A kernel whose innermost loop has at most kMaxFixedInner iterations, over
// at least kMinFixedRows rows, is compiled for that extent
// (CDialect::inner_extent); a short last axis of few rows (most tests' small
// arrays) keeps the kernel of any extent.
constexpr int64_t kMaxFixedInner = 8;
constexpr int64_t kMinFixedRows = 1024;

constexpr int64_t kNoError = std::numeric_limits<int64_t>::max();

// An eager elementwise instruction (the VM's eager path) of at least this
// many elements runs as its own kernel once that is compiled (tiered: ref's
// loops until then). ref's loops are built for any x86-64 and do not
// vectorize what needs more than SSE2 (int64 minimum: 0.8 ns an element;
// NumPy 0.27), where a kernel compiled for this machine is ~0.15 ns an
// element after ~1 us to find and launch it: below a few thousand elements
// ref's loops are faster. A transcendental function (ref: libm's scalar
// function, ~5 ns an element; the kernel: libmvec's) pays from a few hundred.
constexpr int64_t kEagerKernelElements = 4096;
constexpr int64_t kEagerKernelElementsLibm = 512;

bool eager_kernel_pays(Opcode op, DType out, int64_t n) {
  if (opcode_kind(op) != OpKind::Elementwise && opcode_kind(op) != OpKind::Reduce) return false;
  const bool libm = (opcode_type_rule(op) == TypeRule::Float && op != Opcode::Floor && op != Opcode::Ceil &&
                     op != Opcode::Trunc && op != Opcode::Rint) ||
                    (op == Opcode::Power && is_float(out));
  return n >= (libm ? kEagerKernelElementsLibm : kEagerKernelElements);
}

bool eager_kernel_pays(const Instruction& in) {
  // (A reduction's work is its input's elements.)
  const int64_t n = opcode_kind(in.op) == OpKind::Reduce && in.nin == 1 && !in.in[0].is_const
                        ? in.in[0].view.nelem()
                        : in.out.nelem();
  return eager_kernel_pays(in.op, in.out.dtype, n);
}

class CpuBackend final : public Backend {
 public:
  explicit CpuBackend(const Config& config)
      : kernels_(config, std::min(4, threads_.team())),
        memoize_(config.cache != CacheMode::Off),
        row_fusion_(config.pass_on("row-fusion")) {
    memory_.limit(config.mem_limit);
  }

  std::string name() const override { return "cpu"; }
  bool compiles_kernels() const override { return true; }

  void declare(BaseId id, DType dtype, int64_t nelem) override { memory_.declare(id, dtype, nelem); }

  bool adopt(BaseId id, void* data, std::function<void(void*)> deleter) override {
    memory_.adopt(id, data, std::move(deleter));
    return true;
  }

  void copy_from_host(BaseId id, const void* src) override {
    memory_.track(&profile());
    HostMemory::Buffer& b = memory_.find(id);
    if (b.bytes() == 0) return;
    void* dst = memory_.for_write(id, /*full=*/true);
    if (b.dtype != DType::Bool) {
      std::memcpy(dst, src, b.bytes());
      return;
    }
    // Kernels treat bools as bytes 0/1: normalize (any non-zero byte is true).
    const auto* in = static_cast<const unsigned char*>(src);
    auto* out = static_cast<unsigned char*>(dst);
    for (int64_t i = 0; i < b.nelem; ++i) out[i] = in[i] != 0;
  }

  void copy_to_host(BaseId id, void* dst) override {
    HostMemory::Buffer& b = memory_.find(id);
    if (b.bytes() == 0) return;
    if (b.data) {
      std::memcpy(dst, b.data.get(), b.bytes());
    } else {
      std::memset(dst, 0, b.bytes());  // never written: zeros
    }
  }

  bool read_elements(BaseId id, int64_t offset, int64_t stride, int64_t count, void* dst) override {
    memory_.read(id, offset, count, dst, stride);
    return true;
  }

  bool write_elements(BaseId id, int64_t offset, int64_t count, const void* src) override {
    memory_.track(&profile());
    memory_.write(id, offset, count, src);
    return true;
  }

  void release(BaseId id) override {
    memory_.track(&profile());
    memory_.release(id);
  }

  bool can_rename() const override { return true; }
  void rename(BaseId from, BaseId to) override {
    memory_.track(&profile());
    memory_.rename(from, to);
  }
  void leave_unfilled(BaseId id) override { memory_.find(id).unfilled = true; }

  // Each block runs as one kernel (fusibility guarantees that one loop nest
  // runs it: fusion/README.md), a row nest too (FusionRules::row_nests); its
  // frees are applied after the kernel.
  void execute(std::span<const Instruction> batch, const Partition& partition) override {
    memory_.track(&profile());
    progress_ = {};
    // A partition this backend has not run yet: all its kernels are asked
    // for at once (compiled in units of several a compiler run), not one a
    // launch as its blocks come (one compiler run each, ~40 ms of it the
    // compiler's start).
    if (kernels_.tiered() && memoize_ && partition.structure != 0 &&
        asked_.insert(partition.structure).second) {
      if (asked_.size() > kMaxLowered) asked_ = {partition.structure};
      CompileQueue::Burst burst(kernels_.queue());
      kernels_ready(batch, partition);
    }
    for (std::size_t k = 0; k < partition.blocks.size(); ++k) {
      check_interrupt();  // (between kernels: a stop leaves no kernel half run)
      const Block& block = partition.blocks[k];
      for (uint32_t i : block) ARRVM_ASSERT(i < batch.size());
      run_block(batch, block, partition.structure, k);
      for (uint32_t i : block) {
        if (opcode_kind(batch[i].op) == OpKind::Free) release(batch[i].out.base);
      }
      ++progress_.done;
    }
  }

  FusionRules fusion_rules() const override { return {.row_nests = row_fusion_}; }

  // Each block lowered as run_block lowers it (kept for its launch), its
  // kernel asked for without waiting. A block over a length class (lowered
  // once its compress has run), one that launches nothing and a matrix
  // product (interpreted at speed: ref/contraction.hpp) need no kernel.
  bool kernels_ready(std::span<const Instruction> batch, const Partition& partition) override {
    if (!kernels_.tiered() || !memoize_) return true;
    bool ready = true;
    for (std::size_t k = 0; k < partition.blocks.size(); ++k) {
      std::span<const uint32_t> block = partition.blocks[k];
      if (!codegen::has_work(batch, block) ||
          std::any_of(block.begin(), block.end(), [&](uint32_t i) { return batch[i].length_class >= 0; }))
        continue;
      if (row_nest_order(batch, block, &nest_order_)) block = nest_order_;
      Lowered* e = nullptr;
      try {
        e = lowered_for(batch, block, partition.structure, k);
      } catch (const std::exception&) {
        continue;  // (its launch reports it)
      }
      ref::Contraction contraction;
      if (e->fn != nullptr || !codegen::launches(e->b) || ref::find_contraction(batch, block, &contraction))
        continue;
      // (every block asked, so that all the missing kernels compile at once)
      const int64_t w = work(e->b);
      ready &= kernels_.ready(e->b.kernel, first_form(w), fixed_inner(e->b), w, profile());
    }
    return ready;
  }

  // The eager path: ref's loops on this backend's memory (the interpreted
  // tier's); a large enough elementwise instruction, its compiled kernel.
  bool run_now(std::span<const Instruction> batch, std::span<const uint32_t> block) override {
    memory_.track(&profile());
    if (block.size() == 1 && kernels_.tiered() && eager_kernel_pays(batch[block[0]])) {
      run_block(batch, block, 0, 0);  // (interpreted while its kernel compiles)
      return true;
    }
    ref::run_block(batch, block, memory_, lengths_);
    return true;
  }

  // The same without an instruction: ref's loops, where run_now would run them.
  bool run_dense_now(Opcode op, std::span<const DenseRun> in, DenseRun out, DType out_dtype,
                     int64_t n) override {
    if (kernels_.tiered() && eager_kernel_pays(op, out_dtype, n)) return false;
    memory_.track(&profile());
    return ref::run_dense(memory_, op, in, out, out_dtype, n);
  }

  // The OpenMP team's flags: the threads the launches since the last call
  // ran on (the calling thread's are the VM's to read).
  uint32_t take_fp_flags() override {
    const int team = team_since_flags_;
    team_since_flags_ = 1;
    return fp_flags_take_team(team);
  }

  BackendStats stats() const override {
    CpuBackendStats s = stats_;
    s.cache = kernels_.stats();
    return {"cpu",
            {{"kernels_compiled", s.cache.compiled},
             {"kernel_cache_memory_hits", s.cache.memory_hits},
             {"kernel_cache_disk_hits", s.cache.disk_hits},
             {"kernel_cache_misses", s.cache.misses},
             {"kernel_cache_corrupt", s.cache.corrupt},
             {"kernels_launched", s.kernels_launched},
             {"contracted", s.contracted},
             {"lowerings_reused", s.lowerings_reused}},
            {}};
  }

 private:
  // A lowered block kept for later blocks of the same structure, with what
  // re-binds it to them.
  struct Lowered {
    codegen::LoweredBlock b;
    codegen::Binding binding;
    // Its compiled form (kernel_for; a lowering has one shape, so one form).
    KernelFn fn = nullptr;
  };
  int team_since_flags_ = 1;  // the largest team a launch ran on since take_fp_flags
  static constexpr std::size_t kMaxLowered = 4096;

  // A row nest (vm/row_nest.hpp) runs its rows' instructions first: the
  // order its lowering, key and binding see.
  void run_block(std::span<const Instruction> batch, std::span<const uint32_t> block, uint64_t structure,
                 std::size_t index) {
    if (!codegen::has_work(batch, block)) return;  // a block of frees and syncs
    if (row_nest_order(batch, block, &nest_order_)) {
      block = nest_order_;
      profile().count_pass("row-fusion", 1);
    }
    batch = resolve_classes(batch, block);
    codegen::check_empty_axes(batch, block);
    Lowered* e = nullptr;
    {
      ScopedSpan t(profile(), &profile().codegen_s, "codegen");
      e = lowered_for(batch, block, structure, index);
    }
    const std::vector<codegen::Stmt>& body = e->b.kernel.body;
    if (!body.empty() && body.back().segment > 0) profile().count_pass("row-fusion", 1);  // a row program
    if (!codegen::launches(e->b)) {  // nothing to do (ref writes nothing either)
      for (BaseId c : e->b.kept) lengths_[c] = 0;
      check_empty_classes(batch, block);
      return;
    }
    // A matrix product's block has a precompiled form (ref/contraction.hpp):
    // interpreted so, it need not wait for its compile however large.
    ref::Contraction contraction;
    const bool contracts =
        e->fn == nullptr && kernels_.tiered() && ref::find_contraction(batch, block, &contraction);
    if (!launch(batch, &e->b, &e->fn, index, block.size(), contracts)) {
      // Its kernel is compiling (or failed to): the block runs interpreted.
      ScopedSpan span(
          profile(), nullptr, "interpreted", "kernel",
          {{"block", static_cast<int64_t>(index)}, {"instructions", static_cast<int64_t>(block.size())}});
      ++profile().blocks_interpreted;
      const auto start = std::chrono::steady_clock::now();
      if (!contracts || !ref::run_contraction(contraction, memory_)) {
        const char* whole = nullptr;  // why not all of it a chunk at a time
        const std::size_t chunked = ref::run_block_chunked(batch, block, memory_, lengths_, &whole);
        if (chunked > 0) ++profile().blocks_chunked;
        if (whole != nullptr)
          logger().debug("cpu: block {} ({} instructions, {} run a chunk at a time): not all chunked: {}",
                         index, block.size(), chunked, whole);
      }
      kernels_.interpreted(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
      return;
    }
    if (!e->b.kept.empty()) check_empty_classes(batch, block);
  }

  // The lowering of `block`, block `index` of a partition whose structure id
  // is `structure` (0: none): a kept one re-bound to this block's bases,
  // constants and instructions (found by structure id and index, else by the
  // block's BlockKey), else lowered now and kept under both.
  Lowered* lowered_for(std::span<const Instruction> batch, std::span<const uint32_t> block,
                       uint64_t structure, std::size_t index) {
    auto lower = [&] { return codegen::lower(batch, block, codegen::Target::Cpu); };
    // ARRVM_CACHE=off: nothing is reused (every block lowered and looked up again).
    if (!memoize_) {
      scratch_.b = lower();
      scratch_.fn = nullptr;
      return &scratch_;
    }
    std::vector<std::shared_ptr<Lowered>>* by_index = nullptr;
    if (structure != 0) {
      by_index = &by_structure_[structure];
      if (index < by_index->size() && (*by_index)[index]) {
        Lowered& e = *(*by_index)[index];
        if (codegen::rebind(&e.b, e.binding, batch, block)) {
          ++stats_.lowerings_reused;
          return &e;
        }
        // Its constants share slots differently: found by key or lowered below.
      }
    }
    codegen::block_key(batch, block, &key_);
    std::shared_ptr<Lowered> e;
    auto it = by_key_.find(key_.hash);
    if (it != by_key_.end() && it->second.first == key_.words) {
      e = it->second.second;
      const bool fits = codegen::rebind(&e->b, e->binding, batch, block);
      ARRVM_ASSERT(fits);  // the key holds the constants' pattern
      ++stats_.lowerings_reused;
    } else {
      e = std::make_shared<Lowered>();
      e->b = lower();
      e->binding = codegen::binding_of(e->b, batch, block);
      if (by_key_.size() >= kMaxLowered || by_structure_.size() >= kMaxLowered) {
        by_key_.clear();
        by_structure_.clear();
        by_index = structure != 0 ? &by_structure_[structure] : nullptr;
      }
      by_key_.insert_or_assign(key_.hash, std::make_pair(key_.words, e));
    }
    if (by_index != nullptr) {
      if (by_index->size() <= index) by_index->resize(index + 1);
      (*by_index)[index] = e;
    }
    return e.get();
  }

  // `*fn_cache`: the block's compiled form, once fetched. `index`, `size`:
  // the block's in the partition, for the timeline.
  // Runs the block's kernel and returns true; false, with nothing done, when
  // the kernel is not compiled yet (tiered: the caller interprets the block).
  // `interpretable`: the block runs interpreted at ref's speed whatever its
  // size (a contraction), so a kernel still compiling is not waited for.
  bool launch(std::span<const Instruction> batch, codegen::LoweredBlock* b, KernelFn* fn_cache,
              std::size_t index, std::size_t size, bool interpretable = false) {
    const codegen::LoopKernel& k = b->kernel;
    const int64_t w = work(*b);
    const bool team = may_team(w);
    const bool parallel = first_form(w);
    if (*fn_cache == nullptr || !memoize_) {
      *fn_cache = kernels_.get(k, parallel, fixed_inner(*b), interpretable ? 0 : w, profile());
      if (*fn_cache == nullptr) return false;
    } else {
      kernels_.memo_hit(profile());
    }
    const KernelFn fn = *fn_cache;
    // Scratch kept across launches: no heap allocation per launch.
    std::vector<void*>& ptrs = ptrs_;
    ptrs.assign(b->views.size() + b->indexed.size() + (k.errors > 0 ? 1 : 0) + (k.counters > 0 ? 1 : 0),
                nullptr);
    // Written slots first, so a base written and read in one block is
    // allocated before its reads look for memory.
    for (std::size_t v = 0; v < b->views.size(); ++v) {
      if (k.written[v]) ptrs[v] = memory_.for_write(b->views[v].base, writes_all(*b, v));
    }
    for (std::size_t j = 0; j < b->indexed.size(); ++j) {
      if (k.indexed[j].written) ptrs[b->views.size() + j] = memory_.for_write(b->indexed[j].base);
    }
    // A base never written reads as zeros: it gets its zero-filled memory
    // now. (Re-pointing the view at a small zero buffer with zero strides
    // would contradict the stride classes the kernel was lowered for.)
    for (std::size_t v = 0; v < b->views.size(); ++v) {
      if (k.written[v]) continue;
      ptrs[v] = memory_.for_read(b->views[v].base);
      if (ptrs[v] == nullptr) ptrs[v] = memory_.for_write(b->views[v].base);
    }
    for (std::size_t j = 0; j < b->indexed.size(); ++j) {
      void*& p = ptrs[b->views.size() + j];
      if (k.indexed[j].written) continue;
      p = memory_.for_read(b->indexed[j].base);
      if (p == nullptr) p = memory_.for_write(b->indexed[j].base);
    }
    std::vector<int64_t>& errors = errors_;
    errors.assign(2 * static_cast<std::size_t>(k.errors), 0);
    for (int e = 0; e < k.errors; ++e) errors[2 * e] = kNoError;
    if (k.errors > 0) ptrs[b->views.size() + b->indexed.size()] = errors.data();
    counts_.assign(static_cast<std::size_t>(k.counters), 0);
    if (k.counters > 0) ptrs.back() = counts_.data();
    int threads = team ? threads_.for_launch() : 1;
    TeamChoice* choice = nullptr;
    bool timed = false;
    if (threads > 1 && w < kSureParallelWork) {
      // (per kernel and size class: the bit length of its element count)
      const int64_t n = b->shape.product();
      const int size_class = n <= 0 ? 0 : 64 - __builtin_clzll(static_cast<unsigned long long>(n));
      choice = &team_choices_[reinterpret_cast<uintptr_t>(fn) * 64 + static_cast<uintptr_t>(size_class)];
      threads = choice->pick(threads, &timed);
    }
    // The form this launch wants: parallel for a team, serial for one
    // thread; `fn` until the other is there (CpuKernels::other_form), a
    // serial `fn` on one thread (its probe waits: not timed).
    KernelFn run = fn;
    if (team && (threads > 1) != parallel) {
      const KernelFn other = kernels_.other_form(fn, threads > 1, k, fixed_inner(*b), profile());
      if (other != nullptr) {
        run = other;
      } else if (!parallel) {
        threads = 1;
        timed = false;
      }
    }
    codegen::pack_args(*b, threads, &args_);
    const std::vector<int64_t>& args = args_;
    ++stats_.kernels_launched;
    ++profile().kernels_launched;
    if (threads > 1) ++profile().kernels_on_team;
    stats_.contracted += b->contracted.size();
    profile().arrays_contracted += b->contracted.size();
    const auto start = timed ? std::chrono::steady_clock::now() : std::chrono::steady_clock::time_point{};
    if (profile().timeline != nullptr) {
      ScopedSpan span(profile(), nullptr, "kernel", "kernel",
                      {{"block", static_cast<int64_t>(index)},
                       {"instructions", static_cast<int64_t>(size)},
                       {"elements", b->shape.product()},
                       {"threads", threads}});
      run(ptrs.data(), args.data(), b->consts.data());
    } else {  // (no clock read, no span arguments built: 0.1 us of a 100-element launch)
      run(ptrs.data(), args.data(), b->consts.data());
    }
    if (timed) {
      choice->ran(threads, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    }
    threads_.ran(threads);
    team_since_flags_ = std::max(team_since_flags_, threads);
    for (int c = 0; c < k.counters; ++c) lengths_[b->kept[c]] = counts_[c];
    // The kernel ran to its end: every failed slot is reported, the rest of
    // the block is computed (vm/error.hpp, InstructionsFailed).
    bad_.clear();
    for (int e = 0; e < k.errors; ++e) {
      if (errors[2 * e] != kNoError) bad_.emplace_back(b->error_instr[e], errors[2 * e + 1]);
    }
    throw_index_failures(batch, bad_);
    return true;
  }

  // Whether a launch of `w` element-statements may run on a team. Never
  // with one usable core (OMP_NUM_THREADS=1, an affinity mask or a quota
  // of one), which compiles no parallel form at all: a region entered on
  // one thread still costs libgomp's team start and end, a futex wake
  // among them (1.4 us a launch on a paravirtualized host).
  bool may_team(int64_t w) const { return w >= kParallelWork && threads_.team() > 1; }
  // Whether a kernel launched with `w` element-statements is compiled
  // first with its parallel regions: where it always takes the team
  // (kSureParallelWork), and untiered (no other form is compiled: the
  // regions' if clauses run it on one thread). Between kParallelWork and
  // kSureParallelWork, tiered, it is compiled serial first, and its
  // parallel form only once launches want a team (a TeamChoice probe on a
  // machine with a free core): a loaded machine never compiles it or
  // enters its regions.
  bool first_form(int64_t w) const { return may_team(w) && (w >= kSureParallelWork || !kernels_.tiered()); }

  // A launch's work: elements x statements, each statement weighed by its
  // widest element (operands, result, accumulator) against 8 bytes when
  // every view runs along its last axis element by element (or stays put).
  // A vector instruction does 32 uint8 operations for 4 float64 ones, so a
  // kernel on bytes (rule 30's cellular automaton, 20001 cells a step) does
  // in a microsecond what a float64 one of its size does in eight, and a
  // team would cost it more than it saves (one thread ran rule30 in 0.092
  // s, two in 0.109). Per statement, not the kernel's widest: that step's
  // bytes are summed into a uint64 by one statement of five. (Its 47.5k
  // element-statements still pass kParallelWork: TeamChoice, measuring,
  // keeps it on one thread.) A strided view touches a cache line an element
  // whatever its width (the sieve's `is_prime[p * p::p] = False`): no
  // scaling.
  static int64_t work(const codegen::LoweredBlock& b) {
    bool strided = !b.indexed.empty();
    for (const View& v : b.views) {
      const int64_t inner = v.rank() == 0 ? 0 : v.stride[v.rank() - 1];
      strided = strided || (inner != 0 && inner != 1);
    }
    const codegen::LoopKernel& k = b.kernel;
    int64_t eighths = 0;  // the statements' weights, in eighths
    for (const codegen::Stmt& st : k.body) {
      std::size_t w = dtype_size(st.out.dtype);
      for (int i = 0; i < st.nin; ++i) w = std::max(w, dtype_size(st.in[static_cast<std::size_t>(i)].dtype));
      if (st.acc >= 0) w = std::max(w, dtype_size(k.accs[static_cast<std::size_t>(st.acc)]));
      eighths += strided ? 8 : static_cast<int64_t>(std::min<std::size_t>(w, 8));
    }
    return b.shape.product() * std::max<int64_t>(eighths, 1) / 8;
  }

  // Whether written view slot `v` covers every element of its base and the
  // kernel reads the base through no other slot: its new memory then needs
  // no zero-filling (nothing can read an element before the kernel writes it).
  bool writes_all(const codegen::LoweredBlock& b, std::size_t v) {
    const View& w = b.views[v];
    if (w.nelem() != memory_.find(w.base).nelem || !is_injective(w)) return false;
    // A compress and its class write only the elements kept.
    if (b.kernel.counters > 0 && codegen::slot_domains(b.kernel)[v] >= 0) return false;
    for (std::size_t u = 0; u < b.views.size(); ++u) {
      if (!b.kernel.written[u] && b.views[u].base == w.base && !read_after_written(b, v, u)) return false;
    }
    for (const View& x : b.indexed) {
      if (x.base == w.base) return false;
    }
    return true;
  }

  // A row program (loop_ir.hpp, Stmt::segment) reads slot `u` only in
  // segments after every write of slot `v`, through the same elements: each
  // row reads what its earlier loop wrote (softmax's e), never memory from
  // before the kernel.
  static bool read_after_written(const codegen::LoweredBlock& b, std::size_t v, std::size_t u) {
    // (Segments ascend in body order: any kernel else stops here, an
    // in-place update's launch included.)
    if (b.kernel.body.empty() || b.kernel.body.back().segment == 0) return false;
    if (!same_elements(b.views[u], b.views[v])) return false;
    int last_write = -1, first_read = INT32_MAX;
    for (const codegen::Stmt& st : b.kernel.body) {
      if (st.out.kind == codegen::ArgKind::View && static_cast<std::size_t>(st.out.index) == v)
        last_write = std::max(last_write, st.segment);
      for (int j = 0; j < st.nin; ++j) {
        if (st.in[j].kind == codegen::ArgKind::View && static_cast<std::size_t>(st.in[j].index) == u)
          first_read = std::min(first_read, st.segment);
      }
    }
    return last_write >= 0 && first_read > last_write;
  }

  // The innermost extent `b` is compiled for (CDialect::inner_extent), or 0;
  // -1: none, the extent is longer than kMaxFixedInner (CpuKernels::kernel_for).
  static int64_t fixed_inner(const codegen::LoweredBlock& b) {
    const codegen::LoopKernel& k = b.kernel;
    if (k.rank < 2) return 0;
    const int64_t inner = b.shape[static_cast<std::size_t>(k.loops.back().axis)];
    if (inner > kMaxFixedInner) return -1;
    if (inner < 1 || b.shape.product() / inner < kMinFixedRows) return 0;
    return inner;
  }

  HostMemory memory_;
  Threads threads_;  // (before kernels_: sets libgomp's spin count before a kernel loads it)
  std::unordered_map<uintptr_t, TeamChoice> team_choices_;  // by kernel and size class (launch)
  CpuKernels kernels_;                                      // (after threads_)
  bool memoize_;
  bool row_fusion_;                   // the row-fusion pass (ARRVM_PASSES)
  std::vector<uint32_t> nest_order_;  // scratch: a row nest's order
  CpuBackendStats stats_;
  std::vector<void*> ptrs_;
  std::vector<int64_t> errors_, args_, counts_;
  std::vector<std::pair<uint32_t, int64_t>> bad_;  // scratch: (instruction, bad index)
  // Kept lowerings by BlockKey hash (a collision replaces the entry) and by
  // partition structure id and block index; both cleared when either holds
  // kMaxLowered.
  std::unordered_map<uint64_t, std::pair<std::vector<uint64_t>, std::shared_ptr<Lowered>>> by_key_;
  std::unordered_map<uint64_t, std::vector<std::shared_ptr<Lowered>>> by_structure_;
  std::unordered_set<uint64_t> asked_;  // partitions whose kernels execute() asked for
  codegen::BlockKey key_;
  Lowered scratch_;  // ARRVM_CACHE=off
};

}  // namespace

std::unique_ptr<Backend> make_cpu_backend(const Config& config) {
  return std::make_unique<CpuBackend>(config);
}

CpuBackendStats cpu_backend_stats(const Backend& backend) {
  const BackendStats g = backend.stats();
  if (g.backend != "cpu") throw InternalError("cpu_backend_stats: backend '" + g.backend + "' is not cpu");
  CpuBackendStats s;
  s.cache.compiled = g.count("kernels_compiled");
  s.cache.memory_hits = g.count("kernel_cache_memory_hits");
  s.cache.disk_hits = g.count("kernel_cache_disk_hits");
  s.cache.misses = g.count("kernel_cache_misses");
  s.cache.corrupt = g.count("kernel_cache_corrupt");
  s.kernels_launched = g.count("kernels_launched");
  s.contracted = g.count("contracted");
  s.lowerings_reused = g.count("lowerings_reused");
  return s;
}

}  // namespace arrvm
