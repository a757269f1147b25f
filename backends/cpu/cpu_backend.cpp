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
#include "backends/cpu/compile_queue.hpp"
#include "backends/cpu/threads.hpp"
#include "backends/cpu/vector_math.hpp"
#include "backends/host_memory.hpp"
#include "backends/loop_ir.hpp"
#include "backends/ref/ref_block.hpp"
#include "vm/error.hpp"
#include "vm/interrupt.hpp"
#include "vm/log.hpp"
#include "vm/timeline.hpp"

namespace arrvm {

namespace {

using KernelFn = void (*)(void**, const int64_t*, const uint64_t*);

// Below this much work (elements x statements) a parallel region costs more
// than it saves; above it, how many threads run is Threads::for_launch's.
constexpr int64_t kParallelWork = 1 << 15;

// A kernel whose innermost loop has at most kMaxFixedInner iterations, over
// at least kMinFixedRows rows, is compiled for that extent
// (CDialect::inner_extent); a short last axis of few rows (most tests' small
// arrays) keeps the kernel of any extent.
constexpr int64_t kMaxFixedInner = 8;
constexpr int64_t kMinFixedRows = 1024;

constexpr int64_t kNoError = std::numeric_limits<int64_t>::max();

class CpuBackend final : public Backend {
 public:
  explicit CpuBackend(const Config& config)
      : cache_(config),
        memoize_(config.cache != CacheMode::Off),
        row_fusion_(config.row_fusion),
        vector_functions_(config.vector_math ? vector_math_functions() : std::vector<std::string>{}),
        cache_dir_(cache_.dir()) {
    memory_.limit(config.mem_limit);
    // Tiered execution (ARRVM_TIERED): kernels compile on threads of their own.
    if (config.tiered && memoize_)
      queue_ = std::make_unique<CompileQueue>(config, std::min(4, threads_.team()));
  }

  std::string name() const override { return "cpu"; }

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

  bool read_elements(BaseId id, int64_t offset, int64_t count, void* dst) override {
    memory_.read(id, offset, count, dst);
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
  // runs it: fusion/README.md); its frees are applied after the kernel. A
  // block over (m) and the next over (m, ...) run as one kernel when their
  // accesses stay in their rows (row fusion: codegen::rows_fusible).
  void execute(std::span<const Instruction> batch, const Partition& partition) override {
    memory_.track(&profile());
    progress_ = {};
    const std::size_t n = partition.blocks.size();
    for (std::size_t k = 0; k < n; ++k) {
      check_interrupt();  // (between kernels: a stop leaves no kernel half run)
      const Block& block = partition.blocks[k];
      for (uint32_t i : block) ARRVM_ASSERT(i < batch.size());
      std::size_t blocks = 1;
      // Y: the next block with work (blocks of frees between them run after
      // both: freeing later is always legal; from Python, the free of the
      // previous step's factor lands between the two).
      std::size_t y = k + 1;
      while (y < n && frees_only(batch, partition.blocks[y])) ++y;
      if (row_fusion_ && y < n && codegen::has_work(batch, block) &&
          codegen::rows_fusible(batch, block, partition.blocks[y])) {
        rows_.clear();
        for (std::size_t b = k; b <= y; ++b) {
          for (uint32_t i : partition.blocks[b]) ARRVM_ASSERT(i < batch.size());
          rows_.insert(rows_.end(), partition.blocks[b].begin(), partition.blocks[b].end());
        }
        blocks = y - k + 1;
        // A block of frees right after them joins: a base X creates for Y
        // (Gauss's factor) and frees there is then a temporary.
        if (y + 1 < n && frees_only(batch, partition.blocks[y + 1])) {
          rows_.insert(rows_.end(), partition.blocks[y + 1].begin(), partition.blocks[y + 1].end());
          ++blocks;
        }
        // (Kept under index n + k: the lowering of block k alone is another.)
        try {
          run_block(batch, rows_, partition.structure, n + k, block.size());
        } catch (InstructionsFailed& f) {
          f.span = blocks;  // the kernel ran blocks k .. k + blocks - 1
          throw;
        }
        ++profile().rows_fused;
      } else {
        run_block(batch, block, partition.structure, k, 0);
      }
      for (std::size_t b = k; b < k + blocks; ++b) {
        for (uint32_t i : partition.blocks[b]) {
          if (opcode_kind(batch[i].op) == OpKind::Free) release(batch[i].out.base);
        }
      }
      progress_.done += blocks;
      k += blocks - 1;
    }
  }

  static bool frees_only(std::span<const Instruction> batch, const Block& block) {
    return std::all_of(block.begin(), block.end(), [&](uint32_t i) {
      return i < batch.size() && opcode_kind(batch[i].op) == OpKind::Free;
    });
  }

  BackendStats stats() const override {
    CpuBackendStats s = stats_;
    s.cache = cache_.stats();
    if (queue_) {
      const KernelCacheStats q = queue_->stats();
      s.cache.compiled += q.compiled;
      s.cache.memory_hits += q.memory_hits;
      s.cache.disk_hits += q.disk_hits;
      s.cache.misses += q.misses;
      s.cache.corrupt += q.corrupt;
    }
    s.cache.memory_hits += memo_hits_;
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
  static constexpr std::size_t kMaxLowered = 4096;

  // `rows` > 0: block[0, rows) and the rest are two blocks row-fused (lower_rows).
  void run_block(std::span<const Instruction> batch, std::span<const uint32_t> block, uint64_t structure,
                 std::size_t index, std::size_t rows) {
    if (!codegen::has_work(batch, block)) return;  // a block of frees and syncs
    batch = resolve_classes(batch, block);
    codegen::check_empty_axes(batch, block);
    Lowered* e = nullptr;
    {
      ScopedSpan t(profile(), &profile().codegen_s, "codegen");
      e = lowered_for(batch, block, structure, index, rows);
    }
    if (!codegen::launches(e->b)) {  // nothing to do (ref writes nothing either)
      for (BaseId c : e->b.kept) lengths_[c] = 0;
      check_empty_classes(batch, block);
      return;
    }
    if (!launch(batch, &e->b, &e->fn, index, block.size())) {
      // Its kernel is compiling (or failed to): the block runs interpreted.
      ScopedSpan span(
          profile(), nullptr, "interpreted", "kernel",
          {{"block", static_cast<int64_t>(index)}, {"instructions", static_cast<int64_t>(block.size())}});
      ++profile().blocks_interpreted;
      const auto start = std::chrono::steady_clock::now();
      ref::run_block(batch, block, memory_, lengths_);
      if (!last_pending_.empty())
        interpreted_s_[last_pending_] +=
            std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      return;
    }
    if (!e->b.kept.empty()) check_empty_classes(batch, block);
  }

  // The lowering of `block`, block `index` of a partition whose structure id
  // is `structure` (0: none): a kept one re-bound to this block's bases,
  // constants and instructions (found by structure id and index, else by the
  // block's BlockKey), else lowered now and kept under both.
  Lowered* lowered_for(std::span<const Instruction> batch, std::span<const uint32_t> block,
                       uint64_t structure, std::size_t index, std::size_t rows) {
    auto lower = [&] {
      return rows > 0 ? codegen::lower_rows(batch, block, rows)
                      : codegen::lower(batch, block, codegen::Target::Cpu);
    };
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
  // the block's in the partition (n + k for blocks k, k+1 row-fused), for
  // the timeline.
  // Runs the block's kernel and returns true; false, with nothing done, when
  // the kernel is not compiled yet (tiered: the caller interprets the block).
  bool launch(std::span<const Instruction> batch, codegen::LoweredBlock* b, KernelFn* fn_cache,
              std::size_t index, std::size_t size) {
    const codegen::LoopKernel& k = b->kernel;
    const int64_t w = work(k, b->shape.product());
    const bool parallel = w >= kParallelWork;
    if (*fn_cache == nullptr || !memoize_) {
      *fn_cache = kernel_for(k, parallel, fixed_inner(*b), w);
      if (*fn_cache == nullptr) return false;
    } else {
      ++memo_hits_;
      ++profile().kernel_cache_hits;
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
    const int threads = parallel ? threads_.for_launch() : 1;
    codegen::pack_args(*b, threads, &args_);
    const std::vector<int64_t>& args = args_;
    ++stats_.kernels_launched;
    ++profile().kernels_launched;
    stats_.contracted += b->contracted.size();
    profile().arrays_contracted += b->contracted.size();
    if (profile().timeline != nullptr) {
      ScopedSpan span(profile(), nullptr, "kernel", "kernel",
                      {{"block", static_cast<int64_t>(index)},
                       {"instructions", static_cast<int64_t>(size)},
                       {"elements", b->shape.product()}});
      fn(ptrs.data(), args.data(), b->consts.data());
    } else {  // (no clock read, no span arguments built: 0.1 us of a 100-element launch)
      fn(ptrs.data(), args.data(), b->consts.data());
    }
    threads_.ran(threads);
    for (int c = 0; c < k.counters; ++c) lengths_[b->kept[c]] = counts_[c];
    // The kernel ran to its end: every failed slot is reported, the rest of
    // the block is computed (vm/error.hpp, InstructionsFailed).
    std::vector<InstructionsFailed::Failure> failures;
    std::string first;
    for (int e = 0; e < k.errors; ++e) {
      if (errors[2 * e] == kNoError) continue;
      const Instruction& in = batch[b->error_instr[e]];
      const int64_t limit = in.op == Opcode::Gather ? in.in[0].view.nelem() : in.out.nelem();
      const Error error(std::string(opcode_name(in.op)) + ": index " + std::to_string(errors[2 * e + 1]) +
                        " out of range [0, " + std::to_string(limit) + ") in `" + to_string(in) + "`");
      if (first.empty()) first = error.what();
      failures.push_back({static_cast<uint32_t>(b->error_instr[e]), std::make_exception_ptr(error)});
    }
    if (!failures.empty()) throw InstructionsFailed(std::move(failures), 1, first);
    return true;
  }

  // A launch's work: its elements times its statements.
  static int64_t work(const codegen::LoopKernel& k, int64_t elements) {
    return elements * std::max<int64_t>(1, static_cast<int64_t>(k.body.size()));
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
      if (!b.kernel.written[u] && b.views[u].base == w.base) return false;
    }
    for (const View& x : b.indexed) {
      if (x.base == w.base) return false;
    }
    return true;
  }

  // The innermost extent `b` is compiled for (CDialect::inner_extent), or 0.
  static int64_t fixed_inner(const codegen::LoweredBlock& b) {
    const codegen::LoopKernel& k = b.kernel;
    if (k.rank < 2) return 0;
    const int64_t inner = b.shape[static_cast<std::size_t>(k.loops.back().axis)];
    if (inner < 1 || inner > kMaxFixedInner || b.shape.product() / inner < kMinFixedRows) return 0;
    return inner;
  }

  // The compiled kernel of `k`: from the memo by its signature, else printed
  // and fetched from the kernel cache (memory, disk, or the compiler).
  // `parallel`: with its OpenMP parallel regions, else printed without them
  // (CDialect::serial): a kernel launched at both sizes is compiled twice,
  // one launched at one size (nearly all) once. `inner` > 0: for that
  // innermost extent only (CDialect::inner_extent).
  // `work`: the launch's (tiered: a block too big to interpret waits for its kernel).
  KernelFn kernel_for(const codegen::LoopKernel& k, bool parallel, int64_t inner, int64_t work = 0) {
    std::string signature;
    {
      ScopedTimer t(&profile().codegen_s);
      signature = k.signature();
      signature += parallel ? 'p' : 's';
      if (inner > 0) signature += std::to_string(inner);
      if (!vector_functions_.empty()) signature += 'v';
    }
    if (memoize_) {
      auto it = memo_.find(signature);
      if (it != memo_.end()) {
        ++memo_hits_;
        ++profile().kernel_cache_hits;
        return it->second;
      }
    }
    if (queue_ && failed_.count(signature) != 0) return nullptr;
    if (queue_ && pending_.count(signature) != 0)
      return pending(signature, queue_->poll(signature, "", ""), k, parallel, inner, work);
    const std::string name = "arrvm_kernel";
    std::string source;
    {
      ScopedSpan t(profile(), &profile().codegen_s, "codegen");
      codegen::CDialect dialect;
      dialect.chunked_random = true;  // loop_schedule keeps random's loops off omp simd
      dialect.serial = !parallel;
      dialect.inner_extent = inner;
      dialect.vector_functions = vector_functions_;
      source = codegen::CPrinter(dialect).print(k, name);
    }
    const KernelCacheStats before = cache_.stats();
    void* fn = nullptr;
    if (queue_) {  // tiered: found in memory or on disk now, else compiled by a worker
      {
        ScopedSpan t(profile(), &profile().compile_s, "compile");
        fn = cache_.find(source, name);
      }
      account(before);
      if (fn != nullptr) {
        memo_.emplace(std::move(signature), reinterpret_cast<KernelFn>(fn));
        return reinterpret_cast<KernelFn>(fn);
      }
      pending_[signature] = source.find("omp declare simd") != std::string::npos;
      return pending(signature, queue_->poll(signature, source, name), k, parallel, inner, work);
    }
    const auto start = std::chrono::steady_clock::now();
    try {
      ScopedSpan t(profile(), &profile().compile_s, "compile");
      fn = cache_.get(source, name);
    } catch (const BackendError& e) {
      account(before);
      // A compiler or C library that refuses the vector declarations (a
      // compiler without OpenMP's declare simd, a libm without libmvec's
      // link script): this backend calls scalar libm from now on.
      if (vector_functions_.empty() || source.find("omp declare simd") == std::string::npos) throw;
      const std::string what = e.what();
      logger().warn(
          "cpu: a kernel with vector math calls did not compile ({}); scalar libm calls from now on",
          what.substr(0, what.find('\n')));
      vector_functions_.clear();
      return kernel_for(k, parallel, inner);
    } catch (...) {
      account(before);
      throw;
    }
    account(before);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (cache_.stats().compiled > before.compiled) {
      log_compile("cpu", cache_.stats().compiled - before.compiled, seconds, profile().compile_s, cache_dir_);
    } else {
      logger().debug("cpu: kernel loaded from the {} cache in {:.4f} s",
                     cache_.stats().disk_hits > before.disk_hits ? "disk" : "memory", seconds);
    }
    if (memoize_) memo_.emplace(std::move(signature), reinterpret_cast<KernelFn>(fn));
    return reinterpret_cast<KernelFn>(fn);
  }

  // A kernel on the compile queue: its state taken (take) if done; else
  // nullptr (the block runs interpreted) unless interpreting costs more
  // than waiting: a launch of more than kInterpretWork element-statements
  // (ref's loops run ~1-3 ns each: a matmul's 10^9 would take seconds), or
  // a kernel whose blocks have run interpreted for kInterpretSeconds in all
  // (as in ski rental: after paying about a compile's time, buy it). Then
  // it waits for the compile.
  KernelFn pending(const std::string& signature, const CompileQueue::State& st, const codegen::LoopKernel& k,
                   bool parallel, int64_t inner, int64_t work) {
    last_pending_.clear();
    if (st.done) return take(signature, st, k, parallel, inner);
    const auto it = interpreted_s_.find(signature);
    if (work > kInterpretWork || (it != interpreted_s_.end() && it->second > kInterpretSeconds)) {
      ScopedSpan t(profile(), &profile().compile_s, "compile wait");
      CompileQueue::State done = queue_->wait(signature, 0.05);
      while (!done.done && !queue_->stopped()) {
        check_interrupt();  // (Ctrl-C while waiting, as while a compiler runs)
        done = queue_->wait(signature, 0.05);
      }
      return take(signature, done, k, parallel, inner);
    }
    last_pending_ = signature;
    return nullptr;
  }

  // What a poll of the compile queue gives for `signature`: the kernel once
  // compiled (memoized, counted, logged), else nullptr (still compiling, or
  // failed: then interpreted from now on, with a warning naming the error;
  // a compiler that refuses the vector math declarations is retried
  // without them, as kernel_for does).
  KernelFn take(const std::string& signature, const CompileQueue::State& st, const codegen::LoopKernel& k,
                bool parallel, int64_t inner) {
    if (!st.done) return nullptr;
    const bool vector_declarations = pending_[signature];
    pending_.erase(signature);
    Profile& p = profile();
    p.compile_background_s += st.seconds;
    if (st.compiled && st.fn != nullptr) {
      ++p.kernels_compiled;
      ++p.kernel_cache_misses;
      compiled_s_ += st.seconds;
      log_compile("cpu", 1, st.seconds, compiled_s_, cache_dir_);
    } else if (st.fn != nullptr) {
      ++p.kernel_cache_hits;
      ++p.kernel_cache_disk_hits;
    }
    if (st.fn != nullptr) {
      memo_.emplace(signature, reinterpret_cast<KernelFn>(st.fn));
      return reinterpret_cast<KernelFn>(st.fn);
    }
    failed_.insert(signature);
    std::string what = "unknown error";
    try {
      std::rethrow_exception(st.error);
    } catch (const std::exception& e) {
      what = e.what();
    }
    if (!vector_functions_.empty() && vector_declarations) {
      logger().warn(
          "cpu: a kernel with vector math calls did not compile ({}); scalar libm calls from now on",
          what.substr(0, what.find('\n')));
      vector_functions_.clear();
      return kernel_for(k, parallel, inner);
    }
    logger().warn("cpu: a kernel did not compile ({}); its blocks run interpreted (ARRVM_TIERED)",
                  what.substr(0, what.find('\n')));
    return nullptr;
  }

  // Adds what one kernel-cache lookup did to the profile.
  void account(const KernelCacheStats& before) {
    const KernelCacheStats& after = cache_.stats();
    Profile& p = profile();
    p.kernels_compiled += after.compiled - before.compiled;
    p.kernel_cache_hits += (after.memory_hits - before.memory_hits) + (after.disk_hits - before.disk_hits);
    p.kernel_cache_disk_hits += after.disk_hits - before.disk_hits;
    p.kernel_cache_misses += after.misses - before.misses;
  }

  HostMemory memory_;
  Threads threads_;  // (before cache_: sets libgomp's spin count before a kernel loads it)
  KernelCache cache_;
  // Tiered (ARRVM_TIERED): the compile threads, the kernels they compile
  // (by signature), those that failed (interpreted for good), and the
  // seconds they compiled.
  std::unique_ptr<CompileQueue> queue_;
  std::unordered_map<std::string, bool> pending_;  // -> its source declares vector math functions
  std::unordered_set<std::string> failed_;
  std::unordered_map<std::string, double>
      interpreted_s_;         // seconds each pending kernel's blocks ran interpreted
  std::string last_pending_;  // the kernel the block being interpreted waits for
  static constexpr int64_t kInterpretWork = int64_t{1} << 22;
  static constexpr double kInterpretSeconds = 0.2;
  double compiled_s_ = 0;
  bool memoize_;
  bool row_fusion_;                                 // ARRVM_ROW_FUSION
  std::vector<std::string> vector_functions_;       // ARRVM_VECTOR_MATH: CDialect::vector_functions
  std::vector<uint32_t> rows_;                      // scratch: blocks row-fused
  std::string cache_dir_;                           // where compiled kernels persist (empty: not on disk)
  std::unordered_map<std::string, KernelFn> memo_;  // signature -> function
  uint64_t memo_hits_ = 0;
  CpuBackendStats stats_;
  std::vector<void*> ptrs_;
  std::vector<int64_t> errors_, args_, counts_;
  // Kept lowerings by BlockKey hash (a collision replaces the entry) and by
  // partition structure id and block index; both cleared when either holds
  // kMaxLowered.
  std::unordered_map<uint64_t, std::pair<std::vector<uint64_t>, std::shared_ptr<Lowered>>> by_key_;
  std::unordered_map<uint64_t, std::vector<std::shared_ptr<Lowered>>> by_structure_;
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
