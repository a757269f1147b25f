// Differential test of the mpi backend, run under mpirun: random programs
// (testing/random_program.hpp) on `mpi` against `ref`, under the singleton and
// the greedy partition. Every rank runs the same programs (SPMD) and checks
// every result; the exit status is non-zero if any rank saw a difference.
//
//   mpirun -np N arrvm_mpi_random_test [FIRST_SEED COUNT]
#include <mpi.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "backends/backend.hpp"
#include "engine/fusion_stage.hpp"
#include "testing/random_program.hpp"
#include "tests/mpi/mpi_compare.hpp"
#include "vm/config.hpp"
#include "vm/error.hpp"
#include "vm/instruction.hpp"

using namespace arrvm;
using arrvm::mpitest::first_difference;

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const uint64_t first = argc > 1 ? std::stoull(argv[1]) : 0;
  const uint64_t count = argc > 2 ? std::stoull(argv[2]) : 300;
  int failures = 0, errors_agree = 0;
  {
    Config base = Config::from_env();
    // A memory cache by default (no disk state); ARRVM_CACHE=on with
    // ARRVM_CACHE_DIR shares compiled kernels between ranks and runs (node cpu).
    if (std::getenv("ARRVM_CACHE") == nullptr) base.cache = arrvm::CacheMode::Memory;
    Config ref_config = base;
    ref_config.backend = "ref";
    Config mpi_config = base;
    mpi_config.backend = "mpi";
    // Greedy's partitions under the mpi backend's own fusion rules.
    FusionStage fusion(base, make_backend(mpi_config)->fusion_rules());
    testing::RandomProgramOptions options;
    options.max_instructions = 16;
    options.filters = false;  // the mpi backend does not run compress
    options.complex = true;
    for (uint64_t seed = first; seed < first + count; ++seed) {
      const testing::RandomProgram p = testing::random_program(seed, options);
      Profile profile;
      const Partition partitions[2] = {singleton_partition(p.batch.size()),
                                       fusion.partition(p.batch, profile)};
      for (int k = 0; k < 2; ++k) {
        std::vector<std::vector<uint8_t>> want, got;
        std::string want_error, got_error;
        try {
          auto ref = make_backend(ref_config);
          want = testing::run_program(*ref, p, partitions[k]);
        } catch (const Error& e) {
          want_error = e.what();
        }
        try {
          auto mpi = make_backend(mpi_config);
          got = testing::run_program(*mpi, p, partitions[k]);
        } catch (const Error& e) {
          got_error = e.what();
        }
        const char* part = k == 0 ? "singleton" : "greedy";
        if (!want_error.empty() || !got_error.empty()) {
          if (want_error.empty() != got_error.empty()) {
            ++failures;
            std::fprintf(stderr, "rank %d seed %llu (%s): ref error '%s', mpi error '%s'\n", rank,
                         static_cast<unsigned long long>(seed), part, want_error.c_str(), got_error.c_str());
          } else {
            ++errors_agree;
          }
          continue;
        }
        std::size_t j = 0;
        for (const testing::BaseSpec& b : p.bases) {
          if (b.freed) continue;
          const int64_t at = first_difference(b.dtype, got[j], want[j]);
          if (at >= 0) {
            ++failures;
            std::fprintf(stderr, "rank %d seed %llu (%s): base b%lld differs at element %lld\n", rank,
                         static_cast<unsigned long long>(seed), part, static_cast<long long>(b.id),
                         static_cast<long long>(at));
            if (failures < 4) {
              for (const Instruction& in : p.batch) std::fprintf(stderr, "    %s\n", to_string(in).c_str());
            }
            break;
          }
          ++j;
        }
      }
    }
  }
  int total = 0;
  MPI_Allreduce(&failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0) {
    std::printf(
        "mpi random programs: seeds %llu..%llu on %d ranks, 2 partitions each: %d failures (%d runs raised "
        "the same error on both)\n",
        static_cast<unsigned long long>(first), static_cast<unsigned long long>(first + count - 1), size,
        total, errors_agree);
  }
  MPI_Finalize();
  return total == 0 ? 0 : 1;
}
