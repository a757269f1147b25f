#include "backends/opencl/opencl_backend.hpp"

#include <algorithm>
#include <climits>
#include <cstring>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "backends/c_emitter.hpp"
#include "backends/loop_ir.hpp"
#include "backends/opencl/opencl_dialect.hpp"
#include "backends/opencl/opencl_runtime.hpp"
#include "cache/kernel_cache.hpp"
#include "vm/hash.hpp"
#include "vm/error.hpp"
#include "vm/timeline.hpp"

namespace arrvm {

namespace {

using opencl::check;
using opencl::Mem;

// Work-items per group (a power of two; fewer if the device allows fewer)
// and work-groups per compute unit at most: a kernel's work-item loop
// strides over anything larger.
constexpr std::size_t kLocalSize = 256;
constexpr std::size_t kGroupsPerComputeUnit = 16;
// On a CPU device: work items per compute unit at most, and the fewest
// elements worth a work item of its own.
constexpr std::size_t kCpuItemsPerUnit = 8;
constexpr int64_t kCpuChunkMin = 4096;
// 1-D scans at least this long run in parallel chunks of at least
// kScanChunkMin elements; shorter ones on one work item, in ref's order.
constexpr int64_t kParallelScanLength = 1 << 16;
constexpr int64_t kScanChunkMin = 16;

std::size_t floor_pow2(std::size_t n) {
  std::size_t p = 1;
  while (p * 2 <= n) p *= 2;
  return p;
}

class OpenClBackend final : public Backend {
 public:
  explicit OpenClBackend(const Config& config) : device_(opencl::select_device(config.opencl_device)) {
    cl_int err = CL_SUCCESS;
    context_ = opencl::Context(clCreateContext(nullptr, 1, &device_.device, nullptr, nullptr, &err));
    check(err, "clCreateContext(" + device_.name + ")");
    queue_ = opencl::Queue(clCreateCommandQueue(context_.get(), device_.device, 0, &err));
    check(err, "clCreateCommandQueue(" + device_.name + ")");
    dialect_ = opencl::dialect(device_.fp64, device_.gpu);
    programs_ = std::make_unique<opencl::ProgramCache>(config, context_.get(), device_,
                                                       opencl::build_options(device_.correctly_rounded_fp32_div));
    local_size_ = floor_pow2(std::min(kLocalSize, device_.max_work_group_size));
    max_groups_ = static_cast<std::size_t>(device_.compute_units) * kGroupsPerComputeUnit;
    // What a view of a never-written base reads (with zero strides), and
    // the first-bad-position flag of index checks.
    zeros_ = new_buffer(64, "zero buffer");
    fill(zeros_.get(), 0, 64);
    flag_ = new_buffer(sizeof(cl_int), "index check flag");
  }

  ~OpenClBackend() override {
    if (queue_) clFinish(queue_.get());
  }

  std::string name() const override { return "opencl"; }

  void declare(BaseId id, DType dtype, int64_t nelem) override {
    ARRVM_ASSERT(nelem >= 0);
    release(id);
    buffers_[id] = Buffer{dtype, nelem, Mem()};
  }

  void copy_from_host(BaseId id, const void* src) override {
    Buffer& b = find(id);
    const std::size_t bytes = b.bytes();
    if (bytes == 0) return;
    if (!b.mem) allocate(id, b);  // no fill: every byte is written now
    std::vector<unsigned char> normalized;
    if (b.dtype == DType::Bool) {
      // Kernels treat bools as bytes 0/1: normalize (any non-zero byte is true).
      const auto* in = static_cast<const unsigned char*>(src);
      normalized.resize(bytes);
      for (std::size_t i = 0; i < bytes; ++i) normalized[i] = in[i] != 0;
      src = normalized.data();
    }
    check(clEnqueueWriteBuffer(queue_.get(), b.mem.get(), CL_TRUE, 0, bytes, src, 0, nullptr, nullptr),
          "writing b" + std::to_string(id) + " to the device");
    profile().bytes_to_device += bytes;
  }

  void copy_to_host(BaseId id, void* dst) override {
    Buffer& b = find(id);
    const std::size_t bytes = b.bytes();
    if (bytes == 0) return;
    if (!b.mem) {
      std::memset(dst, 0, bytes);  // never written: zeros, nothing to move
      return;
    }
    check(clEnqueueReadBuffer(queue_.get(), b.mem.get(), CL_TRUE, 0, bytes, dst, 0, nullptr, nullptr),
          "reading b" + std::to_string(id) + " from the device");
    profile().bytes_from_device += bytes;
  }

  void release(BaseId id) override {
    auto it = buffers_.find(id);
    if (it == buffers_.end()) return;
    // The driver keeps the buffer alive until queued kernels using it finish.
    if (it->second.mem) profile().deallocated(it->second.bytes());
    buffers_.erase(it);
  }

  // The pipeline of a batch: plan (each block as segments, in block order:
  // maximal runs of elementwise/generator instructions of one shape become
  // one loop kernel, each reduction or scan a sweep kernel or a work-group
  // tree, gather and scatter their own kernels; lowering and printing the
  // source), build the kernels not built yet as one program, launch.
  // Nothing runs on the host.
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
      run(st);
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
             {"kernels_launched", launched_},
             {"sequential_launches", sequential_}},
            {{"device", device_.name}}};
  }

 private:
  struct Buffer {
    DType dtype = DType::Float64;
    int64_t nelem = 0;
    Mem mem;  // null until first written

    std::size_t bytes() const { return static_cast<std::size_t>(nelem) * dtype_size(dtype); }
  };

  Buffer& find(BaseId id) {
    auto it = buffers_.find(id);
    if (it == buffers_.end()) throw InternalError("opencl backend: unknown base b" + std::to_string(id));
    return it->second;
  }

  Mem new_buffer(std::size_t bytes, const std::string& what) {
    cl_int err = CL_SUCCESS;
    Mem m(clCreateBuffer(context_.get(), CL_MEM_READ_WRITE, std::max<std::size_t>(bytes, 1), nullptr, &err));
    if (err == CL_MEM_OBJECT_ALLOCATION_FAILURE || err == CL_OUT_OF_RESOURCES || err == CL_OUT_OF_HOST_MEMORY ||
        err == CL_INVALID_BUFFER_SIZE) {
      throw Error("opencl backend: out of device memory allocating " + std::to_string(bytes) + " bytes for " + what +
                  " on " + device_.name + " (" + opencl::error_name(err) + ")");
    }
    check(err, "clCreateBuffer(" + what + ")");
    return m;
  }

  void fill(cl_mem m, int byte, std::size_t bytes) {
    const cl_uchar pattern = static_cast<cl_uchar>(byte);
    check(clEnqueueFillBuffer(queue_.get(), m, &pattern, 1, 0, bytes, 0, nullptr, nullptr), "clEnqueueFillBuffer");
  }

  void allocate(BaseId id, Buffer& b) {
    b.mem = new_buffer(b.bytes(), "b" + std::to_string(id));
    profile().allocated(b.bytes());
  }

  // The base's device buffer, allocated and zero-filled on first write.
  cl_mem for_write(BaseId id) {
    Buffer& b = find(id);
    if (!b.mem) {
      allocate(id, b);
      if (b.bytes() > 0) fill(b.mem.get(), 0, b.bytes());
    }
    return b.mem.get();
  }

  // The base's device buffer, or the zero buffer with `v` re-pointed at it
  // (offset and strides 0) if the base was never written.
  cl_mem for_read(View* v) {
    Buffer& b = find(v->base);
    if (b.mem) return b.mem.get();
    v->offset = 0;
    for (int d = 0; d < v->rank(); ++d) v->stride[d] = 0;
    return zeros_.get();
  }

  // Float64 needs cl_khr_fp64; every other dtype is core OpenCL C.
  void require(DType t, const std::string& what) const {
    if (t == DType::Float64 && !device_.fp64) {
      throw Error("opencl backend: device " + device_.name +
                  " does not support float64 (no cl_khr_fp64), needed by " + what);
    }
  }

  Mem arg_buffer(const void* data, std::size_t bytes) {
    cl_int err = CL_SUCCESS;
    Mem m(clCreateBuffer(context_.get(), CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, std::max<std::size_t>(bytes, 8),
                         const_cast<void*>(data), &err));
    check(err, "clCreateBuffer(launch arguments)");
    return m;
  }

  // The work-group size for `kernel`: the device's (capped), or less if the
  // kernel cannot run that many work items (a GPU's registers), a power of two.
  std::size_t kernel_local_size(cl_kernel kernel) {
    auto it = kernel_local_.find(kernel);
    if (it != kernel_local_.end()) return it->second;
    std::size_t max = 0;
    if (clGetKernelWorkGroupInfo(kernel, device_.device, CL_KERNEL_WORK_GROUP_SIZE, sizeof max, &max, nullptr) !=
            CL_SUCCESS ||
        max == 0) {
      max = local_size_;
    }
    return kernel_local_[kernel] = floor_pow2(std::min(max, local_size_));
  }

  // Launches `kernel` with buffers `mems`, then the argument buffers a and c,
  // over `total` iterations of its work-item loop (`work` elements in all,
  // if an iteration is more than one). groups == 0: as many groups of
  // local_size_ as cover `total` (capped: the work-item loop strides over
  // the rest), or on a CPU device a few single work items with long chunks;
  // sequential: one work item.
  void launch(cl_kernel kernel, std::span<const cl_mem> mems, const std::vector<int64_t>& a,
              const std::vector<uint64_t>& c, int64_t total, bool sequential, std::size_t groups = 0,
              int64_t work = -1) {
    Mem abuf = arg_buffer(a.data(), a.size() * sizeof(int64_t));
    Mem cbuf = c.empty() ? Mem() : arg_buffer(c.data(), c.size() * sizeof(uint64_t));
    cl_uint arg = 0;
    for (cl_mem m : mems) check(clSetKernelArg(kernel, arg++, sizeof(cl_mem), &m), "clSetKernelArg");
    cl_mem am = abuf.get(), cm = c.empty() ? abuf.get() : cbuf.get();
    check(clSetKernelArg(kernel, arg++, sizeof(cl_mem), &am), "clSetKernelArg");
    check(clSetKernelArg(kernel, arg++, sizeof(cl_mem), &cm), "clSetKernelArg");
    std::size_t local = sequential ? 1 : std::min(local_size_, kernel_local_size(kernel));
    if (groups == 0 && !sequential && !device_.gpu) {
      // A CPU device: a few work items per core, each a long contiguous
      // chunk (the dialect's chunked loops), one per work-group.
      local = 1;
      const std::size_t most = std::min<std::size_t>(static_cast<std::size_t>(std::max<int64_t>(total, 1)),
                                                     device_.compute_units * kCpuItemsPerUnit);
      groups = std::clamp<std::size_t>(static_cast<std::size_t>((work < 0 ? total : work) / kCpuChunkMin) + 1, 1,
                                       most);
    } else if (groups == 0) {
      const std::size_t need = (static_cast<std::size_t>(std::max<int64_t>(total, 1)) + local - 1) / local;
      groups = sequential ? 1 : std::clamp<std::size_t>(need, 1, max_groups_);
    }
    const std::size_t global = groups * local;
    {
      // Launches are asynchronous: the span is the enqueue; the device's
      // time shows in the batch's `execute` span, which waits for the queue.
      ScopedSpan span(profile(), nullptr, "kernel (enqueue)", "kernel", {{"elements", total}});
      check(clEnqueueNDRangeKernel(queue_.get(), kernel, 1, nullptr, &global, &local, 0, nullptr, nullptr),
            "clEnqueueNDRangeKernel");
    }
    ++launched_;
    ++profile().kernels_launched;
    if (sequential) ++sequential_;
  }

  // A kernel of a step: its source and name.
  struct Kernel {
    std::string source, name;
  };

  // What one segment of a block does, planned before anything runs.
  struct Step {
    enum class Kind { Loop, Sweep, Tree, Scan, Gather, Scatter, Release } kind = Kind::Release;
    const Instruction* instr = nullptr;  // Sweep, Tree, Gather, Scatter
    codegen::LoweredBlock block;         // Loop
    std::vector<BaseId> frees;           // Release: the frees of a segment, after its kernel
    std::vector<Kernel> kernels;         // Loop, Sweep, Tree: 1; Scan: 3; Gather: + check; Scatter: + winners, check
    std::size_t block_index = 0;         // the partition block it belongs to
  };

  std::vector<Step> plan_batch(std::span<const Instruction> batch, const Partition& partition) {
    ScopedSpan t(profile(), &profile().codegen_s, "codegen");
    std::vector<Step> plan;
    std::vector<uint32_t> segment;
    std::size_t block_index = 0;
    for (const Block& block : partition.blocks) {
      const std::size_t first_step = plan.size();
      bool have_shape = false;
      Dims shape;
      for (uint32_t i : block) {
        ARRVM_ASSERT(i < batch.size());
        const Instruction& in = batch[i];
        const OpKind k = opcode_kind(in.op);
        if (is_control(in.op)) {
          segment.push_back(i);  // a free is applied after the segment's kernel
        } else if (k == OpKind::Elementwise || k == OpKind::Generator) {
          if (have_shape && in.out.shape != shape) plan_segment(batch, &segment, &plan);
          segment.push_back(i);
          shape = in.out.shape;
          have_shape = true;
        } else {
          plan_segment(batch, &segment, &plan);
          have_shape = false;
          plan_instruction(in, &plan);
        }
      }
      plan_segment(batch, &segment, &plan);
      for (std::size_t s = first_step; s < plan.size(); ++s) plan[s].block_index = block_index;
      ++block_index;
    }
    return plan;
  }

  void plan_segment(std::span<const Instruction> batch, std::vector<uint32_t>* segment, std::vector<Step>* plan) {
    if (codegen::is_loop_block(batch, *segment)) {
      Step st;
      st.kind = Step::Kind::Loop;
      st.block = codegen::lower_block(batch, *segment);
      if (st.block.shape.product() > 0) {  // else nothing to do (ref writes nothing either)
        for (const codegen::Stmt& s : st.block.kernel.body) {
          require(s.out.dtype, std::string(opcode_name(s.op)));
          for (int k = 0; k < s.nin; ++k) require(s.in[k].dtype, std::string(opcode_name(s.op)));
        }
        // Named after its structure: kernels of one batch share a program.
        const std::string name = "arrvm_loop_" + sha256_hex(st.block.kernel.signature()).substr(0, 16);
        st.kernels.push_back({codegen::emit_c(st.block.kernel, name, dialect_), name});
        plan->push_back(std::move(st));
      }
    }
    Step release;
    for (uint32_t i : *segment) {
      if (opcode_kind(batch[i].op) == OpKind::Free) release.frees.push_back(batch[i].out.base);
    }
    if (!release.frees.empty()) plan->push_back(std::move(release));
    segment->clear();
  }

  void plan_instruction(const Instruction& in, std::vector<Step>* plan) {
    Step st;
    st.instr = &in;
    const OpKind k = opcode_kind(in.op);
    if (k == OpKind::Reduce || k == OpKind::Accumulate) {
      const View& src = in.in[0].view;
      if (in.out.nelem() == 0) return;
      require(src.dtype, "`" + to_string(in) + "`");
      const codegen::SweepKernel sk = codegen::sweep_kernel(in);
      if (sk.rank == 0 && k == OpKind::Accumulate && src.shape[0] >= kParallelScanLength) {
        st.kind = Step::Kind::Scan;
        const std::string source = opencl::scan_source(in.op, src.dtype, static_cast<int>(local_size_), dialect_);
        st.kernels.push_back({source, opencl::scan_totals_name(in.op, src.dtype)});
        st.kernels.push_back({source, opencl::scan_prefix_name(in.op, src.dtype)});
        st.kernels.push_back({source, opencl::scan_apply_name(in.op, src.dtype)});
      } else if (sk.rank == 0 && k == OpKind::Reduce) {
        st.kind = Step::Kind::Tree;
        st.kernels.push_back({opencl::reduce_tree_source(in.op, src.dtype, static_cast<int>(local_size_), dialect_),
                              opencl::reduce_tree_name(in.op, src.dtype)});
      } else {
        st.kind = Step::Kind::Sweep;
        const std::string name = "arrvm_sweep_" + std::string(opcode_name(in.op)) + "_" +
                                 std::string(dtype_name(src.dtype)) + "_r" + std::to_string(sk.rank);
        st.kernels.push_back({codegen::emit_sweep_c(sk, name, dialect_), name});
      }
    } else if (k == OpKind::Gather) {
      if (in.out.nelem() == 0) return;
      require(in.out.dtype, "`" + to_string(in) + "`");
      st.kind = Step::Kind::Gather;
      st.kernels.push_back({opencl::gather_source(in.out.dtype, dialect_), opencl::gather_name(in.out.dtype)});
      st.kernels.push_back({opencl::check_indices_source(dialect_), opencl::kCheckIndicesKernel});
    } else if (k == OpKind::Scatter) {
      if (in.in[0].view.nelem() == 0) return;
      require(in.out.dtype, "`" + to_string(in) + "`");
      st.kind = Step::Kind::Scatter;
      const std::string source = opencl::scatter_source(in.out.dtype, dialect_);
      st.kernels.push_back({source, opencl::scatter_name(in.out.dtype)});
      st.kernels.push_back({source, opencl::scatter_winners_name(in.out.dtype)});
      st.kernels.push_back({opencl::check_indices_source(dialect_), opencl::kCheckIndicesKernel});
    } else {
      throw InternalError("opencl backend: no kernel for " + to_string(in));
    }
    plan->push_back(std::move(st));
  }

  cl_kernel kernel(const Kernel& k) { return programs_->get(k.source, k.name, profile()); }

  void run(Step& st) {
    switch (st.kind) {
      case Step::Kind::Loop: return run_loop(st);
      case Step::Kind::Sweep: return run_sweep(st);
      case Step::Kind::Tree: return run_tree(st);
      case Step::Kind::Scan: return run_scan(st);
      case Step::Kind::Gather: return run_gather(st);
      case Step::Kind::Scatter: return run_scatter(st);
      case Step::Kind::Release:
        for (BaseId b : st.frees) release(b);
        return;
    }
  }

  void run_loop(Step& st) {
    codegen::LoweredBlock& b = st.block;
    profile().arrays_contracted += b.contracted.size();
    std::vector<cl_mem> mems(b.views.size(), nullptr);
    bool sequential = false;
    // Written views first, so a base written and read in one block is
    // allocated before its reads look for memory.
    for (std::size_t v = 0; v < b.views.size(); ++v) {
      if (!b.kernel.written[v]) continue;
      mems[v] = for_write(b.views[v].base);
      // Two iterations writing one element would race in parallel.
      if (!is_injective(b.views[v])) sequential = true;
    }
    for (std::size_t v = 0; v < b.views.size(); ++v) {
      if (!b.kernel.written[v]) mems[v] = for_read(&b.views[v]);
    }
    // A single instruction may read a view overlapping its output at another
    // offset; the one-work-item loop reproduces ref, parallel work items not.
    for (std::size_t v = 0; v < b.views.size() && !sequential; ++v) {
      for (std::size_t w = 0; w < b.views.size() && !sequential; ++w) {
        if (v != w && (b.kernel.written[v] || b.kernel.written[w]) && may_overlap(b.views[v], b.views[w]) &&
            !same_elements(b.views[v], b.views[w])) {
          sequential = true;
        }
      }
    }
    launch(kernel(st.kernels[0]), mems, codegen::pack_args(b, !sequential), b.consts, b.shape.product(), sequential);
  }

  // A reduction or scan as a sweep kernel, parallel over the axes that are
  // not swept, each sweep in ref's order (exact). A 1-D scan shorter than
  // kParallelScanLength runs so on one work item.
  void run_sweep(Step& st) {
    const Instruction& in = *st.instr;
    const View& src = in.in[0].view;
    if (src.shape[in.axis] == 0 && (in.op == Opcode::MinimumReduce || in.op == Opcode::MaximumReduce)) {
      throw Error(std::string(opcode_name(in.op)) + " over an empty axis in `" + to_string(in) + "`");
    }
    cl_mem out = for_write(in.out.base);
    View iv = src;
    cl_mem inp = for_read(&iv);
    // Validated views never overlap; an output that is not injective would
    // need the sequential order.
    const bool sequential = !is_injective(in.out) || may_overlap(in.out, src);
    const cl_mem mems[2] = {out, inp};
    launch(kernel(st.kernels[0]), mems, codegen::pack_sweep_args(in, in.out, iv, !sequential), {},
           src.shape.without(in.axis).product(), sequential, 0, src.nelem());
  }

  // A full reduction of `len` elements: one partial per work-group, then (if
  // there are several) one group over the partials. Every group gets at
  // least one element, so no identity enters a min/max.
  void run_tree(Step& st) {
    const Instruction& in = *st.instr;
    const View& src = in.in[0].view;
    const int64_t len = src.shape[0];
    if (len == 0 && (in.op == Opcode::MinimumReduce || in.op == Opcode::MaximumReduce)) {
      throw Error(std::string(opcode_name(in.op)) + " over an empty axis in `" + to_string(in) + "`");
    }
    cl_mem out = for_write(in.out.base);
    View iv = src;
    cl_mem inp = for_read(&iv);
    cl_kernel k = kernel(st.kernels[0]);
    const std::size_t groups = std::clamp<std::size_t>(
        (static_cast<std::size_t>(len) + local_size_ - 1) / local_size_, 1, max_groups_);
    if (groups == 1) {
      const cl_mem mems[2] = {out, inp};
      launch(k, mems, {len, iv.offset, iv.stride[0], in.out.offset, 0}, {}, len, false, 1);
      return;
    }
    Mem partials = new_buffer(groups * dtype_size(src.dtype), "reduction partials");
    const cl_mem first[2] = {partials.get(), inp};
    launch(k, first, {len, iv.offset, iv.stride[0], 0, 1}, {}, len, false, groups);
    const cl_mem second[2] = {out, partials.get()};
    launch(k, second, {static_cast<int64_t>(groups), 0, 1, in.out.offset, 0}, {}, static_cast<int64_t>(groups), false,
           1);
  }

  // A long 1-D scan in chunks: their totals, exclusive prefixes of those
  // (one work-group), each chunk rescanned from its prefix. The combining
  // order differs from ref's (floats: within rounding, like a reduction).
  void run_scan(Step& st) {
    const Instruction& in = *st.instr;
    const View& src = in.in[0].view;
    const int64_t len = src.shape[0];
    cl_mem out = for_write(in.out.base);
    View iv = src;
    cl_mem inp = for_read(&iv);
    const int64_t items = static_cast<int64_t>(max_groups_ * local_size_);
    const int64_t chunk = std::max<int64_t>((len + items - 1) / items, kScanChunkMin);
    const int64_t chunks = (len + chunk - 1) / chunk;
    ARRVM_ASSERT(chunks >= 1);
    const std::size_t bytes = static_cast<std::size_t>(chunks) * dtype_size(src.dtype);
    Mem totals = new_buffer(bytes, "scan totals"), prefixes = new_buffer(bytes, "scan prefixes");
    const std::vector<int64_t> a = {len, iv.offset, iv.stride[0], in.out.offset, in.out.stride[0], chunk, chunks};
    const cl_mem first[2] = {totals.get(), inp};
    launch(kernel(st.kernels[0]), first, a, {}, chunks, false);
    const cl_mem second[2] = {prefixes.get(), totals.get()};
    launch(kernel(st.kernels[1]), second, a, {}, chunks, false, 1);
    const cl_mem third[3] = {out, inp, prefixes.get()};
    launch(kernel(st.kernels[2]), third, a, {}, chunks, false);
  }

  // Throws ref's Error if an index of `idx` lies outside [0, limit): a check
  // kernel finds the first bad position, the host reads that one index.
  void check_indices(const Instruction& instr, const Kernel& check_kernel, const View& idx_view, int64_t limit) {
    View idx = idx_view;
    cl_mem mem = for_read(&idx);
    if (mem == zeros_.get()) {
      if (limit > 0) return;  // never written: every index is 0
      index_error(instr, 0, limit);
    }
    const cl_int none = INT_MAX;
    check(clEnqueueFillBuffer(queue_.get(), flag_.get(), &none, sizeof none, 0, sizeof none, 0, nullptr, nullptr),
          "clEnqueueFillBuffer(index check flag)");
    const cl_mem mems[2] = {flag_.get(), mem};
    launch(kernel(check_kernel), mems, opencl::check_indices_args(idx, limit), {}, idx.nelem(), false);
    cl_int first = none;
    check(clEnqueueReadBuffer(queue_.get(), flag_.get(), CL_TRUE, 0, sizeof first, &first, 0, nullptr, nullptr),
          "reading the index check flag");
    if (first == none) return;
    // The offset of flat position `first` in the index view, row-major.
    int64_t k = first, offset = idx.offset;
    for (int d = idx.rank() - 1; d >= 0; --d) {
      offset += (k % idx.shape[d]) * idx.stride[d];
      k /= idx.shape[d];
    }
    int64_t value = 0;
    check(clEnqueueReadBuffer(queue_.get(), mem, CL_TRUE, static_cast<std::size_t>(offset) * sizeof(int64_t),
                              sizeof value, &value, 0, nullptr, nullptr),
          "reading a bad index");
    index_error(instr, value, limit);
  }

  [[noreturn]] static void index_error(const Instruction& instr, int64_t value, int64_t limit) {
    throw Error(std::string(opcode_name(instr.op)) + ": index " + std::to_string(value) + " out of range [0, " +
                std::to_string(limit) + ") in `" + to_string(instr) + "`");
  }

  void run_gather(Step& st) {
    const Instruction& in = *st.instr;
    View src = in.in[0].view, idx = in.in[1].view;
    check_indices(in, st.kernels[1], idx, src.nelem());
    const cl_mem mems[3] = {for_write(in.out.base), for_read(&src), for_read(&idx)};
    launch(kernel(st.kernels[0]), mems, opencl::gather_args(in.out, src, idx), {}, in.out.nelem(), false);
  }

  void run_scatter(Step& st) {
    const Instruction& in = *st.instr;
    View vals = in.in[0].view, idx = in.in[1].view;
    const int64_t n = vals.nelem();
    check_indices(in, st.kernels[2], idx, in.out.nelem());
    cl_mem out = for_write(in.out.base);
    cl_mem vm = for_read(&vals), im = for_read(&idx);
    // Last write wins among duplicate indices, as in ref's loop: in
    // parallel through int32 winner positions, else on one work item.
    const bool winners = n < INT_MAX && in.out.nelem() < INT_MAX;
    Mem win;
    if (winners) {
      win = new_buffer(static_cast<std::size_t>(in.out.nelem()) * sizeof(cl_int), "scatter winners");
      fill(win.get(), 0xff, static_cast<std::size_t>(in.out.nelem()) * sizeof(cl_int));  // -1
      const cl_mem wm[2] = {win.get(), im};
      launch(kernel(st.kernels[1]), wm, opencl::scatter_args(in.out, vals, idx, true), {}, n, false);
    }
    const cl_mem mems[4] = {out, vm, im, winners ? win.get() : zeros_.get()};
    launch(kernel(st.kernels[0]), mems, opencl::scatter_args(in.out, vals, idx, winners), {}, n, !winners);
  }

  opencl::DeviceInfo device_;
  opencl::Context context_;
  opencl::Queue queue_;
  codegen::CDialect dialect_;
  std::unique_ptr<opencl::ProgramCache> programs_;
  std::size_t local_size_ = 1, max_groups_ = 1;
  Mem zeros_, flag_;
  std::unordered_map<BaseId, Buffer> buffers_;
  std::unordered_map<cl_kernel, std::size_t> kernel_local_;  // kernels live as long as programs_
  uint64_t launched_ = 0, sequential_ = 0;
};

}  // namespace

std::unique_ptr<Backend> make_opencl_backend(const Config& config) { return std::make_unique<OpenClBackend>(config); }

std::string opencl_devices_report() {
  const std::vector<opencl::DeviceInfo> devices = opencl::list_devices();
  if (devices.empty()) return "OpenCL: no platform found (no OpenCL driver installed)\n";
  std::string s = "OpenCL devices (ARRVM_OPENCL_DEVICE selects one by platform:device or name):\n";
  for (const opencl::DeviceInfo& d : devices) s += "  " + opencl::describe(d) + "\n";
  return s;
}

OpenClBackendStats opencl_backend_stats(const Backend& backend) {
  const BackendStats g = backend.stats();
  if (g.backend != "opencl") throw InternalError("opencl_backend_stats: backend '" + g.backend + "' is not opencl");
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
