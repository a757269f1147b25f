// NumPy's MT19937 stream, generated here: the doubles of
// RandomState.random_sample (and rand, uniform) bit for bit, from the state
// of NumPy's own bit generator, which they advance as NumPy would. NumPy
// draws one number at a time through a function pointer (about 5.5 ns per
// double on this machine); here the state is regenerated 624 words at a time
// and the words are tempered and paired in loops the compiler vectorizes.
//
// The algorithm is Matsumoto and Nishimura's MT19937 as NumPy's
// numpy/random/src/mt19937 has it: `twist` regenerates the 624 words,
// `temper` maps a word to an output, and a double is
// ((w1 >> 5) * 2^26 + (w2 >> 6)) / 2^53 of two consecutive outputs.
#include "_core.hpp"

#include <cstddef>
#include <cstdint>

namespace arrvm_python {
namespace {

constexpr int kN = 624;
constexpr int kM = 397;
constexpr uint32_t kMatrixA = 0x9908b0dfU;
constexpr uint32_t kUpper = 0x80000000U;
constexpr uint32_t kLower = 0x7fffffffU;

// NumPy's state (mt19937_state in numpy/random/src/mt19937/mt19937.h).
struct MtState {
  uint32_t key[kN];
  int pos;
};

inline uint32_t mix(uint32_t a, uint32_t b, uint32_t far) {
  uint32_t y = (a & kUpper) | (b & kLower);
  return far ^ (y >> 1) ^ (static_cast<uint32_t>(-static_cast<int32_t>(y & 1U)) & kMatrixA);
}

inline uint32_t temper(uint32_t y) {
  y ^= y >> 11;
  y ^= (y << 7) & 0x9d2c5680U;
  y ^= (y << 15) & 0xefc60000U;
  return y ^ (y >> 18);
}

// The regeneration as two loops without a dependence shorter than the
// vector: the first reads words 397 ahead (not yet rewritten), the second
// words 227 behind (rewritten by the first).
__attribute__((target_clones("avx2", "default"))) void twist(uint32_t* __restrict k) {
  for (int i = 0; i < kN - kM; ++i) k[i] = mix(k[i], k[i + 1], k[i + kM]);
  for (int i = kN - kM; i < kN - 1; ++i) k[i] = mix(k[i], k[i + 1], k[i + kM - kN]);
  k[kN - 1] = mix(k[kN - 1], k[0], k[kM - 1]);
}

inline double pair(uint32_t w1, uint32_t w2) {
  // Both shifted words fit an int32, whose conversion vectorizes.
  int32_t a = static_cast<int32_t>(temper(w1) >> 5), b = static_cast<int32_t>(temper(w2) >> 6);
  return (a * 67108864.0 + b) / 9007199254740992.0;
}

// `count` doubles from the words k[0], k[1], ... (all within one state).
__attribute__((target_clones("avx2", "default"))) void pairs(const uint32_t* __restrict k,
                                                             double* __restrict out, std::ptrdiff_t count,
                                                             double low, double range, bool scaled) {
  if (scaled) {
    for (std::ptrdiff_t j = 0; j < count; ++j) out[j] = low + range * pair(k[2 * j], k[2 * j + 1]);
  } else {
    for (std::ptrdiff_t j = 0; j < count; ++j) out[j] = pair(k[2 * j], k[2 * j + 1]);
  }
}

}  // namespace

// n doubles into out (low + range * u when scaled, as NumPy's uniform
// computes it), advancing *s as NumPy's next_double would n times.
void mt19937_doubles(void* state, double* out, std::ptrdiff_t n, double low, double range, bool scaled) {
  auto* s = static_cast<MtState*>(state);
  std::ptrdiff_t i = 0;
  while (i < n) {
    if (s->pos >= kN) {
      twist(s->key);
      s->pos = 0;
    }
    std::ptrdiff_t whole = (kN - s->pos) / 2;
    if (whole > 0) {
      std::ptrdiff_t c = whole < n - i ? whole : n - i;
      pairs(s->key + s->pos, out + i, c, low, range, scaled);
      s->pos += static_cast<int>(2 * c);
      i += c;
      continue;
    }
    // One word left: the pair spans a regeneration.
    uint32_t w1 = s->key[kN - 1];
    twist(s->key);
    s->pos = 1;
    double u = pair(w1, s->key[0]);
    out[i++] = scaled ? low + range * u : u;
  }
}

namespace {

// NumPy's PCG64 (XSL-RR 128/64; numpy/random/src/pcg64/pcg64.h, built with
// the compiler's 128-bit integers): pcg64_state points at the generator.
using u128 = unsigned __int128;
struct PcgRandom {
  u128 state;
  u128 inc;
};
struct PcgState {
  PcgRandom* rng;
  int has_uint32;
  uint32_t uinteger;
};

constexpr u128 kPcgMult = (static_cast<u128>(0x2360ED051FC65DA4ULL) << 64) | 0x4385DF649FCCF645ULL;

inline uint64_t pcg_output(u128 state) {
  auto hi = static_cast<uint64_t>(state >> 64);
  auto x = hi ^ static_cast<uint64_t>(state);
  unsigned rot = static_cast<unsigned>(hi >> 58);
  return (x >> rot) | (x << ((64U - rot) & 63U));
}

inline double pcg_double(u128 state) {
  return static_cast<double>(pcg_output(state) >> 11) * (1.0 / 9007199254740992.0);
}

// The state `delta` steps ahead (Brown, "Random number generation with
// arbitrary strides", 1994, as PCG's pcg_advance_lcg_128 has it).
u128 pcg_advance(u128 state, u128 inc, u128 delta) {
  u128 acc_mult = 1, acc_plus = 0, cur_mult = kPcgMult, cur_plus = inc;
  while (delta > 0) {
    if (delta & 1) {
      acc_mult *= cur_mult;
      acc_plus = acc_plus * cur_mult + cur_plus;
    }
    cur_plus = (cur_mult + 1) * cur_plus;
    cur_mult *= cur_mult;
    delta >>= 1;
  }
  return acc_mult * state + acc_plus;
}

}  // namespace

// NumPy's Generator.random doubles (uniform's when scaled) from the PCG64
// state at `state`. One
// step's 128-bit multiply is a chain of about six cycles, so four lanes,
// each started at its quarter of the stream by a jump ahead, step together.
void pcg64_doubles(void* state, double* out, std::ptrdiff_t n, double low, double range, bool scaled) {
  PcgRandom& g = *static_cast<PcgState*>(state)->rng;
  constexpr int kLanes = 4;
  const std::ptrdiff_t q = n / kLanes;
  u128 lane[kLanes];
  for (int c = 0; c < kLanes; ++c) lane[c] = pcg_advance(g.state, g.inc, static_cast<u128>(c) * q);
  for (std::ptrdiff_t j = 0; j < q; ++j) {
    for (int c = 0; c < kLanes; ++c) {
      lane[c] = lane[c] * kPcgMult + g.inc;
      out[c * q + j] = pcg_double(lane[c]);
    }
  }
  u128 s = pcg_advance(g.state, g.inc, static_cast<u128>(kLanes) * q);
  for (std::ptrdiff_t i = kLanes * q; i < n; ++i) {
    s = s * kPcgMult + g.inc;
    out[i] = pcg_double(s);
  }
  g.state = s;
  if (scaled) {
    for (std::ptrdiff_t i = 0; i < n; ++i) out[i] = low + range * out[i];
  }
}

}  // namespace arrvm_python
