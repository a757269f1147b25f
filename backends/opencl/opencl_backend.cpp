#include "backends/opencl/opencl_backend.hpp"

#include <algorithm>
#include <climits>
#include <cstring>
#include <limits>
#include <mutex>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "backends/c_emitter.hpp"
#include "backends/loop_ir.hpp"
#include "backends/opencl/device_memory.hpp"
#include "backends/opencl/launcher.hpp"
#include "backends/opencl/opencl_dialect.hpp"
#include "backends/opencl/opencl_printer.hpp"
#include "backends/opencl/opencl_runtime.hpp"
#include "cache/kernel_cache.hpp"
#include "vm/error.hpp"
#include "vm/hash.hpp"
#include "vm/interrupt.hpp"
#include "vm/row_nest.hpp"
#include "vm/timeline.hpp"

namespace arrvm {

namespace {

using opencl::check;
using opencl::Mem;

// 1-D scans at least this long run in parallel chunks of at least
// kScanChunkMin elements; shorter ones on one work item, in ref's order.
constexpr int64_t kParallelScanLength = 1 << 16;
constexpr int64_t kScanChunkMin = 16;

class OpenClBackend final : public Backend {
 public:
  explicit OpenClBackend(const Config& config)
      : device_(opencl::select_device(config.opencl_device)),
        printer_(device_.fp64, device_.gpu, static_cast<int>(opencl::Launcher::group_size(device_))),
        reuse_(config.cache != CacheMode::Off),
        row_fusion_(config.pass_on("row-fusion")) {
    cl_int err = CL_SUCCESS;
    // One VM at a time creates its context (as discovery, opencl::list_devices,
    // happens once): some drivers' first context initializes shared state.
    static std::mutex creating;
    std::unique_lock<std::mutex> lock(creating);
    context_ = opencl::Context(clCreateContext(nullptr, 1, &device_.device, nullptr, nullptr, &err));
    check(err, "clCreateContext(" + device_.name + ")");
    queue_ = opencl::Queue(clCreateCommandQueue(context_.get(), device_.device, 0, &err));
    check(err, "clCreateCommandQueue(" + device_.name + ")");
    lock.unlock();
    dialect_ = opencl::dialect(device_.fp64);
    programs_ = std::make_unique<opencl::ProgramCache>(
        config, context_.get(), device_, opencl::build_options(device_.correctly_rounded_fp32_div));
    memory_.attach(context_.get(), queue_.get(), device_.name, [this]() -> Profile& { return profile(); });
    launcher_.attach(device_, queue_.get(), &memory_);
  }

  ~OpenClBackend() override {
    if (queue_) clFinish(queue_.get());
  }

  std::string name() const override { return "opencl"; }
  bool compiles_kernels() const override { return true; }

  void declare(BaseId id, DType dtype, int64_t nelem) override { memory_.declare(id, dtype, nelem); }

  void copy_from_host(BaseId id, const void* src) override { memory_.write_all(id, src); }
  void copy_to_host(BaseId id, void* dst) override { memory_.read_all(id, dst); }

  void release(BaseId id) override { memory_.release(id); }

  // Row nests and row programs (vm/row_nest.hpp): one work item a row.
  FusionRules fusion_rules() const override { return {.row_nests = row_fusion_}; }

  bool can_rename() const override { return true; }
  void rename(BaseId from, BaseId to) override { memory_.rename(from, to); }

  // The pipeline of a batch: plan (each block is one kernel: lowered by
  // codegen::lower and printed by OpenClPrinter; a block that is a single
  // full reduction or a single 1-D scan is scheduled as a work-group tree or
  // in chunks, launched in passes), build the kernels not built yet as one
  // program, launch. Nothing runs on the host.
  void execute(std::span<const Instruction> batch, const Partition& partition) override {
    progress_ = {};
    std::vector<Step> plan = plan_batch(batch, partition);
    std::vector<std::string> sources;
    for (const Step& st : plan) {
      for (const Kernel& k : st.kernels) sources.push_back(k.source);
    }
    programs_->prepare(sources, profile());
    // Index checks are synchronous, so a failing step has no later step in
    // flight: the blocks before its block are complete, none after it ran.
    for (Step& st : plan) {
      progress_.done = st.block_index;
      check_interrupt();
      block_instructions_ = partition.blocks[st.block_index].size();
      run(batch, st);
    }
    progress_.done = partition.blocks.size();
    // Wait for the device: its errors belong to this batch, and the
    // profile's execution time is the kernels' own.
    check(clFinish(queue_.get()), "running the batch's kernels (clFinish)");
  }

  BackendStats stats() const override {
    return {"opencl",
            {{"programs_built", programs_->stats().built},
             {"sources_built", programs_->stats().sources_built},
             {"program_cache_memory_hits", programs_->stats().memory_hits},
             {"program_cache_disk_hits", programs_->stats().disk_hits},
             {"program_cache_corrupt", programs_->stats().corrupt},
             {"kernels_launched", launcher_.launched()},
             {"sequential_launches", launcher_.sequential()},
             {"lowerings_reused", lowerings_reused_}},
            {{"device", device_.name}}};
  }

 private:
  using Buffer = opencl::DeviceMemory::Buffer;

  // What a reduction accumulates in here: accumulator_dtype, but a float32
  // sum stays float32 on a device without float64.
  DType acc_type(Opcode op, DType t) const {
    const DType a = accumulator_dtype(op, t);
    return (a == DType::Float64 || a == DType::Complex128) && !device_.fp64 ? t : a;
  }

  // Float64 needs cl_khr_fp64; every other dtype is core OpenCL C.
  void require(DType t, const std::string& what) const {
    if ((t == DType::Float64 || t == DType::Complex128) && !device_.fp64) {
      throw Error("opencl backend: device " + device_.name + " does not support " +
                  std::string(dtype_name(t)) + " (no cl_khr_fp64), needed by " + what);
    }
  }

  using Geometry = opencl::Launcher::Geometry;
  Geometry geometry(cl_kernel kernel, int64_t total, bool sequential, std::size_t groups = 0,
                    int64_t work = -1) {
    return launcher_.geometry(kernel, total, sequential, groups, work);
  }
  void launch(cl_kernel kernel, std::span<const cl_mem> mems, const std::vector<int64_t>& a,
              const std::vector<uint64_t>& c, Geometry g, int64_t total, bool sequential) {
    launcher_.launch(kernel, mems, a, c, g, total, sequential, profile(),
                     static_cast<int64_t>(progress_.done), static_cast<int64_t>(block_instructions_));
  }

  // A kernel of a step: its source and name.
  struct Kernel {
    std::string source, name;
  };

  // What one block does, planned before anything runs.
  struct Step {
    enum class Kind { Loop, Tree, Scan, Fail, Release } kind = Kind::Release;
    codegen::LoweredBlock lowered;  // Loop
    std::vector<BaseId> frees;      // Release: the block's frees, after its kernel
    std::string error;              // Fail: ref's Error, raised when the block's turn comes
    std::vector<Kernel> kernels;    // Loop: 1 (+1 per ParallelSweep reduction); Tree: 1 or 3; Scan: 3
    std::size_t block_index = 0;    // the partition block it belongs to
    std::vector<uint32_t> block;    // Loop with compresses: its instructions (check_empty_classes)
    BaseId klass = -1;              // Loop: a length class whose compress ran before: the loop's length (1-D)
  };

  // A reduction alone (GroupTree): [0] input to output in one group, and
  // with several groups [1] input to partials, [2] partials to output; one
  // kernel does all three when the types agree and the input, like the
  // partials, has unit stride.
  void tree_kernels(Step* st) const {
    const codegen::LoopKernel& k = st->lowered.kernel;
    const codegen::Stmt& red = k.body[0];
    const DType in = k.views[red.in[0].index], acc = k.accs[red.acc], out = k.views[red.out.index];
    const bool unit = !k.inner.empty() && k.inner[red.in[0].index] == codegen::kUnitInner;
    auto add = [&](const codegen::LoopKernel& pass) {
      const std::string name = "arrvm_k_" + sha256_hex(pass.signature()).substr(0, 16);
      st->kernels.push_back({printer_.print(pass, name), name});
    };
    add(k);
    if (acc == in && acc == out && unit) return;
    add(opencl::partials_pass(k, acc));
    add(opencl::combine_pass(k, acc));
  }

  std::vector<Step> plan_batch(std::span<const Instruction> batch, const Partition& partition) {
    ScopedSpan t(profile(), &profile().codegen_s, "codegen");
    std::vector<Step> plan;
    for (std::size_t bi = 0; bi < partition.blocks.size(); ++bi) {
      const Block& block = partition.blocks[bi];
      for (uint32_t i : block) ARRVM_ASSERT(i < batch.size());
      Step st;
      st.block_index = bi;
      // A row nest runs its rows first: the order its lowering, key and binding see (as on cpu).
      const bool nest = row_nest_order(batch, block, &nest_order_);
      if (nest) profile().count_pass("row-fusion", 1);
      const std::span<const uint32_t> order = nest ? std::span<const uint32_t>(nest_order_) : block;
      if (plan_block(batch, order, partition.structure, bi, &st)) {
        const std::vector<codegen::Stmt>& body = st.lowered.kernel.body;
        if (!body.empty() && body.back().segment > 0) profile().count_pass("row-fusion", 1);  // a row program
        if (!st.lowered.kept.empty() || st.klass >= 0) st.block.assign(order.begin(), order.end());
        plan.push_back(std::move(st));
      }
      Step release;
      release.block_index = bi;
      for (uint32_t i : block) {
        if (opcode_kind(batch[i].op) == OpKind::Free) release.frees.push_back(batch[i].out.base);
      }
      if (!release.frees.empty()) plan.push_back(std::move(release));
    }
    return plan;
  }

  // Plans the kernel of a block; false if it has none (frees and syncs, or
  // nothing to iterate over).
  bool plan_block(std::span<const Instruction> batch, std::span<const uint32_t> block, uint64_t structure,
                  std::size_t index, Step* st) {
    if (!codegen::has_work(batch, block)) return false;
    batch = resolve_classes(batch, block, &st->klass);
    try {
      codegen::check_empty_axes(batch, block);
    } catch (const Error& e) {
      st->kind = Step::Kind::Fail;
      st->error = e.what();
      return true;
    }
    st->kind = Step::Kind::Loop;
    // A block of a structure lowered before (the cpu backend's reuse,
    // docs/architecture.md): its lowering re-bound, its kernels as printed.
    std::vector<std::shared_ptr<KeptLoop>>* by_index = nullptr;
    if (reuse_ && structure != 0) {
      by_index = &kept_[structure];
      if (index < by_index->size() && (*by_index)[index]) {
        const KeptLoop& kept = *(*by_index)[index];
        st->lowered = kept.lowered;
        if (codegen::rebind(&st->lowered, kept.binding, batch, block)) {
          st->kernels = kept.kernels;
          st->kind = kind_of(st->lowered.kernel);
          ++lowerings_reused_;
          return true;
        }
        // Its constants share slots differently: lowered anew below (and kept instead).
      }
    }
    st->lowered = codegen::lower(batch, block, codegen::Target::OpenCl);
    for (const codegen::Stmt& x : st->lowered.kernel.body) {
      if (x.acc >= 0) st->lowered.kernel.accs[x.acc] = acc_type(x.op, x.in[0].dtype);
    }
    const codegen::LoopKernel& k = st->lowered.kernel;
    for (DType t : k.views) require(t, "a kernel's array");
    for (DType t : k.temps) require(t, "a kernel's temporary");
    for (DType t : k.consts) require(t, "a kernel's constant");
    for (DType t : k.accs) require(t, "a kernel's accumulator");
    for (const codegen::IndexedSlot& x : k.indexed) require(x.dtype, "a kernel's indexed array");
    st->kind = kind_of(k);
    if (st->kind == Step::Kind::Tree) {
      tree_kernels(st);
    } else if (st->kind == Step::Kind::Scan) {
      const std::string name = "arrvm_k_" + sha256_hex(k.signature()).substr(0, 16);
      const std::string source = printer_.print(k, name);
      for (const char* part : {"_totals", "_prefix", "_apply"}) st->kernels.push_back({source, name + part});
    } else {
      // Named after its structure: kernels of one batch share a program.
      const std::string name = "arrvm_k_" + sha256_hex(k.signature()).substr(0, 16);
      st->kernels.push_back({printer_.print(k, name), name});
    }
    // A full reduction's second pass: a tree over each reduction's partials.
    for (int s : opencl::partial_reductions(k)) {
      const DType acc = k.accs[k.body[s].acc];
      const codegen::LoopKernel tree =
          opencl::tree_kernel(k.body[s].op, acc, acc, k.views[k.body[s].out.index]);
      const std::string name = "arrvm_k_" + sha256_hex(tree.signature()).substr(0, 16);
      st->kernels.push_back({printer_.print(tree, name), name});
    }
    if (by_index != nullptr) {
      if (kept_.size() >= kMaxKept) {
        kept_.clear();
        by_index = &kept_[structure];
      }
      auto kept = std::make_shared<KeptLoop>();
      kept->lowered = st->lowered;
      kept->binding = codegen::binding_of(st->lowered, batch, block);
      kept->kernels = st->kernels;
      if (by_index->size() <= index) by_index->resize(index + 1);
      (*by_index)[index] = std::move(kept);
    }
    return true;
  }

  // How the backend runs a lowered kernel (its schedule's loop kind).
  static Step::Kind kind_of(const codegen::LoopKernel& k) {
    if (k.loops.size() != 1) return Step::Kind::Loop;
    if (k.loops[0].kind == codegen::LoopKind::GroupTree) return Step::Kind::Tree;
    if (k.loops[0].kind == codegen::LoopKind::ChunkedScan) return Step::Kind::Scan;
    return Step::Kind::Loop;
  }

  // A Loop step kept by partition structure id and block index.
  struct KeptLoop {
    codegen::LoweredBlock lowered;
    codegen::Binding binding;
    std::vector<Kernel> kernels;
  };
  static constexpr std::size_t kMaxKept = 4096;

  cl_kernel kernel(const Kernel& k) { return programs_->get(k.source, k.name, profile()); }

  void run(std::span<const Instruction> batch, Step& st) {
    switch (st.kind) {
      case Step::Kind::Loop:
        return run_loop(batch, st);
      case Step::Kind::Tree:
        return run_tree(batch, st);
      case Step::Kind::Scan:
        return run_scan(batch, st);
      case Step::Kind::Fail:
        throw Error(st.error);
      case Step::Kind::Release:
        for (BaseId b : st.frees) release(b);
        return;
    }
  }

  // A block as one kernel: the work items share the loops that are not the
  // sweep; one work item when the order matters (a scatter: with duplicate
  // indices the last write wins; a written view that is not injective).
  void run_loop(std::span<const Instruction> batch, Step& st) {
    codegen::LoweredBlock& b = st.lowered;
    if (st.klass >= 0) {  // over the length its compress kept (planned with the nominal one)
      const auto it = lengths_.find(st.klass);
      if (it == lengths_.end()) throw InternalError("opencl backend: a length class before its compress ran");
      b.shape[0] = it->second;
      if (it->second == 0) check_empty_classes(batch, st.block);
    }
    if (!codegen::launches(b)) {  // nothing to do (ref writes nothing either)
      for (BaseId c : b.kept) lengths_[c] = 0;
      check_empty_classes(batch, st.block);
      return;
    }
    ++profile().kernels_launched;
    profile().arrays_contracted += b.contracted.size();
    const codegen::LoopKernel& k = b.kernel;
    std::vector<cl_mem> mems(b.views.size() + b.indexed.size() + (k.errors > 0 ? 1 : 0), nullptr);
    bool sequential = k.has(OpKind::Scatter) || k.counters > 0;
    // Written slots first, so a base written and read in one block is
    // allocated before its reads look for memory.
    for (std::size_t v = 0; v < b.views.size(); ++v) {
      if (!k.written[v]) continue;
      mems[v] = memory_.for_write(b.views[v].base);
      if (!b.exclusive[v] && !is_injective(b.views[v])) sequential = true;
    }
    for (std::size_t j = 0; j < b.indexed.size(); ++j) {
      if (k.indexed[j].written) mems[b.views.size() + j] = memory_.for_write(b.indexed[j].base);
    }
    for (std::size_t v = 0; v < b.views.size(); ++v) {
      if (!k.written[v]) mems[v] = memory_.for_read(b.views[v].base);
    }
    for (std::size_t j = 0; j < b.indexed.size(); ++j) {
      if (!k.indexed[j].written) mems[b.views.size() + j] = memory_.for_read(b.indexed[j].base);
    }
    // The work-item loop runs over the axes that are not the sweep, or over
    // the sweep of a full reduction (each work item then writes partials).
    const std::vector<int> partials = opencl::partial_reductions(k);
    const int64_t work = b.shape.product();
    int64_t total = partials.empty() ? 1 : work;  // else the WorkItems loops' axes (a nest: its rows)
    for (const codegen::Loop& l : k.loops) {
      if (partials.empty() && l.kind == codegen::LoopKind::WorkItems) total *= b.shape[l.axis];
    }
    cl_kernel kern = kernel(st.kernels[0]);
    const Geometry g = geometry(kern, total, sequential, 0, work);
    Mem errors;
    const std::size_t error_words = 2 * static_cast<std::size_t>(k.errors) * g.global;
    if (k.errors > 0) {
      errors = memory_.new_buffer(error_words * sizeof(int64_t), "index error records");
      const cl_long none = std::numeric_limits<cl_long>::max();
      check(clEnqueueFillBuffer(queue_.get(), errors.get(), &none, sizeof none, 0,
                                error_words * sizeof(int64_t), 0, nullptr, nullptr),
            "clEnqueueFillBuffer(index error records)");
      mems.back() = errors.get();
    }
    Mem counts;  // per compress: the elements kept (the kernel's K)
    if (k.counters > 0) {
      counts = memory_.new_buffer(static_cast<std::size_t>(k.counters) * sizeof(int64_t), "compress counts");
      mems.push_back(counts.get());
    }
    std::vector<Mem> partial_mems;
    for (int s : partials) {
      partial_mems.push_back(
          memory_.new_buffer(g.global * dtype_size(k.accs[k.body[s].acc]), "reduction partials"));
      mems.push_back(partial_mems.back().get());
    }
    launch(kern, mems, codegen::pack_args(b, !sequential), b.consts, g, total, sequential);
    // Index errors are thrown once the block's other work is done (its
    // counts and reductions), which InstructionsFailed promises.
    std::exception_ptr failed;
    if (k.errors > 0) {
      try {
        check_errors(batch, b, errors.get(), g.global);
      } catch (const InstructionsFailed&) {
        failed = std::current_exception();
      }
    }
    if (k.counters > 0) {  // the next blocks need the lengths: one wait
      std::vector<int64_t> kept(static_cast<std::size_t>(k.counters));
      check(clEnqueueReadBuffer(queue_.get(), counts.get(), CL_TRUE, 0, kept.size() * sizeof(int64_t),
                                kept.data(), 0, nullptr, nullptr),
            "reading the compress counts");
      for (int c = 0; c < k.counters; ++c) lengths_[b.kept[c]] = kept[c];
      check_empty_classes(batch, st.block);
    }
    for (std::size_t r = 0; r < partials.size(); ++r) {
      const codegen::Stmt& red = k.body[partials[r]];
      cl_kernel tree = kernel(st.kernels[1 + r]);
      const int64_t n = static_cast<int64_t>(g.global);
      const cl_mem pass[2] = {mems[red.out.index], partial_mems[r].get()};
      launch(tree, pass, {n, 0, b.views[red.out.index].offset, 0, 0, 1}, {}, geometry(tree, n, false, 1), n,
             false);
    }
    if (failed) std::rethrow_exception(failed);
  }

  // Throws InstructionsFailed with ref's Error for each error slot with a bad
  // index: per slot the smallest flat position over all work items, and its index.
  void check_errors(std::span<const Instruction> batch, const codegen::LoweredBlock& b, cl_mem errors,
                    std::size_t items) {
    const int n = b.kernel.errors;
    std::vector<int64_t> words(2 * static_cast<std::size_t>(n) * items);
    check(clEnqueueReadBuffer(queue_.get(), errors, CL_TRUE, 0, words.size() * sizeof(int64_t), words.data(),
                              0, nullptr, nullptr),
          "reading the index error records");
    // The kernel ran to its end: every failed slot is reported, the rest of
    // the block is computed (vm/error.hpp, InstructionsFailed).
    std::vector<std::pair<uint32_t, int64_t>> bad;
    for (int e = 0; e < n; ++e) {
      int64_t pos = std::numeric_limits<int64_t>::max(), value = 0;
      for (std::size_t w = 0; w < items; ++w) {
        const std::size_t at = 2 * (w * n + e);
        if (words[at] < pos) {
          pos = words[at];
          value = words[at + 1];
        }
      }
      if (pos != std::numeric_limits<int64_t>::max()) bad.emplace_back(b.error_instr[e], value);
    }
    throw_index_failures(batch, bad);
  }

  // A reduction alone (GroupTree): one partial per work-group, then (if
  // there are several) one group over the partials. Each work item starts
  // from the reduction's start value, which no combine changes (-0.0 for a
  // float sum, +-infinity for a float min/max, NaN still propagating), so an
  // item or group with no elements adds nothing; an empty input gives ref's
  // identity (a min/max of nothing is ref's error before this runs).
  void run_tree(std::span<const Instruction> batch, Step& st) {
    const codegen::LoweredBlock& b = st.lowered;
    const codegen::Stmt& red = b.kernel.body[0];
    const int o = red.out.index, i = red.in[0].index;
    int64_t len = b.shape[0];
    if (st.klass >= 0) {  // over the length its compress kept
      const auto it = lengths_.find(st.klass);
      if (it == lengths_.end()) throw InternalError("opencl backend: a length class before its compress ran");
      len = it->second;
      if (len == 0) check_empty_classes(batch, st.block);  // (a minimum of nothing: ref's error)
    }
    ++profile().kernels_launched;
    cl_mem mems[2];
    mems[o] = memory_.for_write(b.views[o].base);
    mems[i] = memory_.for_read(b.views[i].base);
    // The launch arguments (loop_ir.hpp's layout for rank 1: n0, threads,
    // then per view slot its offset and stride).
    auto args = [&](int64_t n, int64_t out_offset, int64_t out_stride, int64_t in_offset, int64_t in_stride) {
      std::vector<int64_t> a(6);
      a[0] = n;
      a[codegen::view_arg_index(1, o)] = out_offset;
      a[codegen::view_arg_index(1, o) + 1] = out_stride;
      a[codegen::view_arg_index(1, i)] = in_offset;
      a[codegen::view_arg_index(1, i) + 1] = in_stride;
      return a;
    };
    const View& out = b.views[o];
    const View& in = b.views[i];
    const std::size_t last = st.kernels.size() - 1;  // (one kernel when the types agree)
    const std::size_t groups = std::clamp<std::size_t>(
        (static_cast<std::size_t>(len) + launcher_.local_size() - 1) / launcher_.local_size(), 1,
        launcher_.max_groups());
    if (groups == 1) {
      cl_kernel k = kernel(st.kernels[0]);
      launch(k, mems, args(len, out.offset, 0, in.offset, in.stride[0]), {}, geometry(k, len, false, 1), len,
             false);
      return;
    }
    Mem partials = memory_.new_buffer(groups * dtype_size(b.kernel.accs[red.acc]), "reduction partials");
    cl_kernel k = kernel(st.kernels[std::min<std::size_t>(1, last)]);
    cl_mem first[2];
    first[o] = partials.get();
    first[i] = mems[i];
    launch(k, first, args(len, 0, 1, in.offset, in.stride[0]), {}, geometry(k, len, false, groups), len,
           false);
    k = kernel(st.kernels[last]);
    cl_mem second[2];
    second[o] = mems[o];
    second[i] = partials.get();
    const int64_t n = static_cast<int64_t>(groups);
    launch(k, second, args(n, out.offset, 0, 0, 1), {}, geometry(k, n, false, 1), n, false);
  }

  // A 1-D scan alone (ChunkedScan): its chunks' totals, exclusive prefixes
  // of those (one work-group), each chunk rescanned from its prefix; the
  // combining order differs from ref's (floats: within rounding, like a
  // reduction). Shorter than kParallelScanLength: one chunk, the last
  // kernel alone, in ref's order.
  void run_scan(std::span<const Instruction> batch, Step& st) {
    const codegen::LoweredBlock& b = st.lowered;
    const codegen::Stmt& sc = b.kernel.body[0];
    const int o = sc.out.index, i = sc.in[0].index;
    int64_t len = b.shape[0];
    if (st.klass >= 0) {  // over the length its compress kept
      const auto it = lengths_.find(st.klass);
      if (it == lengths_.end()) throw InternalError("opencl backend: a length class before its compress ran");
      len = it->second;
      if (len == 0) check_empty_classes(batch, st.block);
    }
    if (len == 0) return;  // (ref writes nothing either)
    ++profile().kernels_launched;
    const int64_t items = static_cast<int64_t>(launcher_.max_groups() * launcher_.local_size());
    const int64_t chunk =
        len < kParallelScanLength ? len : std::max<int64_t>((len + items - 1) / items, kScanChunkMin);
    const int64_t chunks = (len + chunk - 1) / chunk;
    ARRVM_ASSERT(chunks >= 1);
    const std::size_t bytes = static_cast<std::size_t>(chunks) * dtype_size(b.kernel.accs[sc.acc]);
    Mem totals = memory_.new_buffer(bytes, "scan totals"),
        prefixes = memory_.new_buffer(bytes, "scan prefixes");
    std::vector<cl_mem> mems(4);
    mems[o] = memory_.for_write(b.views[o].base);
    mems[i] = memory_.for_read(b.views[i].base);
    mems[2] = totals.get();
    mems[3] = prefixes.get();
    std::vector<int64_t> a = codegen::pack_args(b, 0);
    a[0] = len;
    a.push_back(chunk);
    a.push_back(chunks);
    cl_kernel totals_k = kernel(st.kernels[0]), prefix_k = kernel(st.kernels[1]),
              apply_k = kernel(st.kernels[2]);
    if (chunks > 1) {
      launch(totals_k, mems, a, {}, geometry(totals_k, chunks, false), chunks, false);
      launch(prefix_k, mems, a, {}, geometry(prefix_k, chunks, false, 1), chunks, false);
    }
    launch(apply_k, mems, a, {}, geometry(apply_k, chunks, false), chunks, false);
  }

  opencl::DeviceInfo device_;
  opencl::Context context_;
  opencl::Queue queue_;
  codegen::CDialect dialect_;
  opencl::OpenClPrinter printer_;
  std::unique_ptr<opencl::ProgramCache> programs_;
  bool reuse_;                        // keep Loop steps (ARRVM_CACHE other than off)
  bool row_fusion_;                   // the row-fusion pass (ARRVM_PASSES)
  std::vector<uint32_t> nest_order_;  // a row nest's order (plan_batch)
  std::unordered_map<uint64_t, std::vector<std::shared_ptr<KeptLoop>>> kept_;  // structure id -> per block
  uint64_t lowerings_reused_ = 0;
  opencl::DeviceMemory memory_;
  opencl::Launcher launcher_;
  std::size_t block_instructions_ = 0;  // of the block whose kernels are enqueued (the timeline's spans)
};

}  // namespace

std::unique_ptr<Backend> make_opencl_backend(const Config& config) {
  return std::make_unique<OpenClBackend>(config);
}

std::string opencl_devices_report() {
  const std::vector<opencl::DeviceInfo> devices = opencl::list_devices();
  if (devices.empty()) return "OpenCL: no platform found (no OpenCL driver installed)\n";
  std::string s = "OpenCL devices (ARRVM_OPENCL_DEVICE selects one by platform:device or name):\n";
  for (const opencl::DeviceInfo& d : devices) s += "  " + opencl::describe(d) + "\n";
  return s;
}

OpenClBackendStats opencl_backend_stats(const Backend& backend) {
  const BackendStats g = backend.stats();
  if (g.backend != "opencl")
    throw InternalError("opencl_backend_stats: backend '" + g.backend + "' is not opencl");
  OpenClBackendStats s;
  s.device = g.label("device");
  s.programs_built = g.count("programs_built");
  s.sources_built = g.count("sources_built");
  s.memory_hits = g.count("program_cache_memory_hits");
  s.disk_hits = g.count("program_cache_disk_hits");
  s.corrupt = g.count("program_cache_corrupt");
  s.kernels_launched = g.count("kernels_launched");
  s.sequential_launches = g.count("sequential_launches");
  return s;
}

}  // namespace arrvm
