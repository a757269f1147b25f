// Random valid batches for property tests (fusion, and later backends):
// a few persistent bases with initial data, temporaries created and freed in
// the batch, elementwise ops with constants and broadcast inputs, slices with
// offsets, steps and negative strides, 2-D views and transposes, range,
// reductions (also into 0-d views), scans, gathers, filters (compress, with
// elementwise ops, reductions, scans and filters over their length class),
// frees and syncs. Every
// instruction is normalized by vm/validate (a rejected candidate is redrawn),
// so a program is exactly what a Runtime would hand to fusion. Deterministic:
// the same seed gives the same program on every platform.
#pragma once

#include <cstdint>
#include <vector>

#include "backends/backend.hpp"
#include "vm/instruction.hpp"

namespace arrvm::testing {

struct RandomProgramOptions {
  int min_instructions = 1;
  int max_instructions = 12;
  int persistent_bases = 3;  // 12 elements each
  double p_sync = 0.05;
  double p_free = 0.5;   // chance a dead temporary is freed
  bool filters = true;   // compress and its length classes (not run by the mpi backend)
  bool complex = false;  // complex128 or complex64 among the dtypes (ref and cpu run them)
};

struct BaseSpec {
  BaseId id;
  DType dtype;
  int64_t nelem;
  std::vector<uint8_t> data;  // host data set before the batch; empty: never written
  bool freed = false;         // freed by the batch
};

struct RandomProgram {
  std::vector<BaseSpec> bases;  // ids 0, 1, ... in order
  std::vector<Instruction> batch;
};

RandomProgram random_program(uint64_t seed, const RandomProgramOptions& options = {});

// Runs `p` on a fresh backend under `partition` and returns the contents of
// every base the batch does not free, in base order.
std::vector<std::vector<uint8_t>> run_program(Backend& backend, const RandomProgram& p,
                                              const Partition& partition);

}  // namespace arrvm::testing
