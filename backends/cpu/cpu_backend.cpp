#include "backends/cpu/cpu_backend.hpp"

#include <cstring>
#include <string>
#include <vector>

#include "backends/c_emitter.hpp"
#include "backends/host_memory.hpp"
#include "backends/loop_ir.hpp"
#include "backends/ref/ref_kernels.hpp"
#include "vm/error.hpp"

namespace arrvm {

namespace {

using KernelFn = void (*)(void**, const int64_t*, const uint64_t*);

// Below this many elements a parallel region costs more than it saves.
constexpr int64_t kParallelThreshold = 1 << 15;

// What a view of a never-written base reads (as stride-0 views): enough zero
// bytes for any dtype.
alignas(64) const uint64_t kZeros[8] = {};

class CpuBackend final : public Backend, private ref::MemoryAccess {
 public:
  explicit CpuBackend(const Config& config) : cache_(config) {}

  std::string name() const override { return "cpu"; }

  void declare(BaseId id, DType dtype, int64_t nelem) override { memory_.declare(id, dtype, nelem); }

  void copy_from_host(BaseId id, const void* src) override {
    HostMemory::Buffer& b = memory_.find(id);
    if (b.bytes() == 0) return;
    void* dst = memory_.for_write(id);
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

  void release(BaseId id) override { memory_.release(id); }

  // Each block runs as segments, in block order: maximal runs of
  // elementwise/generator instructions of one shape become one loop kernel
  // (with the control instructions among them); each reduction or scan is a
  // sweep kernel; gather and scatter are interpreted.
  // TODO(issue 4): fuse sweeps with the block's elementwise loops;
  // generate gather and scatter.
  void execute(std::span<const Instruction> batch, const Partition& partition) override {
    std::vector<uint32_t> segment;
    for (const Block& block : partition.blocks) {
      bool have_shape = false;
      Dims shape;
      for (uint32_t i : block) {
        ARRVM_ASSERT(i < batch.size());
        const Instruction& in = batch[i];
        const OpKind k = opcode_kind(in.op);
        if (is_control(in.op)) {
          segment.push_back(i);  // a free is applied after the segment's kernel
        } else if (k == OpKind::Elementwise || k == OpKind::Generator) {
          if (have_shape && in.out.shape != shape) run_segment(batch, &segment);
          segment.push_back(i);
          shape = in.out.shape;
          have_shape = true;
        } else {
          run_segment(batch, &segment);
          have_shape = false;
          if (k == OpKind::Reduce || k == OpKind::Accumulate) {
            run_sweep(in);
          } else {
            ++stats_.interpreted;
            ref::run_instruction(in, *this);
          }
        }
      }
      run_segment(batch, &segment);
    }
  }

  CpuBackendStats stats() const {
    CpuBackendStats s = stats_;
    s.cache = cache_.stats();
    return s;
  }

 private:
  void run_segment(std::span<const Instruction> batch, std::vector<uint32_t>* segment) {
    if (codegen::is_loop_block(batch, *segment)) run_loop(batch, *segment);
    for (uint32_t i : *segment) {
      if (opcode_kind(batch[i].op) == OpKind::Free) release(batch[i].out.base);
    }
    segment->clear();
  }

  void run_loop(std::span<const Instruction> batch, std::span<const uint32_t> block) {
    codegen::LoweredBlock b = codegen::lower_block(batch, block);
    if (b.shape.product() == 0) return;  // nothing to do (ref writes nothing either)
    stats_.contracted += b.contracted.size();
    std::vector<void*> ptrs(b.views.size(), nullptr);
    bool parallel = b.kernel.rank > 0 && b.shape.product() >= kParallelThreshold;
    // Written views first, so a base written and read in one block is
    // allocated before its reads look for memory.
    for (std::size_t v = 0; v < b.views.size(); ++v) {
      if (!b.kernel.written[v]) continue;
      ptrs[v] = memory_.for_write(b.views[v].base);
      // Two iterations writing one element would race in parallel.
      if (!is_injective(b.views[v])) parallel = false;
    }
    for (std::size_t v = 0; v < b.views.size(); ++v) {
      if (b.kernel.written[v]) continue;
      ptrs[v] = memory_.for_read(b.views[v].base);
      if (ptrs[v] == nullptr) {
        ptrs[v] = const_cast<uint64_t*>(kZeros);
        b.views[v].offset = 0;
        for (int d = 0; d < b.views[v].rank(); ++d) b.views[v].stride[d] = 0;
      }
    }
    // A single instruction may read a view overlapping its output at another
    // offset; the sequential loop reproduces ref, threads would not.
    for (std::size_t v = 0; v < b.views.size() && parallel; ++v) {
      for (std::size_t w = 0; w < b.views.size() && parallel; ++w) {
        if (v != w && (b.kernel.written[v] || b.kernel.written[w]) && may_overlap(b.views[v], b.views[w]) &&
            !same_elements(b.views[v], b.views[w])) {
          parallel = false;
        }
      }
    }
    const std::vector<int64_t> args = codegen::pack_args(b, parallel);
    const std::string name = "arrvm_kernel";
    const std::string source = codegen::emit_c(b.kernel, name);
    auto fn = reinterpret_cast<KernelFn>(cache_.get(source, name));
    ++stats_.kernels_launched;
    fn(ptrs.data(), args.data(), b.consts.data());
  }

  // A reduction or scan as its own generated kernel.
  void run_sweep(const Instruction& in) {
    const View& src = in.in[0].view;
    if (in.out.nelem() == 0) return;
    if (src.shape[in.axis] == 0 && (in.op == Opcode::MinimumReduce || in.op == Opcode::MaximumReduce)) {
      ++stats_.interpreted;  // no identity: ref raises the error
      ref::run_instruction(in, *this);
      return;
    }
    void* ptrs[2] = {memory_.for_write(in.out.base), memory_.for_read(src.base)};
    View iv = src;
    if (ptrs[1] == nullptr) {
      ptrs[1] = const_cast<uint64_t*>(kZeros);
      iv.offset = 0;
      for (int d = 0; d < iv.rank(); ++d) iv.stride[d] = 0;
    }
    const codegen::SweepKernel k = codegen::sweep_kernel(in);
    // Rank 0 (a full reduction) parallelizes the sweep itself.
    const bool parallel = src.nelem() >= kParallelThreshold &&
                          (k.rank > 0 ? is_injective(in.out) && !may_overlap(in.out, src)
                                      : opcode_kind(in.op) == OpKind::Reduce);
    const std::vector<int64_t> args = codegen::pack_sweep_args(in, in.out, iv, parallel);
    const std::string name = "arrvm_sweep";
    auto fn = reinterpret_cast<KernelFn>(cache_.get(codegen::emit_sweep_c(k, name), name));
    ++stats_.kernels_launched;
    fn(ptrs, args.data(), nullptr);
  }

  ref::BaseMemory for_write(BaseId id) override {
    void* p = memory_.for_write(id);
    const HostMemory::Buffer& b = memory_.find(id);
    return {p, b.dtype, b.nelem};
  }

  ref::BaseMemory for_read(BaseId id) override {
    const HostMemory::Buffer& b = memory_.find(id);
    return {b.data.get(), b.dtype, b.nelem};
  }

  HostMemory memory_;
  KernelCache cache_;
  CpuBackendStats stats_;
};

}  // namespace

std::unique_ptr<Backend> make_cpu_backend(const Config& config) { return std::make_unique<CpuBackend>(config); }

CpuBackendStats cpu_backend_stats(Backend& backend) {
  auto* cpu = dynamic_cast<CpuBackend*>(&backend);
  if (cpu == nullptr) throw InternalError("cpu_backend_stats: backend '" + backend.name() + "' is not cpu");
  return cpu->stats();
}

}  // namespace arrvm
