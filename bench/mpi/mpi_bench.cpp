// Measurements of the mpi backend (backends/mpi/README.md), run under mpirun
// with ARRVM_BACKEND=mpi:
//
//   mpi_bench bytes N    heat equation on an N x N grid: bytes each rank
//                        sends and receives per Jacobi sweep (the difference
//                        between a run of 12 and one of 2 sweeps, over 10),
//                        against the halo rows it needs; then the bytes of an
//                        elementwise program on aligned arrays.
//   mpi_bench memory N           two arrays of N float64 and a checked sum (see memory()).
//   mpi_bench weak NAME N ITER   wall time of one benchmark program (rank 0 prints).
#include <mpi.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <string>
#include <vector>

#include "arrvm/arrvm.hpp"
#include "backends/mpi/mpi_backend.hpp"
#include "engine/runtime.hpp"
#include "programs/programs.hpp"

namespace {

using namespace arrvm;

MpiBackendStats stats_of(const Vm& vm) {
  const auto s = mpi_backend_stats(vm.runtime().backend());
  if (!s) {
    std::fprintf(stderr, "mpi_bench: run with ARRVM_BACKEND=mpi\n");
    std::exit(2);
  }
  return *s;
}

// Bytes (sent, received) of a heat-equation run of `sweeps` sweeps.
std::pair<double, double> heat_bytes(int64_t n, int64_t sweeps) {
  Vm vm({});
  bench::heat_equation(vm, bench::Size{n, sweeps});
  const MpiBackendStats s = stats_of(vm);
  return {static_cast<double>(s.bytes_sent), static_cast<double>(s.bytes_received)};
}

int bytes(int64_t n, int rank, int size) {
  const auto [s2, r2] = heat_bytes(n, 2);
  const auto [s12, r12] = heat_bytes(n, 12);
  const double sent = (s12 - s2) / 10, received = (r12 - r2) / 10;
  // The halo a rank needs per sweep: the N interior elements of the grid row
  // just above and just below its part, for each neighbour it has.
  const int neighbours = (rank > 0) + (rank < size - 1);
  const double halo = 8.0 * n * neighbours;
  double mine[4] = {sent, received, halo, 0}, all[64 * 4];
  MPI_Gather(mine, 4, MPI_DOUBLE, all, 4, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  // An elementwise program on aligned arrays: no bytes at all.
  double elementwise = 0;
  {
    Vm vm({});
    const MpiBackendStats before = stats_of(vm);
    Array a = Array::ones({n, n}, DType::Float64, vm);
    Array b = Array::ones({n, n}, DType::Float64, vm);
    Array c = a * b + 2.0 * a;
    c.assign(c * 3.0 - b);
    vm.flush();
    const MpiBackendStats after = stats_of(vm);
    elementwise = static_cast<double>(after.bytes_sent - before.bytes_sent + after.bytes_received -
                                      before.bytes_received);
  }
  double worst = 0;
  MPI_Reduce(&elementwise, &worst, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  if (rank == 0) {
    std::printf("heat equation N=%lld on %d ranks, bytes per sweep per rank:\n", static_cast<long long>(n),
                size);
    std::printf("  rank  sent      received  halo needed  received/halo\n");
    for (int q = 0; q < size; ++q) {
      const double* x = all + 4 * q;
      std::printf("  %4d  %8.0f  %8.0f  %11.0f  %.4f\n", q, x[0], x[1], x[2], x[2] > 0 ? x[1] / x[2] : 0.0);
    }
    std::printf(
        "elementwise program on aligned %lldx%lld arrays: %.0f bytes sent+received (max over ranks)\n",
        static_cast<long long>(n), static_cast<long long>(n), worst);
  }
  return 0;
}

// CPU seconds of this process (all its threads): with ranks oversubscribed
// on a shared machine, the work a rank does, apart from the wall clock.
double cpu_seconds() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

int weak(const std::string& name, int64_t n, int64_t iterations, int rank, int size) {
  const bench::Program* p = bench::find_program(name);
  if (p == nullptr) {
    std::fprintf(stderr, "mpi_bench: unknown program %s\n", name.c_str());
    return 2;
  }
  Vm vm({});
  p->run(vm, bench::Size{n, std::min<int64_t>(iterations, 1)});  // warm: compile the kernels
  MPI_Barrier(MPI_COMM_WORLD);
  const MpiBackendStats before = stats_of(vm);
  const auto t0 = std::chrono::steady_clock::now();
  const double c0 = cpu_seconds();
  const double checksum = p->run(vm, bench::Size{n, iterations});
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const double cpu = cpu_seconds() - c0;
  const MpiBackendStats st = stats_of(vm);
  // Per rank, over the timed run: seconds, bytes moved (sent + received),
  // point-to-point messages sent, collectives, seconds waiting in MPI.
  double mine[6] = {
      s,
      cpu,
      static_cast<double>(st.bytes_sent - before.bytes_sent + st.bytes_received - before.bytes_received),
      static_cast<double>(st.messages_sent - before.messages_sent),
      static_cast<double>(st.collectives - before.collectives),
      st.wait_s - before.wait_s};
  double worst[6];
  MPI_Reduce(mine, worst, 6, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  if (rank == 0) {
    const double it = static_cast<double>(iterations);
    std::printf(
        "%s ranks=%d n=%lld iterations=%lld time=%.4f s cpu=%.4f s checksum=%.12g | max over ranks per "
        "iteration: bytes=%.0f messages=%.1f collectives=%.1f wait=%.5f s\n",
        name.c_str(), size, static_cast<long long>(n), static_cast<long long>(iterations), worst[0], worst[1],
        checksum, worst[2] / it, worst[3] / it, worst[4] / it, worst[5] / it);
  }
  return 0;
}

// a = arange(n) (an int64 range cast to float64), b = 2a+1 and the sum of b,
// checked against its closed form n^2: three bases of 8n bytes live at the
// peak (24n bytes). Run with ARRVM_MEM_LIMIT at a quarter of that (plus a
// little for the 0-d result): 4 ranks fit, 1 rank raises out of memory.
int memory(int64_t n, int rank) {
  try {
    Vm vm({});
    Array a = Array::arange(n, DType::Float64, vm);
    Array b = a * 2.0 + 1.0;
    const double s = b.sum().item<double>();
    const double want = static_cast<double>(n) * static_cast<double>(n);
    const MpiBackendStats st = stats_of(vm);
    if (rank == 0) {
      std::printf(
          "memory: n=%lld, arrays %lld bytes at the peak, %llu bytes charged at peak on rank 0; sum %.17g, "
          "expected %.17g: %s\n",
          static_cast<long long>(n), static_cast<long long>(24 * n),
          static_cast<unsigned long long>(st.bytes_charged_peak), s, want, s == want ? "verified" : "WRONG");
    }
    return s == want ? 0 : 1;
  } catch (const Error& e) {
    if (rank == 0) std::printf("memory: n=%lld: error: %s\n", static_cast<long long>(n), e.what());
    return 3;
  }
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int rc = 2;
  const std::string cmd = argc > 1 ? argv[1] : "";
  if (cmd == "bytes" && argc == 3) {
    rc = bytes(std::stoll(argv[2]), rank, size);
  } else if (cmd == "memory" && argc == 3) {
    rc = memory(std::stoll(argv[2]), rank);
  } else if (cmd == "weak" && argc == 5) {
    rc = weak(argv[2], std::stoll(argv[3]), std::stoll(argv[4]), rank, size);
  } else if (rank == 0) {
    std::fprintf(stderr, "usage: mpi_bench bytes N | mpi_bench weak NAME N ITERATIONS\n");
  }
  MPI_Finalize();
  return rc;
}
