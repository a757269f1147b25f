// Run-time failures on the mpi backend (docs/semantics.md), run under mpirun:
// a gather or scatter index out of range, found on one rank or on several,
// poisons the output on every rank with the same error (ref's message, the
// first bad index in row-major order), what is computed from it is poisoned
// too, unrelated arrays stay readable and right, and the VM goes on. Each
// case runs under the singleton and the greedy partition and on node backends
// cpu and ref; every rank checks, and the exit status is non-zero if any
// rank saw a difference.
//
//   mpirun -np N arrvm_mpi_poison_test
#include <mpi.h>

#include <cstdint>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "engine/runtime.hpp"
#include "vm/config.hpp"
#include "vm/error.hpp"

namespace {

using namespace arrvm;

int rank_ = 0, failures_ = 0;

void check(bool ok, const std::string& what) {
  if (!ok) {
    ++failures_;
    std::fprintf(stderr, "rank %d: FAILED: %s\n", rank_, what.c_str());
  }
}

View vec(BaseId b, int64_t n) {
  return make_view(b, 0, {n}, {1});
}

Operand konst(double x) {
  Scalar s;
  s.dtype = DType::Float64;
  s.f = x;
  return Operand::of(s);
}

Instruction make(Opcode op, const View& out, std::vector<Operand> ins, int axis = 0) {
  Instruction i;
  i.op = op;
  i.out = out;
  for (const Operand& o : ins) i.add_input(o);
  i.axis = axis;
  return i;
}

std::vector<double> read_f64(Runtime& rt, BaseId id, int64_t n) {
  std::vector<double> v(static_cast<std::size_t>(n));
  rt.read(id, v.data(), v.size() * sizeof(double));
  return v;
}

// The error reading `id` raises ("" if none).
std::string error_reading(Runtime& rt, BaseId id, int64_t n) {
  try {
    read_f64(rt, id, n);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

// Whether every rank holds the same string.
bool same_on_all_ranks(const std::string& s) {
  uint64_t h = 1469598103934665603ull;  // FNV-1a
  for (char c : s) h = (h ^ static_cast<uint8_t>(c)) * 1099511628211ull;
  uint64_t lo = 0, hi = 0;
  MPI_Allreduce(&h, &lo, 1, MPI_UINT64_T, MPI_MIN, MPI_COMM_WORLD);
  MPI_Allreduce(&h, &hi, 1, MPI_UINT64_T, MPI_MAX, MPI_COMM_WORLD);
  return lo == hi;
}

bool contains(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

// A gather from a 40-element source with a 64-element index array whose bad
// entries sit at positions 41 (value 40) and 57 (value -3): with 2 or more
// ranks they lie on ranks other than 0, and on different ranks from 3 on.
void gather_case(const Config& config, const std::string& label) {
  Runtime rt(config);
  const int64_t n = 40, m = 64;
  const BaseId src = rt.new_base(DType::Float64, n), idx = rt.new_base(DType::Int64, m),
               out = rt.new_base(DType::Float64, m), dep = rt.new_base(DType::Float64, m),
               other = rt.new_base(DType::Float64, n), total = rt.new_base(DType::Float64, 1);
  std::vector<double> s(n);
  for (int64_t i = 0; i < n; ++i) s[i] = 1.5 * static_cast<double>(i);
  std::vector<int64_t> iv(m);
  for (int64_t i = 0; i < m; ++i) iv[i] = (i * 7) % n;
  iv[41] = 40;
  iv[57] = -3;
  rt.write(src, s.data(), n * 8);
  rt.write(idx, iv.data(), m * 8);
  rt.issue(make(Opcode::Gather, vec(out, m), {Operand::of(vec(src, n)), Operand::of(vec(idx, m))}));
  rt.issue(make(Opcode::Multiply, vec(dep, m), {Operand::of(vec(out, m)), konst(2.0)}));
  rt.issue(make(Opcode::Add, vec(other, n), {Operand::of(vec(src, n)), konst(10.0)}));
  rt.issue(make(Opcode::AddReduce, make_view(total, 0, {}, {}), {Operand::of(vec(other, n))}));
  // The unrelated arrays first: right, and no error surfaces.
  std::vector<double> want_other(n);
  double want_total = 0;
  for (int64_t i = 0; i < n; ++i) want_total += (want_other[i] = s[i] + 10.0);
  check(read_f64(rt, other, n) == want_other, label + ": unrelated array after a failed gather");
  check(read_f64(rt, total, 1) == std::vector<double>{want_total},
        label + ": unrelated sum after a failed gather");
  const std::string e_out = error_reading(rt, out, m), e_dep = error_reading(rt, dep, m);
  check(contains(e_out, "gather: index 40 out of range [0, 40)"), label + ": gather error '" + e_out + "'");
  check(contains(e_dep, "gather: index 40 out of range [0, 40)"),
        label + ": dependent error '" + e_dep + "'");
  check(same_on_all_ranks(e_out) && same_on_all_ranks(e_dep), label + ": the error differs between ranks");
  check(rt.is_poisoned(out) && rt.is_poisoned(dep) && !rt.is_poisoned(src) && !rt.is_poisoned(other),
        label + ": poisoned set");
  check(read_f64(rt, src, n) == s, label + ": the gather's source");
  // Computing from the poisoned array poisons; overwriting all of it cures it.
  const BaseId later = rt.new_base(DType::Float64, m);
  rt.issue(make(Opcode::Sqrt, vec(later, m), {Operand::of(vec(dep, m))}));
  check(!error_reading(rt, later, m).empty(), label + ": computed from a poisoned array");
  rt.issue(make(Opcode::Identity, vec(out, m), {konst(5.0)}));
  check(read_f64(rt, out, m) == std::vector<double>(m, 5.0), label + ": cured by a full overwrite");
  // With the indices fixed the same gather runs and is right.
  iv[41] = 3;
  iv[57] = 39;
  rt.write(idx, iv.data(), m * 8);
  rt.issue(make(Opcode::Gather, vec(out, m), {Operand::of(vec(src, n)), Operand::of(vec(idx, m))}));
  std::vector<double> want_out(m);
  for (int64_t i = 0; i < m; ++i) want_out[i] = s[iv[i]];
  check(read_f64(rt, out, m) == want_out, label + ": the gather with good indices");
}

// A scatter with a bad index only at the end (the last rank's part): its
// target is poisoned on every rank; the values array stays readable.
void scatter_case(const Config& config, const std::string& label) {
  Runtime rt(config);
  const int64_t n = 30, m = 20;
  const BaseId vals = rt.new_base(DType::Float64, m), idx = rt.new_base(DType::Int64, m),
               target = rt.new_base(DType::Float64, n);
  std::vector<double> v(m), t(n, -1.0);
  std::vector<int64_t> iv(m);
  for (int64_t i = 0; i < m; ++i) {
    v[i] = static_cast<double>(i) + 0.25;
    iv[i] = n - 1 - i;
  }
  iv[m - 1] = n + 5;
  rt.write(vals, v.data(), m * 8);
  rt.write(idx, iv.data(), m * 8);
  rt.write(target, t.data(), n * 8);
  rt.issue(make(Opcode::Scatter, vec(target, n), {Operand::of(vec(vals, m)), Operand::of(vec(idx, m))}));
  const std::string e = error_reading(rt, target, n);
  check(contains(e, "scatter: index 35 out of range [0, 30)"), label + ": scatter error '" + e + "'");
  check(same_on_all_ranks(e), label + ": the scatter error differs between ranks");
  check(read_f64(rt, vals, m) == v, label + ": the scatter's values");
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int cases = 0;
  for (const char* node : {"cpu", "ref"}) {
    for (const char* fuser : {"singleton", "greedy"}) {
      Config c = Config::from_env();
      c.backend = "mpi";
      c.mpi_node_backend = node;
      c.fuser = fuser;
      const std::string label = std::string("node ") + node + ", " + fuser;
      try {
        gather_case(c, label);
        scatter_case(c, label);
      } catch (const std::exception& e) {
        check(false, label + ": unexpected exception: " + e.what());
      }
      cases += 2;
    }
  }
  int total = 0;
  MPI_Allreduce(&failures_, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank_ == 0) std::printf("mpi poison test on %d ranks: %d cases, %d failures\n", size, cases, total);
  MPI_Finalize();
  return total == 0 ? 0 : 1;
}
