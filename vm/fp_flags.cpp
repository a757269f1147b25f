#include "vm/fp_flags.hpp"

#include <dlfcn.h>

#include <atomic>
#include <cfenv>

#if defined(__x86_64__) || defined(__i386__)
#include <xmmintrin.h>
#endif

namespace arrvm {

// On x86-64 the double and float arithmetic of ref's loops and of the
// kernels is SSE/AVX, whose flags are MXCSR's low bits: reading and
// clearing them directly costs a few cycles, where feclearexcept also
// saves and reloads the x87 environment (tens of ns an eager instruction).
#if defined(__x86_64__) || defined(__i386__)
namespace {
constexpr uint32_t kInvalid = 0x01, kDivide = 0x04, kOverflow = 0x08, kUnderflow = 0x10;
constexpr uint32_t kAll = 0x3f;  // (with denormal and precision, which are not reported)
}  // namespace

uint32_t fp_flags_read() {
  const uint32_t m = _mm_getcsr();
  if ((m & (kInvalid | kDivide | kOverflow | kUnderflow)) == 0) return 0;
  auto bit = [m](uint32_t mxcsr, uint32_t flag) { return (m & mxcsr) != 0 ? flag : 0u; };
  return bit(kDivide, kFpDivide) | bit(kOverflow, kFpOverflow) | bit(kUnderflow, kFpUnderflow) |
         bit(kInvalid, kFpInvalid);
}

void fp_flags_clear() {
  _mm_setcsr(_mm_getcsr() & ~kAll);
}
#else
uint32_t fp_flags_read() {
  const int e = std::fetestexcept(FE_ALL_EXCEPT);
  return ((e & FE_DIVBYZERO) ? kFpDivide : 0) | ((e & FE_OVERFLOW) ? kFpOverflow : 0) |
         ((e & FE_UNDERFLOW) ? kFpUnderflow : 0) | ((e & FE_INVALID) ? kFpInvalid : 0);
}

void fp_flags_clear() {
  std::feclearexcept(FE_ALL_EXCEPT);
}
#endif

namespace {

// libgomp's entry point for `#pragma omp parallel` (the ABI GCC emits:
// fn(data) on every thread of a team of num_threads, flags 0).
using GompParallel = void (*)(void (*)(void*), void*, unsigned, unsigned);

void take_on_thread(void* data) {
  const uint32_t f = fp_flags_take();
  if (f != 0) static_cast<std::atomic<uint32_t>*>(data)->fetch_or(f, std::memory_order_relaxed);
}

}  // namespace

uint32_t fp_flags_take_team(int threads) {
  if (threads <= 1) return 0;
  // The kernels load libgomp; libarrvm does not link it (it sets
  // GOMP_SPINCOUNT before libgomp reads it: backends/cpu/threads.hpp).
  static std::atomic<GompParallel> parallel{nullptr};
  GompParallel p = parallel.load(std::memory_order_acquire);
  if (p == nullptr) {
    void* h = dlopen("libgomp.so.1", RTLD_NOW | RTLD_NOLOAD);
    if (h == nullptr) return 0;
    p = reinterpret_cast<GompParallel>(dlsym(h, "GOMP_parallel"));
    // (h is kept: RTLD_NOLOAD took a reference, so libgomp stays while p is used)
    if (p == nullptr) return 0;
    parallel.store(p, std::memory_order_release);
  }
  std::atomic<uint32_t> flags{0};
  p(&take_on_thread, &flags, static_cast<unsigned>(threads), 0);
  return flags.load(std::memory_order_relaxed);
}

}  // namespace arrvm
