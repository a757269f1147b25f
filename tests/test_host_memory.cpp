// Host memory of the cpu backend (backends/host_memory.hpp): freed buffers
// are reused for bases of the same rounded size (large ones also for a
// base up to a quarter smaller), small ones from a free
// list per size (at most kSmallPerSize each), large ones from the pool; a
// pooled buffer keeps its own size; temporaries that grow a little get a
// quarter more room; a reused buffer reads as zeros until written, as a new
// one does.
#include <doctest/doctest.h>

#include <cstdint>
#include <cstring>
#include <set>
#include <vector>

#include "backends/host_memory.hpp"

using arrvm::DType;
using arrvm::HostMemory;

namespace {

// Declares base `id` of n doubles and writes `value` over it; returns its memory.
double* filled(HostMemory& m, arrvm::BaseId id, int64_t n, double value) {
  m.declare(id, DType::Float64, n);
  auto* p = static_cast<double*>(m.for_write(id));
  for (int64_t i = 0; i < n; ++i) p[i] = value;
  return p;
}

}  // namespace

TEST_CASE("host memory: a freed small buffer serves the next base of its size, zero-filled") {
  HostMemory m;
  const double* first = filled(m, 1, 10, 7.0);
  m.release(1);
  m.declare(2, DType::Float64, 10);
  const auto* again = static_cast<const double*>(m.for_write(2));
  CHECK(again == first);  // the same buffer
  for (int i = 0; i < 10; ++i) CHECK(again[i] == 0.0);
  // Another rounded size does not take it.
  m.release(2);
  m.declare(3, DType::Float64, 100);
  CHECK(m.for_write(3) != again);
}

TEST_CASE("host memory: at most kSmallPerSize small buffers of one size are kept") {
  HostMemory m;
  constexpr int kMany = static_cast<int>(HostMemory::kSmallPerSize) + 8;
  std::set<const void*> freed;
  for (int i = 0; i < kMany; ++i) freed.insert(filled(m, i, 4, 1.0));
  for (int i = 0; i < kMany; ++i) m.release(i);
  std::size_t reused = 0;
  for (int i = 0; i < kMany; ++i) {
    m.declare(100 + i, DType::Float64, 4);
    reused += freed.count(m.for_write(100 + i));
  }
  CHECK(reused == HostMemory::kSmallPerSize);
}

TEST_CASE("host memory: large buffers come back from the pool, also zero-filled") {
  HostMemory m;
  const int64_t n = static_cast<int64_t>(HostMemory::kPoolMin / sizeof(double)) * 2;
  const double* first = filled(m, 1, n, 3.0);
  m.release(1);
  CHECK(m.pooled_bytes() >= static_cast<std::size_t>(n) * sizeof(double));
  m.declare(2, DType::Float64, n);
  const auto* again = static_cast<const double*>(m.for_write(2));
  CHECK(again == first);
  CHECK(again[0] == 0.0);
  CHECK(again[n - 1] == 0.0);
}

TEST_CASE(
    "host memory: a pooled buffer serves a base up to a quarter smaller, zero-filled, and not a larger one") {
  // A loop whose temporary shrinks a row each iteration (LU's outer product):
  // each iteration reuses the last one's buffer.
  HostMemory m;
  const int64_t n = static_cast<int64_t>(HostMemory::kPoolMin / sizeof(double)) * 4;
  const double* first = filled(m, 1, n, 3.0);
  m.release(1);
  const double* p = first;
  for (int k = 1; k <= 6; ++k) {
    const int64_t size = n - k * n / 32;  // 3% smaller each time
    m.declare(10 + k, DType::Float64, size);
    const auto* q = static_cast<const double*>(m.for_write(10 + k));
    CHECK(q == p);
    CHECK(q[0] == 0.0);
    CHECK(q[size - 1] == 0.0);
    auto* w = static_cast<double*>(m.for_write(10 + k));
    for (int64_t i = 0; i < size; ++i) w[i] = 1.0;
    m.release(10 + k);
    p = q;
  }
  // The buffer keeps its own size, n, however small the bases it served:
  // a whole one takes it again; a larger one gets a buffer of its own.
  m.declare(31, DType::Float64, n);
  const auto* whole = static_cast<const double*>(m.for_write(31));
  CHECK(whole == p);
  CHECK(whole[n - 1] == 0.0);
  m.declare(32, DType::Float64, n + n / 8);
  CHECK(m.for_write(32) != p);
  // The smallest that fits is taken: pooled n and 1.15 n, asked 0.95 n twice.
  HostMemory b;
  const double* big = filled(b, 1, n * 23 / 20, 1.0);
  const double* fit = filled(b, 2, n, 1.0);
  b.release(1);
  b.release(2);
  b.declare(3, DType::Float64, n * 19 / 20);
  CHECK(b.for_write(3) == fit);
  b.declare(4, DType::Float64, n * 19 / 20);
  CHECK(b.for_write(4) == big);
}

TEST_CASE("host memory: with none closer pooled, a buffer serves a base down to a quarter of its size") {
  // z[inside] of an escape-time loop: the selection shrinks over the
  // iterations; its temporaries reuse the pooled buffers instead of
  // faulting in fresh pages at each quarter.
  HostMemory m;
  const int64_t n = static_cast<int64_t>(HostMemory::kPoolMin / sizeof(double)) * 40;
  const double* big = filled(m, 1, n, 3.0);
  const double* close = filled(m, 2, n * 11 / 20, 1.0);
  m.release(1);
  m.release(2);
  // Pooled n and 0.55 n, asked 0.5 n twice: the closer one, then the other.
  const int64_t half = n / 2;
  m.declare(3, DType::Float64, half);
  CHECK(m.for_write(3) == close);
  m.declare(4, DType::Float64, half);
  const auto* q = static_cast<const double*>(m.for_write(4));
  CHECK(q == big);
  CHECK(q[0] == 0.0);
  CHECK(q[half - 1] == 0.0);
  m.release(3);
  m.release(4);
  // Under a quarter of either: a buffer of its own, both stay pooled.
  m.declare(5, DType::Float64, n / 10);
  const void* own = m.for_write(5);
  CHECK(own != big);
  CHECK(own != close);
  m.declare(6, DType::Float64, n);
  const auto* whole = static_cast<const double*>(m.for_write(6));
  CHECK(whole == big);
  CHECK(whole[n - 1] == 0.0);
}

TEST_CASE("host memory: temporaries that grow a little each iteration get room, and reuse it zero-filled") {
  // A Cholesky's `L[j+1:, :j]`: a column more each iteration (here 1 %).
  // Without room each would be a fresh allocation (fresh pages to fault in
  // and clear); with a quarter more when the pool's one is a little small,
  // a buffer serves about 20 iterations.
  HostMemory m;
  const int64_t n0 = static_cast<int64_t>(HostMemory::kPoolMin / sizeof(double)) * 4;
  std::set<const void*> buffers;
  int64_t size = n0;
  for (int k = 0; k < 60; ++k) {
    m.declare(k, DType::Float64, size);
    const auto* q = static_cast<const double*>(m.for_write(k));
    buffers.insert(q);
    CHECK(q[0] == 0.0);
    CHECK(q[size - 1] == 0.0);
    auto* w = static_cast<double*>(m.for_write(k));
    for (int64_t i = 0; i < size; ++i) w[i] = 2.0;
    m.release(k);
    size += size / 100;
  }
  CHECK(buffers.size() <= 5);  // (1.01^60 = 1.82: the first, then 1.25x steps)
  // The outgrown buffers are freed, not kept: one is pooled at the end.
  CHECK(m.pooled_bytes() <= static_cast<std::size_t>(size) * sizeof(double) * 5 / 4 + 64);
}

TEST_CASE(
    "host memory: buffers of 4 MiB and more are whole, aligned huge pages; smaller ones are not rounded") {
  HostMemory m;
  constexpr int64_t kBig = (5 << 20) / 8 + 1;  // a little over 5 MiB of doubles
  const double* big = filled(m, 1, kBig, 3.0);
  CHECK(reinterpret_cast<std::uintptr_t>(big) % HostMemory::kHugePage == 0);
  CHECK(m.find(1).capacity == 3 * HostMemory::kHugePage);
  // The rounding is the pool's size: the next base of that size takes it, zero-filled.
  m.release(1);
  m.declare(2, DType::Float64, kBig);
  const auto* again = static_cast<const double*>(m.for_write(2));
  CHECK(again == big);
  CHECK(again[0] == 0.0);
  CHECK(again[kBig - 1] == 0.0);
  // Under 4 MiB: the 64-byte rounding only.
  constexpr int64_t kSmaller = (3 << 20) / 8 + 3;
  filled(m, 3, kSmaller, 1.0);
  CHECK(m.find(3).capacity == (kSmaller * 8 + 63) / 64 * 64);
}
