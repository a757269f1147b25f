// Philox-4x32-10 (Salmon et al., "Parallel random numbers: as easy as 1, 2,
// 3", SC'11; the Random123 library) and the mapping of its output to element
// values that defines the `random` opcode. Header-only and dependency-free so
// that every backend and every code generator computes the same bits: the
// generated C and OpenCL kernels must follow these functions line by line.
#pragma once

#include <array>
#include <cstdint>
#include <type_traits>

namespace arrvm {

namespace philox_detail {

// Multipliers and Weyl key increments of Philox-4x32 (Random123 defaults).
inline constexpr uint32_t kM0 = 0xD2511F53u;
inline constexpr uint32_t kM1 = 0xCD9E8D57u;
inline constexpr uint32_t kW0 = 0x9E3779B9u;  // golden ratio
inline constexpr uint32_t kW1 = 0xBB67AE85u;  // sqrt(3) - 1

// One round: two 32x32->64 multiplies, their halves swapped and mixed with
// the other two counter words and the key.
constexpr std::array<uint32_t, 4> round(const std::array<uint32_t, 4>& c, const std::array<uint32_t, 2>& k) {
  const uint64_t p0 = uint64_t{kM0} * c[0];
  const uint64_t p1 = uint64_t{kM1} * c[2];
  return {static_cast<uint32_t>(p1 >> 32) ^ c[1] ^ k[0], static_cast<uint32_t>(p1),
          static_cast<uint32_t>(p0 >> 32) ^ c[3] ^ k[1], static_cast<uint32_t>(p0)};
}

}  // namespace philox_detail

// Ten rounds; the key is bumped by (kW0, kW1) between consecutive rounds
// (the first round uses the key as given).
constexpr std::array<uint32_t, 4> philox4x32_10(std::array<uint32_t, 4> ctr, std::array<uint32_t, 2> key) {
  for (int r = 0; r < 10; ++r) {
    if (r > 0) {
      key[0] += philox_detail::kW0;
      key[1] += philox_detail::kW1;
    }
    ctr = philox_detail::round(ctr, key);
  }
  return ctr;
}

// The words of element `flat_index` i of a `random` instruction with `seed`:
// a block serves two elements, so block b = i / 2 runs with counter
// (low32(b), high32(b), 0, 0) and key (low32(seed), high32(seed)); an even
// i takes its words (w0, w1), an odd one (w2, w3), returned as r[0], r[1]
// (r[2], r[3] are 0). All four outputs used: half the blocks of one per
// element.
constexpr std::array<uint32_t, 4> random_words(uint64_t seed, uint64_t flat_index) {
  const uint64_t b = flat_index >> 1;
  const std::array<uint32_t, 4> w =
      philox4x32_10({static_cast<uint32_t>(b), static_cast<uint32_t>(b >> 32), 0, 0},
                    {static_cast<uint32_t>(seed), static_cast<uint32_t>(seed >> 32)});
  return (flat_index & 1) != 0 ? std::array<uint32_t, 4>{w[2], w[3], 0, 0}
                               : std::array<uint32_t, 4>{w[0], w[1], 0, 0};
}

// The value of element `flat_index` (row-major in the output's logical shape)
// of `random` with `seed`, as dtype T:
//   64-bit ints:        r0 | r1 << 32 (the bit pattern)
//   8/16/32-bit ints:   the low bits of r0
//   bool:               r0 & 1
//   float64:            the top 53 bits of (r0 | r1 << 32), times 2^-53: [0, 1)
//   float32:            the top 24 bits of r0, times 2^-24: [0, 1)
// Both float mappings are exact (no rounding), so every backend agrees bit for bit.
template <typename T>
constexpr T random_value(uint64_t seed, uint64_t flat_index) {
  const std::array<uint32_t, 4> r = random_words(seed, flat_index);
  const uint64_t r64 = uint64_t{r[0]} | (uint64_t{r[1]} << 32);
  if constexpr (std::is_same_v<T, bool>) {
    return (r[0] & 1u) != 0;
  } else if constexpr (std::is_same_v<T, double>) {
    return static_cast<double>(r64 >> 11) * 0x1.0p-53;
  } else if constexpr (std::is_same_v<T, float>) {
    return static_cast<float>(r[0] >> 8) * 0x1.0p-24f;
  } else if constexpr (sizeof(T) == 8) {
    static_assert(std::is_integral_v<T>);
    return static_cast<T>(r64);  // modular conversion (C++20) keeps the bit pattern
  } else {
    static_assert(std::is_integral_v<T>);
    return static_cast<T>(r[0]);  // the low sizeof(T) bytes of r0
  }
}

}  // namespace arrvm
