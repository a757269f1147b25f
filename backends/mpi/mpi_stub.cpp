// Built instead of the mpi backend when CMake found no MPI.
#include "backends/mpi/mpi_backend.hpp"

#include "vm/error.hpp"

namespace arrvm {

std::unique_ptr<Backend> make_mpi_backend(const Config&) {
  throw Error(
      "backend 'mpi' is not available: libarrvm was built without MPI (install libopenmpi-dev and "
      "reconfigure)");
}

std::optional<MpiBackendStats> mpi_backend_stats(const Backend&) {
  return std::nullopt;
}

}  // namespace arrvm
