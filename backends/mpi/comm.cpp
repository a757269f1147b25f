#include "backends/mpi/comm.hpp"

#include <cstdio>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <string>

#include "backends/ref/scalar_ops.hpp"
#include "vm/error.hpp"

namespace arrvm::mpi {

namespace {

void check(int rc, const char* what) {
  if (rc == MPI_SUCCESS) return;
  char msg[MPI_MAX_ERROR_STRING];
  int len = 0;
  MPI_Error_string(rc, msg, &len);
  throw BackendError(std::string("mpi: ") + what + " failed: " + std::string(msg, len), "");
}

void finalize_at_exit() {
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (!finalized) MPI_Finalize();
}

class WaitTimer {
 public:
  explicit WaitTimer(MpiBackendStats* s) : s_(s), t0_(std::chrono::steady_clock::now()) {}
  ~WaitTimer() {
    s_->wait_s += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0_).count();
  }

 private:
  MpiBackendStats* s_;
  std::chrono::steady_clock::time_point t0_;
};

// The MPI reduction function of (Op, T): inout[i] = in[i] (op) inout[i].
template <Opcode Op, typename T>
void combine(void* in, void* inout, int* len, MPI_Datatype*) {
  const T* a = static_cast<const T*>(in);
  T* b = static_cast<T*>(inout);
  for (int i = 0; i < *len; ++i) b[i] = ref::Reducer<Op>::template combine<T>(a[i], b[i]);
}

template <Opcode Op>
MPI_User_function* function_for(DType dtype) {
  return visit_dtype(dtype, [](auto t) -> MPI_User_function* {
    using T = decltype(t);
    constexpr bool logical = Op == Opcode::LogicalAndReduce || Op == Opcode::LogicalOrReduce;
    if constexpr (logical != std::is_same_v<T, bool>) {
      return nullptr;
    } else {
      return &combine<Op, T>;
    }
  });
}

}  // namespace

void Comm::abort_all(const std::string& why) const {
  std::fprintf(
      stderr,
      "[arrvm error] mpi backend: rank %d of %d: %s; aborting every rank (an error on some ranks only "
      "cannot be contained)\n",
      rank_, size_, why.c_str());
  std::fflush(stderr);
  MPI_Abort(MPI_COMM_WORLD, 1);
  std::abort();  // (MPI_Abort does not return)
}

Comm::Comm() {
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (!initialized) {
    int provided = 0;
    check(MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided), "MPI_Init_thread");
    std::atexit(finalize_at_exit);
  }
  check(MPI_Comm_dup(MPI_COMM_WORLD, &comm_), "MPI_Comm_dup");
  MPI_Comm_set_errhandler(comm_, MPI_ERRORS_RETURN);
  MPI_Comm_rank(comm_, &rank_);
  MPI_Comm_size(comm_, &size_);
  stats_.rank = rank_;
  stats_.ranks = size_;
}

Comm::~Comm() {
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (!finalized && comm_ != MPI_COMM_NULL) MPI_Comm_free(&comm_);
}

MPI_Datatype Comm::element_type(DType dtype) {
  static std::map<std::size_t, MPI_Datatype> types;
  const std::size_t size = dtype_size(dtype);
  auto it = types.find(size);
  if (it != types.end()) return it->second;
  MPI_Datatype t;
  check(MPI_Type_contiguous(static_cast<int>(size), MPI_BYTE, &t), "MPI_Type_contiguous");
  check(MPI_Type_commit(&t), "MPI_Type_commit");
  types.emplace(size, t);
  return t;
}

MPI_Op Comm::op_for(Opcode op, DType dtype) {
  static std::map<std::pair<int, int>, MPI_Op> ops;
  const auto key = std::make_pair(static_cast<int>(op), static_cast<int>(dtype));
  auto it = ops.find(key);
  if (it != ops.end()) return it->second;
  MPI_User_function* f = nullptr;
  switch (op) {
    case Opcode::AddReduce:
    case Opcode::AddAccumulate:
      f = function_for<Opcode::AddReduce>(dtype);
      break;
    case Opcode::MultiplyReduce:
    case Opcode::MultiplyAccumulate:
      f = function_for<Opcode::MultiplyReduce>(dtype);
      break;
    case Opcode::MinimumReduce:
    case Opcode::MinimumAccumulate:
      f = function_for<Opcode::MinimumReduce>(dtype);
      break;
    case Opcode::MaximumReduce:
    case Opcode::MaximumAccumulate:
      f = function_for<Opcode::MaximumReduce>(dtype);
      break;
    case Opcode::LogicalAndReduce:
      f = function_for<Opcode::LogicalAndReduce>(dtype);
      break;
    case Opcode::LogicalOrReduce:
      f = function_for<Opcode::LogicalOrReduce>(dtype);
      break;
    default:
      break;
  }
  if (f == nullptr) {
    throw InternalError("mpi: no combine function for " + std::string(opcode_name(op)) + " on " +
                        std::string(dtype_name(dtype)));
  }
  MPI_Op m;
  check(MPI_Op_create(f, 1, &m), "MPI_Op_create");
  ops.emplace(key, m);
  return m;
}

void Comm::exchange(const std::vector<std::vector<uint8_t>>& send, std::vector<std::vector<uint8_t>>* recv) {
  constexpr int kTag = 16;
  std::vector<MPI_Request> reqs;
  for (int q = 0; q < size_; ++q) {
    if (q == rank_ || (*recv)[q].empty()) continue;
    reqs.emplace_back();
    check(MPI_Irecv((*recv)[q].data(), static_cast<int>((*recv)[q].size()), MPI_BYTE, q, kTag, comm_,
                    &reqs.back()),
          "MPI_Irecv");
    stats_.bytes_received += (*recv)[q].size();
    ++stats_.messages_received;
  }
  for (int q = 0; q < size_; ++q) {
    if (q == rank_ || send[q].empty()) continue;
    reqs.emplace_back();
    check(MPI_Isend(send[q].data(), static_cast<int>(send[q].size()), MPI_BYTE, q, kTag, comm_, &reqs.back()),
          "MPI_Isend");
    stats_.bytes_sent += send[q].size();
    ++stats_.messages_sent;
  }
  if (reqs.empty()) return;
  WaitTimer t(&stats_);
  check(MPI_Waitall(static_cast<int>(reqs.size()), reqs.data(), MPI_STATUSES_IGNORE), "MPI_Waitall");
}

void Comm::allreduce(void* buf, int64_t n, DType dtype, Opcode op) {
  if (size_ == 1 || n == 0) return;
  const uint64_t bytes = static_cast<uint64_t>(n) * dtype_size(dtype);
  stats_.bytes_sent += bytes;
  stats_.bytes_received += bytes;
  ++stats_.collectives;
  WaitTimer t(&stats_);
  check(MPI_Allreduce(MPI_IN_PLACE, buf, static_cast<int>(n), element_type(dtype), op_for(op, dtype), comm_),
        "MPI_Allreduce");
}

void Comm::exscan(void* buf, int64_t n, DType dtype, Opcode op) {
  if (size_ == 1 || n == 0) return;
  const std::size_t bytes = static_cast<std::size_t>(n) * dtype_size(dtype);
  std::vector<uint8_t> out(bytes);
  stats_.bytes_sent += bytes;
  stats_.bytes_received += bytes;
  ++stats_.collectives;
  {
    WaitTimer t(&stats_);
    check(MPI_Exscan(buf, out.data(), static_cast<int>(n), element_type(dtype), op_for(op, dtype), comm_),
          "MPI_Exscan");
  }
  if (rank_ != 0 && bytes > 0) std::memcpy(buf, out.data(), bytes);
}

void Comm::allgatherv(const void* mine, void* dst, const std::vector<int64_t>& counts, DType dtype) {
  const std::size_t size = dtype_size(dtype);
  if (size_ == 1) {
    if (counts[0] > 0) std::memcpy(dst, mine, static_cast<std::size_t>(counts[0]) * size);
    return;
  }
  std::vector<int> c(size_), displ(size_);
  int64_t total = 0;
  for (int q = 0; q < size_; ++q) {
    if (counts[q] > INT32_MAX || total > INT32_MAX) throw Error("mpi: a base too large for one Allgatherv");
    c[q] = static_cast<int>(counts[q]);
    displ[q] = static_cast<int>(total);
    total += counts[q];
  }
  stats_.bytes_sent += static_cast<uint64_t>(counts[rank_]) * size * (size_ - 1);
  stats_.bytes_received += static_cast<uint64_t>(total - counts[rank_]) * size;
  ++stats_.collectives;
  WaitTimer t(&stats_);
  const MPI_Datatype type = element_type(dtype);
  check(MPI_Allgatherv(mine, c[rank_], type, dst, c.data(), displ.data(), type, comm_), "MPI_Allgatherv");
}

std::vector<int64_t> Comm::alltoall(const std::vector<int64_t>& send) {
  std::vector<int64_t> recv(size_);
  if (size_ == 1) return send;
  stats_.bytes_sent += 8 * (size_ - 1);
  stats_.bytes_received += 8 * (size_ - 1);
  ++stats_.collectives;
  WaitTimer t(&stats_);
  check(MPI_Alltoall(send.data(), 1, MPI_INT64_T, recv.data(), 1, MPI_INT64_T, comm_), "MPI_Alltoall");
  return recv;
}

void Comm::alltoallv(const std::vector<std::vector<uint8_t>>& send, std::vector<std::vector<uint8_t>>* recv) {
  if (size_ == 1) {
    (*recv)[0] = send[0];
    return;
  }
  std::vector<int> sc(size_), sd(size_), rc(size_), rd(size_);
  std::vector<uint8_t> sbuf, rbuf;
  for (int q = 0; q < size_; ++q) {
    sc[q] = static_cast<int>(send[q].size());
    sd[q] = static_cast<int>(sbuf.size());
    sbuf.insert(sbuf.end(), send[q].begin(), send[q].end());
    rc[q] = static_cast<int>((*recv)[q].size());
    rd[q] = q == 0 ? 0 : rd[q - 1] + rc[q - 1];
    if (q != rank_) {
      stats_.bytes_sent += send[q].size();
      stats_.bytes_received += (*recv)[q].size();
    }
  }
  rbuf.resize(static_cast<std::size_t>(rd[size_ - 1]) + rc[size_ - 1]);
  ++stats_.collectives;
  {
    WaitTimer t(&stats_);
    check(MPI_Alltoallv(sbuf.data(), sc.data(), sd.data(), MPI_BYTE, rbuf.data(), rc.data(), rd.data(),
                        MPI_BYTE, comm_),
          "MPI_Alltoallv");
  }
  for (int q = 0; q < size_; ++q) {
    if (!(*recv)[q].empty()) std::memcpy((*recv)[q].data(), rbuf.data() + rd[q], (*recv)[q].size());
  }
}

}  // namespace arrvm::mpi
