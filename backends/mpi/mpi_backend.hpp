// The mpi backend: SPMD execution of the bytecode over MPI ranks. Every rank
// runs the same program; each base array is block-distributed along its flat
// index; each rank computes the part of every instruction whose output it
// owns on a node backend (cpu by default, ARRVM_MPI_NODE_BACKEND), after
// fetching the input elements it lacks from their owners. See
// backends/mpi/README.md for the design and its measurements.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>

#include "backends/backend.hpp"

namespace arrvm {

// Communication of one rank so far. Point-to-point traffic is counted
// exactly; a collective counts the payload this rank gives to and takes from
// the others (Allreduce/Exscan: the buffer; Allgatherv: its part times the
// other ranks, and the others' parts).
struct MpiBackendStats {
  int rank = 0, ranks = 1;
  uint64_t bytes_sent = 0, bytes_received = 0;
  uint64_t messages_sent = 0, messages_received = 0;  // point-to-point
  uint64_t collectives = 0;
  double wait_s = 0;           // inside MPI waits and collectives
  uint64_t bytes_charged = 0;  // owned storage counted against ARRVM_MEM_LIMIT
  uint64_t bytes_charged_peak = 0;
};

// Throws Error when libarrvm was built without MPI.
std::unique_ptr<Backend> make_mpi_backend(const Config& config);

// The statistics of an mpi backend (the counters of Backend::stats(),
// typed); nullopt for any other backend.
std::optional<MpiBackendStats> mpi_backend_stats(const Backend& backend);

}  // namespace arrvm
