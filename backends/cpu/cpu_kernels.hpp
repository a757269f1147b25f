// The cpu backend's compiled kernels: by signature from a memo, else
// printed as C and fetched from the kernel cache (memory, disk, or the C
// compiler), or, tiered (ARRVM_TIERED), from the compile queue's workers
// while the caller runs the block interpreted (backends/cpu/compile_queue.hpp).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "backends/cpu/compile_queue.hpp"
#include "backends/loop_ir.hpp"
#include "cache/kernel_cache.hpp"
#include "vm/config.hpp"
#include "vm/profile.hpp"

namespace arrvm {

using KernelFn = void (*)(void**, const int64_t*, const uint64_t*);

class CpuKernels {
 public:
  // `workers`: the compile threads when tiered.
  CpuKernels(const Config& config, int workers);

  // The compiled kernel of `k`. `parallel`: with its OpenMP parallel
  // regions, else printed without them (CDialect::serial): a kernel
  // launched at both sizes is compiled twice, one launched at one size
  // (nearly all) once. `inner` > 0: for that innermost extent only
  // (CDialect::inner_extent), unless the kernel's first launch was over an
  // innermost extent too long for a form (`inner` < 0): then always the
  // generic form. `work`: the launch's element-statements.
  // Tiered: nullptr while the kernel compiles (or after it failed to): the
  // caller runs the block interpreted and reports the time (interpreted).
  // Counts go to `profile`.
  KernelFn get(const codegen::LoopKernel& k, bool parallel, int64_t inner, int64_t work, Profile& profile);

  // Tiered: whether `k` is compiled (or failed to compile) now, as get()
  // would find it; if not, its compile is queued (never waited for).
  // Untiered: true (get() compiles it).
  // `work`: its launch's element-statements (one too large to interpret
  // is queued infinitely hot, as a launch that waits makes it).
  bool ready(const codegen::LoopKernel& k, bool parallel, int64_t inner, int64_t work, Profile& profile);

  // The other form of `fn`, a form of `k`: with its parallel regions when
  // `parallel`, else without (CDialect::serial). A kernel is compiled
  // first in the form its size suggests (CpuBackend::first_form); a launch
  // that wants the other one (a team for a kernel first compiled serial,
  // one thread for a parallel one: a region entered on one thread still
  // costs libgomp's team start and end, a futex wake, a hypervisor exit on
  // a paravirtualized host) asks here, and runs `fn` until it is there.
  // Tiered, the other form is looked for (memory, disk) at the
  // kTwinAfter-th launch that wants it and queued if not found, then
  // looked for every kTwinPoll such launches; so a machine that never
  // wants a team (loaded, or one core) never compiles a parallel form of a
  // kernel first compiled serial. Untiered, never (get() would compile in
  // the foreground): nullptr.
  KernelFn other_form(KernelFn fn, bool parallel, const codegen::LoopKernel& k, int64_t inner,
                      Profile& profile);

  // The seconds the block that get() last returned nullptr for ran interpreted.
  void interpreted(double seconds);

  // A launch that reused its block's kernel without get().
  void memo_hit(Profile& profile) {
    ++memo_hits_;
    ++profile.kernel_cache_hits;
  }

  // The kernel caches' counters (the queue's workers' included) and the memo's hits.
  KernelCacheStats stats() const;
  // Whether kernels compile in the background (ARRVM_TIERED) while their blocks run interpreted.
  bool tiered() const { return queue_ != nullptr; }
  // (tiered) The queue, for a CompileQueue::Burst.
  CompileQueue* queue() { return queue_.get(); }

 private:
  // `exact`: the form asked for, never the parallel form for a serial ask.
  KernelFn kernel_for(const codegen::LoopKernel& k, bool parallel, int64_t inner, int64_t work = 0,
                      bool exact = false);
  KernelFn pending(const std::string& signature, const CompileQueue::State& st, const codegen::LoopKernel& k,
                   bool parallel, int64_t inner, int64_t work);
  KernelFn take(const std::string& signature, const CompileQueue::State& st, const codegen::LoopKernel& k,
                bool parallel, int64_t inner);
  void account(const KernelCacheStats& before);
  Profile& profile() { return *profile_; }

  static constexpr int64_t kInterpretWork = int64_t{1} << 27;
  static constexpr int64_t kNeverWait = -1;  // a `work` for which pending() does not wait
  static constexpr double kInterpretSeconds = 0.2;
  static constexpr int kTwinAfter = 5;
  static constexpr int kTwinPoll = 16;

  struct Twin {
    int launches = 0;
    KernelFn fn = nullptr;
    bool failed = false;
  };

  KernelCache cache_;
  bool memoize_;
  std::vector<std::string> vector_functions_;         // the vector-math pass: CDialect::vector_functions
  std::string cache_dir_;                             // where compiled kernels persist (empty: not on disk)
  std::unordered_map<std::string, KernelFn> memo_;    // signature -> function
  std::unordered_map<std::string, bool> long_first_;  // kernel -> first launched over a long innermost extent
  uint64_t memo_hits_ = 0;
  Profile* profile_ = nullptr;  // get()'s
  // Tiered (ARRVM_TIERED): the compile threads, the kernels they compile
  // (by signature), those that failed (interpreted for good), the seconds
  // each pending kernel's blocks ran interpreted, and the seconds compiled.
  std::unique_ptr<CompileQueue> queue_;
  std::unordered_map<std::string, bool> pending_;  // -> its source declares vector math functions
  std::unordered_set<std::string> failed_;
  std::unordered_map<uintptr_t, Twin> twins_;  // by the form compiled first and the form asked for
  std::unordered_map<std::string, double> interpreted_s_;
  std::string last_pending_;  // the kernel the block being interpreted waits for
  double compiled_s_ = 0;
};

}  // namespace arrvm
