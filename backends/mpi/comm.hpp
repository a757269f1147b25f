// The MPI calls of the mpi backend, each counted (bytes, messages, time
// waiting) into MpiBackendStats: point-to-point exchange of byte buffers,
// Allreduce/Exscan with the bytecode's reduction semantics, Allgatherv and
// Alltoallv. Every call is collective over the ranks that take part; the
// backend makes all ranks call them in the same order (SPMD).
#pragma once

#ifndef OMPI_SKIP_MPICXX
#define OMPI_SKIP_MPICXX 1  // the C API only
#endif
#include <mpi.h>

#include <cstdint>
#include <string>
#include <vector>

#include "backends/mpi/mpi_backend.hpp"
#include "vm/dtype.hpp"
#include "vm/opcode.hpp"

namespace arrvm::mpi {

class Comm {
 public:
  Comm();  // initializes MPI if nobody has (finalized at exit), duplicates MPI_COMM_WORLD
  ~Comm();
  Comm(const Comm&) = delete;
  Comm& operator=(const Comm&) = delete;

  int rank() const { return rank_; }
  int size() const { return size_; }

  // Ends every rank of the job (MPI_Abort on MPI_COMM_WORLD) after printing
  // `why` for this rank: an error raised on some ranks only must not leave
  // the others waiting in a collective that never completes.
  [[noreturn]] void abort_all(const std::string& why) const;
  MpiBackendStats& stats() { return stats_; }
  const MpiBackendStats& stats() const { return stats_; }

  // send[q] goes to rank q, recv[q] (already sized) comes from rank q; empty
  // buffers are not sent (no message). send[rank()] and recv[rank()] are ignored.
  void exchange(const std::vector<std::vector<uint8_t>>& send, std::vector<std::vector<uint8_t>>* recv);

  // In place over n elements of dtype, combined as the reduction `op` does
  // (add/multiply wrap on integers, minimum/maximum propagate NaN).
  void allreduce(void* buf, int64_t n, DType dtype, Opcode op);
  // Exclusive prefix: buf becomes the combination over the lower ranks
  // (rank 0: unchanged).
  void exscan(void* buf, int64_t n, DType dtype, Opcode op);
  // Every rank's part (counts[q] elements of dtype) into dst, in rank order.
  void allgatherv(const void* mine, void* dst, const std::vector<int64_t>& counts, DType dtype);
  // Alltoall of one int64 per rank.
  std::vector<int64_t> alltoall(const std::vector<int64_t>& send);
  // Variable-size byte exchange with every rank (sizes known on both sides).
  void alltoallv(const std::vector<std::vector<uint8_t>>& send, std::vector<std::vector<uint8_t>>* recv);

 private:
  MPI_Datatype element_type(DType dtype);
  MPI_Op op_for(Opcode op, DType dtype);

  MPI_Comm comm_ = MPI_COMM_NULL;
  int rank_ = 0, size_ = 1;
  MpiBackendStats stats_;
};

}  // namespace arrvm::mpi
