// Random programs (testing/random_program.hpp) on each generating backend
// (cpu, opencl: one suite, parameterised by backend) under every fuser give
// the results of ref: integers and bools exactly, floats within rtol 1e-12
// (float64; the programs have no float32) — in practice bit for bit, since
// sweeps run sequentially in ref's order (OpenCL's full reductions are
// work-group trees: their order differs). Every block with work runs as
// exactly one kernel. One backend per fuser serves every program, as a
// long-running process would. By default 50 programs x 6 fusers on cpu, 20
// x 6 on opencl (PoCL builds are slow); ARRVM_TEST_SCALE=k runs k times as
// many (k = 20 reaches 1000 x 6 on cpu).
#include <doctest/doctest.h>

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <span>
#include <string>
#include <vector>

#include "backends/backend.hpp"
#include "backends/loop_ir.hpp"
#include "backends/opencl/opencl_backend.hpp"
#include "fusion/algorithms.hpp"
#include "fusion/cost.hpp"
#include "fusion/graph.hpp"
#include "fusion/row_nests.hpp"
#include "testing/random_program.hpp"
#include "tests/cpu_test_util.hpp"
#include "tests/opencl_test_util.hpp"
#include "vm/row_nest.hpp"

using namespace arrvm;  // tests only

namespace {

int test_scale() {
  const char* s = std::getenv("ARRVM_TEST_SCALE");
  const int k = (s == nullptr || *s == '\0') ? 1 : std::atoi(s);
  return k > 0 ? k : 1;
}

// Empty if `got` equals `want` (contents of one base of dtype t), else the
// first differing element.
std::string compare(DType t, const std::vector<uint8_t>& got, const std::vector<uint8_t>& want,
                    int* inexact) {
  if (got.size() != want.size())
    return "size " + std::to_string(got.size()) + " vs " + std::to_string(want.size());
  if (t != DType::Float64 && t != DType::Complex128) {
    for (std::size_t i = 0; i < got.size(); ++i) {
      if (got[i] != want[i]) return "byte " + std::to_string(i);
    }
    return "";
  }
  // (complex128: its parts as float64s)
  for (std::size_t i = 0; i < got.size() / 8; ++i) {
    double a = 0, b = 0;
    std::memcpy(&a, &got[8 * i], 8);
    std::memcpy(&b, &want[8 * i], 8);
    if (std::memcmp(&a, &b, 8) == 0 || (std::isnan(a) && std::isnan(b))) continue;
    ++*inexact;
    if (std::abs(a - b) <= 1e-14 + 1e-12 * std::abs(b)) continue;
    return "element " + std::to_string(i) + ": " + std::to_string(a) + " vs " + std::to_string(b);
  }
  return "";
}

// Whether a block mixes a reduction or scan (or gather) with other work:
// what the fused kernels add over one kernel per instruction.
bool mixes(const std::vector<Instruction>& batch, const Block& block, OpKind kind) {
  int with = 0, others = 0;
  for (uint32_t i : block) {
    const OpKind k = opcode_kind(batch[i].op);
    if (k == OpKind::Free || k == OpKind::Sync) continue;
    const bool of_kind = k == kind || (kind == OpKind::Reduce && k == OpKind::Accumulate);
    ++(of_kind ? with : others);
  }
  return with > 0 && with + others > 1;
}

// Whether the block has a kernel to launch: work over a non-empty iteration
// shape, or a reduction of an empty axis into a non-empty output.
bool launches(std::span<const Instruction> batch, const Block& block) {
  for (uint32_t i : block) {
    const Instruction& in = batch[i];
    if (is_control(in.op)) continue;
    if (arrvm::iteration_shape(in).product() > 0) return true;
    if (opcode_kind(in.op) == OpKind::Reduce && in.out.nelem() > 0) return true;
  }
  return false;
}

// A block whose loop runs over a length class whose compress is elsewhere.
bool over_class(std::span<const Instruction> batch, const Block& block) {
  for (uint32_t i : block) {
    if (batch[i].length_class < 0) continue;
    bool inside = false;
    for (uint32_t j : block)
      inside =
          inside || (batch[j].op == Opcode::Compress && batch[j].out.base == batch[i].length_class && j < i);
    if (!inside) return true;
  }
  return false;
}

void random_suite(const std::string& backend, int programs, uint64_t first_seed) {
  const auto start = std::chrono::steady_clock::now();
  cputest::TempDir dir;
  const auto cost = fusion::make_cost_model("bohrium");
  fusion::Options options;
  options.time_limit = 0.5;

  std::vector<testing::RandomProgram> progs;
  std::vector<std::vector<std::vector<uint8_t>>> expected;
  for (int seed = 0; seed < programs; ++seed) {
    testing::RandomProgramOptions po;
    po.max_instructions = seed % 4 == 0 ? 20 : 10;
    po.complex = true;
    progs.push_back(testing::random_program(first_seed + static_cast<uint64_t>(seed), po));
    const std::unique_ptr<Backend> ref = make_backend(cputest::config("ref", dir.path()));
    expected.push_back(
        testing::run_program(*ref, progs.back(), singleton_partition(progs.back().batch.size())));
  }
  // The cpu suite uses a private cache directory; opencl the shared one
  // (PoCL builds are slow and kernels repeat across runs).
  const Config config =
      backend == "opencl" ? opencltest::config("opencl") : cputest::config(backend, dir.path());

  uint64_t runs = 0, sweep_blocks = 0, gather_blocks = 0, filter_blocks = 0, contracted = 0, nests = 0;
  std::vector<uint32_t> rows, rest;
  int inexact = 0;
  for (const char* fuser : {"singleton", "linear", "greedy", "unintrusive", "optimal", "ilp"}) {
    const std::unique_ptr<Backend> be = make_backend(config);
    Profile profile;
    be->attach_profile(&profile);
    uint64_t kernel_blocks = 0, class_blocks = 0;
    const fusion::Algorithm* algo = fusion::find_algorithm(fuser);
    REQUIRE(algo != nullptr);
    for (int seed = 0; seed < programs; ++seed) {
      const testing::RandomProgram& prog = progs[seed];
      INFO(backend << ", fuser " << fuser << ", seed " << first_seed + seed << ", " << prog.batch.size()
                   << " instructions");
      // Under the backend's rules, as the VM fuses (cpu: row nests).
      const fusion::Graph g(prog.batch, be->fusion_rules());
      const Partition p = fusion::run_algorithm(*algo, g, *cost, options);
      REQUIRE(fusion::check_partition(g, p) == "");
      for (const Block& b : p.blocks) {
        nests += row_nest_split(prog.batch, b, &rows, &rest);
        sweep_blocks += mixes(prog.batch, b, OpKind::Reduce);
        gather_blocks += mixes(prog.batch, b, OpKind::Gather);
        filter_blocks += mixes(prog.batch, b, OpKind::Compress);
        kernel_blocks += launches(prog.batch, b);
        class_blocks += over_class(prog.batch, b);
      }
      const auto got = testing::run_program(*be, prog, p);
      REQUIRE(got.size() == expected[seed].size());
      std::size_t out = 0;
      for (const testing::BaseSpec& b : prog.bases) {
        if (b.freed) continue;
        INFO("base " << b.id);
        CHECK(compare(b.dtype, got[out], expected[seed][out], &inexact) == "");
        ++out;
      }
      ++runs;
    }
    contracted += profile.arrays_contracted;
    // Every block runs as exactly one kernel, but one over a length class
    // that its compress (in an earlier block) left empty runs none.
    CHECK(profile.kernels_launched <= kernel_blocks);
    CHECK(profile.kernels_launched + class_blocks >= kernel_blocks);
    MESSAGE(backend << " " << std::string(fuser) << ": " << profile.kernels_launched << " kernels launched, "
                    << profile.kernels_compiled << " compiled, " << profile.kernel_cache_hits
                    << " cache hits, " << profile.arrays_contracted << " arrays contracted");
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  MESSAGE(backend << ": " << runs << " program runs (" << programs << " programs x 6 fusers) in " << seconds
                  << " s; " << sweep_blocks << " blocks fuse a reduction or scan with other work, "
                  << gather_blocks << " a gather, " << filter_blocks
                  << " a compress (its class inside its loop); " << nests << " are row nests; " << inexact
                  << " float elements not bit-identical");
  CHECK(sweep_blocks > 0);  // the fused sweeps are exercised, not only one kernel per reduction
  CHECK(gather_blocks > 0);
  if (std::string(backend) == "cpu") CHECK(filter_blocks > 0);  // (opencl: tests/test_compress.cpp)
  CHECK(contracted > 0);
}

}  // namespace

TEST_CASE("cpu: random programs under every fuser equal ref") {
  random_suite("cpu", 50 * test_scale(), 7000);
}

TEST_CASE("opencl: random programs under every fuser equal ref") {
  random_suite("opencl", 20 * test_scale(), 9000);
}
