// A trace on the mpi backend against ref, run under mpirun: every event of
// the trace goes to two Runtimes (ref, and mpi on ARRVM_MPI_NODE_BACKEND),
// every sync and, at the end, every base the trace leaves live are read from
// both and compared (the trace format's tolerances: docs/reference.md). Unlike `arrvm replay`, this
// checks traces whose syncs carry no contents (tests/data/fig3.trace) and
// the final state of every array, not only what the program read.
//
//   mpirun -np N arrvm_mpi_trace_check TRACE...
#include <mpi.h>

#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "engine/runtime.hpp"
#include "tests/mpi/mpi_compare.hpp"
#include "vm/config.hpp"
#include "vm/error.hpp"
#include "vm/trace.hpp"

namespace {

using namespace arrvm;

struct Pair {
  BaseId ref = -1, mpi = -1;
  DType dtype = DType::Float64;
  int64_t nelem = 0;
};

// Reads a base from both runtimes; a description of the difference, or "".
std::string compare(Runtime& ref, Runtime& mpi, const Pair& b, BaseId trace_id) {
  const std::size_t bytes = static_cast<std::size_t>(b.nelem) * dtype_size(b.dtype);
  std::vector<uint8_t> want(bytes), got(bytes);
  std::string want_error, got_error;
  try {
    ref.read(b.ref, want.data(), bytes);
  } catch (const Error& e) {
    want_error = e.what();
  }
  try {
    mpi.read(b.mpi, got.data(), bytes);
  } catch (const Error& e) {
    got_error = e.what();
  }
  const std::string what = "base " + std::to_string(trace_id);
  if (want_error != got_error)
    return what + ": ref error '" + want_error + "', mpi error '" + got_error + "'";
  if (!want_error.empty()) return "";
  const int64_t at = mpitest::first_difference(b.dtype, got, want);
  return at < 0 ? "" : what + " differs at element " + std::to_string(at);
}

// Returns the number of differences (0: the trace matches).
int check_trace(const std::string& path, int rank) {
  Config base = Config::from_env();
  Config ref_config = base, mpi_config = base;
  ref_config.backend = "ref";
  mpi_config.backend = "mpi";
  Runtime ref(ref_config), mpi(mpi_config);
  std::map<BaseId, Pair> bases;
  int differences = 0, syncs = 0;
  auto find = [&](BaseId id) -> Pair& {
    auto it = bases.find(id);
    if (it == bases.end()) throw Error("base " + std::to_string(id) + " has no base line before it");
    return it->second;
  };
  auto report = [&](const std::string& d, int64_t line) {
    if (d.empty()) return;
    ++differences;
    if (differences <= 5)
      std::fprintf(stderr, "rank %d: %s:%lld: %s\n", rank, path.c_str(), static_cast<long long>(line),
                   d.c_str());
  };
  TraceReader reader(path);
  TraceEvent ev;
  while (reader.next(&ev)) {
    switch (ev.kind) {
      case TraceEvent::Kind::Base: {
        Pair p;
        p.dtype = ev.dtype;
        p.nelem = ev.nelem;
        p.ref = ref.new_base(ev.dtype, ev.nelem);
        p.mpi = mpi.new_base(ev.dtype, ev.nelem);
        bases[ev.base] = p;
        break;
      }
      case TraceEvent::Kind::Data: {
        const Pair& p = find(ev.base);
        ref.write(p.ref, ev.bytes.data(), ev.bytes.size());
        mpi.write(p.mpi, ev.bytes.data(), ev.bytes.size());
        break;
      }
      case TraceEvent::Kind::Instr: {
        Instruction a = ev.instr, b = ev.instr;
        a.out.base = find(ev.instr.out.base).ref;
        b.out.base = find(ev.instr.out.base).mpi;
        for (int i = 0; i < a.nin; ++i) {
          if (a.in[i].is_const) continue;
          a.in[i].view.base = find(ev.instr.in[i].view.base).ref;
          b.in[i].view.base = find(ev.instr.in[i].view.base).mpi;
        }
        ref.issue(a);
        mpi.issue(b);
        if (ev.instr.op == Opcode::Free) bases.erase(ev.instr.out.base);
        break;
      }
      case TraceEvent::Kind::Sync:
        ++syncs;
        report(compare(ref, mpi, find(ev.base), ev.base), ev.line);
        break;
    }
  }
  for (const auto& [id, p] : bases) report(compare(ref, mpi, p, id), 0);
  if (rank == 0) {
    std::printf("%s %s: %d syncs and %zu live bases at the end compared, %d differences\n",
                differences ? "FAIL" : "ok  ", path.c_str(), syncs, bases.size(), differences);
  }
  return differences;
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  int local = 0;
  for (int i = 1; i < argc; ++i) {
    try {
      local += check_trace(argv[i], rank);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "rank %d: %s: %s\n", rank, argv[i], e.what());
      ++local;
    }
  }
  int total = 0;
  MPI_Allreduce(&local, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  MPI_Finalize();
  return total == 0 ? 0 : 1;
}
