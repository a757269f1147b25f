#include "backends/cpu/cpu_kernels.hpp"

#include <limits>

#include <chrono>
#include <exception>
#include <utility>

#include "backends/c_printer.hpp"
#include "backends/cpu/vector_math.hpp"
#include "vm/error.hpp"
#include "vm/hash.hpp"
#include "vm/interrupt.hpp"
#include "vm/log.hpp"
#include "vm/timeline.hpp"

namespace arrvm {

CpuKernels::CpuKernels(const Config& config, int workers)
    : cache_(config),
      memoize_(config.cache != CacheMode::Off),
      vector_functions_(config.pass_on("vector-math") ? vector_math_functions() : std::vector<std::string>{}),
      cache_dir_(cache_.dir()) {
  if (config.tiered && memoize_) queue_ = std::make_unique<CompileQueue>(config, workers);
}

KernelFn CpuKernels::get(const codegen::LoopKernel& k, bool parallel, int64_t inner, int64_t work,
                         Profile& profile) {
  profile_ = &profile;
  last_pending_.clear();  // (set again only for a kernel still compiling)
  return kernel_for(k, parallel, inner, work);
}

bool CpuKernels::ready(const codegen::LoopKernel& k, bool parallel, int64_t inner, int64_t work,
                       Profile& profile) {
  if (!queue_) return true;
  profile_ = &profile;
  last_pending_.clear();
  const bool found = kernel_for(k, parallel, inner, kNeverWait) != nullptr;
  const bool compiling = !last_pending_.empty();  // (else: failed, interpreted for good)
  // A launch too large to interpret will wait for it (pending): first, alone.
  if (compiling && work > kInterpretWork)
    queue_->heat(last_pending_, std::numeric_limits<double>::infinity());
  last_pending_.clear();
  return found || !compiling;
}

KernelFn CpuKernels::other_form(KernelFn fn, bool parallel, const codegen::LoopKernel& k, int64_t inner,
                                Profile& profile) {
  if (!queue_) return nullptr;
  // (by `fn` and the form asked for: `fn` may be a parallel form that a
  // serial first ask fell back to, which other launches ask to pair both ways)
  Twin& t = twins_[reinterpret_cast<uintptr_t>(fn) * 2 + (parallel ? 1 : 0)];
  if (t.fn != nullptr || t.failed) return t.fn;
  ++t.launches;
  if (t.launches < kTwinAfter || (t.launches - kTwinAfter) % kTwinPoll != 0) return nullptr;
  profile_ = &profile;
  last_pending_.clear();
  t.fn = kernel_for(k, parallel, inner, kNeverWait, true);
  t.failed = t.fn == nullptr && last_pending_.empty();  // (not compiling: failed; `fn` runs on)
  last_pending_.clear();
  return t.fn;
}

void CpuKernels::interpreted(double seconds) {
  if (last_pending_.empty()) return;
  interpreted_s_[last_pending_] += seconds;
  queue_->heat(last_pending_, seconds);  // (compiled before kernels nobody waits on)
}

KernelCacheStats CpuKernels::stats() const {
  KernelCacheStats s = cache_.stats();
  if (queue_) {
    const KernelCacheStats q = queue_->stats();
    s.compiled += q.compiled;
    s.memory_hits += q.memory_hits;
    s.disk_hits += q.disk_hits;
    s.misses += q.misses;
    s.corrupt += q.corrupt;
  }
  s.memory_hits += memo_hits_;
  return s;
}

// The compiled kernel of `k`: from the memo by its signature, else printed
// and fetched from the kernel cache (memory, disk, or the compiler).
// `parallel`: with its OpenMP parallel regions, else printed without them
// (CDialect::serial), unless the parallel form is already there. `inner` > 0: for that
// innermost extent only (CDialect::inner_extent).
// `work`: the launch's (tiered: a block too big to interpret waits for its kernel).
KernelFn CpuKernels::kernel_for(const codegen::LoopKernel& k, bool parallel, int64_t inner, int64_t work,
                                bool exact) {
  std::string signature, suffix;
  {
    ScopedTimer t(&profile().codegen_s);
    signature = k.signature();
    // A kernel first launched over a long innermost extent keeps its
    // generic form when later launches are short (a rolled loop with its
    // lanes innermost, one fewer each step: one kernel, not a form per
    // count); one first launched short gets a form per short extent.
    const bool wide = inner < 0;
    inner = std::max<int64_t>(inner, 0);
    auto [first, fresh] = long_first_.emplace(signature, wide);
    if (first->second) inner = 0;
    if (inner > 0) suffix += std::to_string(inner);
    if (!vector_functions_.empty()) suffix += 'v';
  }
  const std::string parallel_form = signature + 'p' + suffix;
  signature += (parallel ? 'p' : 's') + suffix;
  if (memoize_) {
    auto it = memo_.find(signature);
    // A serial launch of a kernel whose parallel form is compiled (or
    // compiling) runs that form on one thread (its regions' if clauses):
    // a kernel launched on both sides of kParallelWork is compiled once
    // (a rolled loop whose lanes shrink below it, a triangular solve).
    if (it == memo_.end() && !parallel && !exact) it = memo_.find(parallel_form);
    if (it != memo_.end()) {
      ++memo_hits_;
      ++profile().kernel_cache_hits;
      return it->second;
    }
    if (!parallel && !exact && queue_ && pending_.count(parallel_form) != 0)
      return pending(parallel_form, queue_->poll(parallel_form, "", ""), k, true, inner, work);
  }
  if (queue_ && failed_.count(signature) != 0) return nullptr;
  if (queue_ && pending_.count(signature) != 0)
    return pending(signature, queue_->poll(signature, "", ""), k, parallel, inner, work);
  // Named after its signature, its helpers guarded: kernels compiled as one
  // translation unit (KernelCache::get_all) keep apart.
  const std::string name = "arrvm_k_" + sha256_hex(signature).substr(0, 16);
  std::string source;
  {
    ScopedSpan t(profile(), &profile().codegen_s, "codegen");
    codegen::CDialect dialect;
    dialect.guard_helpers = true;
    dialect.chunked_random = true;  // loop_schedule keeps random's loops off omp simd
    dialect.serial = !parallel;
    dialect.inner_extent = inner;
    dialect.vector_functions = vector_functions_;
    source = codegen::CPrinter(dialect).print(k, name);
  }
  // The vector-math pass fired: this kernel calls libmvec's variants.
  if (!vector_functions_.empty() && source.find("omp declare simd") != std::string::npos) {
    profile().count_pass("vector-math", 1);
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
    logger().warn("cpu: a kernel with vector math calls did not compile ({}); scalar libm calls from now on",
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
// (ref's loops run ~1-3 ns each: 2^27 of them take about what a compile
// takes; a matmul's 10^9 would take seconds), or
// a kernel whose blocks have run interpreted for kInterpretSeconds in all
// (as in ski rental: after paying about a compile's time, buy it). Then
// it waits for the compile.
KernelFn CpuKernels::pending(const std::string& signature, const CompileQueue::State& st,
                             const codegen::LoopKernel& k, bool parallel, int64_t inner, int64_t work) {
  last_pending_.clear();
  if (st.done) return take(signature, st, k, parallel, inner);
  const auto it = interpreted_s_.find(signature);
  if (work != kNeverWait &&
      (work > kInterpretWork || (it != interpreted_s_.end() && it->second > kInterpretSeconds))) {
    ScopedSpan t(profile(), &profile().compile_s, "compile wait");
    queue_->heat(signature, std::numeric_limits<double>::infinity());  // (compiled next: the program waits)
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
KernelFn CpuKernels::take(const std::string& signature, const CompileQueue::State& st,
                          const codegen::LoopKernel& k, bool parallel, int64_t inner) {
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
    logger().warn("cpu: a kernel with vector math calls did not compile ({}); scalar libm calls from now on",
                  what.substr(0, what.find('\n')));
    vector_functions_.clear();
    return kernel_for(k, parallel, inner);
  }
  logger().warn("cpu: a kernel did not compile ({}); its blocks run interpreted (ARRVM_TIERED)",
                what.substr(0, what.find('\n')));
  return nullptr;
}

// Adds what one kernel-cache lookup did to the profile.
void CpuKernels::account(const KernelCacheStats& before) {
  const KernelCacheStats& after = cache_.stats();
  Profile& p = profile();
  p.kernels_compiled += after.compiled - before.compiled;
  p.kernel_cache_hits += (after.memory_hits - before.memory_hits) + (after.disk_hits - before.disk_hits);
  p.kernel_cache_disk_hits += after.disk_hits - before.disk_hits;
  p.kernel_cache_misses += after.misses - before.misses;
}

}  // namespace arrvm
