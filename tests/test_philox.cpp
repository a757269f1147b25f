// Philox-4x32-10 against the Random123 known-answer vectors, the dtype
// mapping of `random` (a block per two elements), and the `random` opcode on `ref` producing exactly
// those words.
#include <doctest/doctest.h>

#include <array>
#include <cstring>

#include "backends/philox.hpp"
#include "tests/ref_test_util.hpp"

using namespace reftest;  // tests only

namespace {

using Words = std::array<uint32_t, 4>;

}  // namespace

TEST_SUITE("philox") {
  TEST_CASE("Random123 known-answer vectors for philox4x32-10") {
    CHECK(arrvm::philox4x32_10({0, 0, 0, 0}, {0, 0}) ==
          Words{0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8});
    CHECK(arrvm::philox4x32_10({0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff}, {0xffffffff, 0xffffffff}) ==
          Words{0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd});
    CHECK(arrvm::philox4x32_10({0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344}, {0xa4093822, 0x299f31d0}) ==
          Words{0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1});
    // Usable at compile time (code generators may tabulate it).
    static_assert(arrvm::philox4x32_10({0, 0, 0, 0}, {0, 0})[0] == 0x6627e8d5u);
  }

  TEST_CASE("random_value maps the words of counter (i / 2, 0, 0, 0) and key (seed) to each dtype") {
    // Seed 0, index 0 is the first known-answer vector: r0 = 6627e8d5, r1 = e169c58d.
    CHECK(arrvm::random_value<uint32_t>(0, 0) == 0x6627e8d5u);
    CHECK(arrvm::random_value<int32_t>(0, 0) == 0x6627e8d5);
    CHECK(arrvm::random_value<uint64_t>(0, 0) == 0xe169c58d6627e8d5ull);
    CHECK(arrvm::random_value<int64_t>(0, 0) == static_cast<int64_t>(0xe169c58d6627e8d5ull));
    CHECK(arrvm::random_value<uint16_t>(0, 0) == 0xe8d5);
    CHECK(arrvm::random_value<int16_t>(0, 0) == static_cast<int16_t>(0xe8d5));
    CHECK(arrvm::random_value<uint8_t>(0, 0) == 0xd5);
    CHECK(arrvm::random_value<int8_t>(0, 0) == static_cast<int8_t>(0xd5));
    CHECK(arrvm::random_value<bool>(0, 0) == true);  // 0x...d5 is odd
    // float64: the top 53 bits of e169c58d6627e8d5, times 2^-53 (exact).
    CHECK(arrvm::random_value<double>(0, 0) == 0x1.c2d38b1acc4fdp-1);
    // float32: 0x6627e8d5 >> 8 = 0x6627e8, times 2^-24 = 0.3990464210510254.
    CHECK(arrvm::random_value<float>(0, 0) == 0.3990464210510254f);
    // The counter holds index / 2 in words 0 and 1, the key holds the seed;
    // an even index takes words 0 and 1, the odd one after it words 2 and 3.
    const uint64_t seed = 0x299f31d0a4093822ull, index = 0x85a308d3243f6a88ull;  // even
    const Words w = arrvm::philox4x32_10({0x921fb544, 0x42d18469, 0, 0}, {0xa4093822, 0x299f31d0});
    CHECK(arrvm::random_words(seed, index) == Words{w[0], w[1], 0, 0});
    CHECK(arrvm::random_words(seed, index + 1) == Words{w[2], w[3], 0, 0});
    CHECK(arrvm::random_value<uint64_t>(seed, index) == (uint64_t{w[1]} << 32 | w[0]));
    CHECK(arrvm::random_value<uint64_t>(seed, index + 1) == (uint64_t{w[3]} << 32 | w[2]));
  }

  TEST_CASE("the random opcode on ref yields philox word 0 or 2 of block i / 2 for uint32") {
    const uint64_t seed = 0x0123456789abcdefull;
    Vm vm;
    const BaseId o = vm.empty<uint32_t>(40);
    vm.issue(make(Opcode::Random, vec(o, 40), {}, 0, seed));
    const Vec<uint32_t> r = vm.read<uint32_t>(o);
    for (uint32_t i = 0; i < 40; ++i) {
      CAPTURE(i);
      CHECK(r[i] == arrvm::philox4x32_10({i / 2, 0, 0, 0}, {0x89abcdefu, 0x01234567u})[2 * (i % 2)]);
    }
    // Seed 0, element 0: the first known-answer vector.
    const BaseId z = vm.empty<uint32_t>(1);
    vm.issue(make(Opcode::Random, vec(z, 1), {}, 0, 0));
    CHECK(vm.read<uint32_t>(z)[0] == 0x6627e8d5u);
  }

  TEST_CASE("the random opcode on a 2-D strided view uses the row-major index in the view") {
    const uint64_t seed = 99;
    Vm vm;
    const BaseId o = vm.empty<uint64_t>(12);
    // Element (r, c) lies at offset 11 - 6r - 2c and has flat index 3r + c.
    vm.issue(make(Opcode::Random, view(o, 11, {2, 3}, {-6, -2}), {}, 0, seed));
    const Vec<uint64_t> got = vm.read<uint64_t>(o);
    for (uint32_t r = 0; r < 2; ++r) {
      for (uint32_t c = 0; c < 3; ++c) {
        const uint32_t f = 3 * r + c, k = 2 * (f % 2);
        const Words w = arrvm::philox4x32_10({f / 2, 0, 0, 0}, {99, 0});
        CAPTURE(r);
        CAPTURE(c);
        CHECK(got[11 - 6 * r - 2 * c] == (uint64_t{w[k + 1]} << 32 | w[k]));
        CHECK(got[10 - 6 * r - 2 * c] == 0);
      }
    }
  }

  TEST_CASE_TEMPLATE("random floats lie in [0, 1) and are not constant", T, float, double) {
    Vm vm;
    const int n = 2000;
    const BaseId o = vm.empty<T>(n);
    vm.issue(make(Opcode::Random, vec(o, n), {}, 0, 12345));
    const Vec<T> r = vm.read<T>(o);
    double sum = 0;
    bool in_range = true;
    for (T x : r) {
      in_range = in_range && x >= 0 && x < 1;
      sum += x;
    }
    CHECK(in_range);
    CHECK(sum / n > 0.45);  // mean 0.5, sd of the mean ~0.0065
    CHECK(sum / n < 0.55);
    // The largest values map to just below 1.
    if constexpr (std::is_same_v<T, double>) {
      CHECK(static_cast<double>(~uint64_t{0} >> 11) * 0x1.0p-53 < 1.0);
    } else {
      CHECK(static_cast<float>(0xffffffffu >> 8) * 0x1.0p-24f < 1.0f);
    }
  }

  TEST_CASE_TEMPLATE("random on every dtype matches random_value", T, REFTEST_ALL) {
    Vm vm;
    const BaseId o = vm.empty<T>(8);
    vm.issue(make(Opcode::Random, vec(o, 8), {}, 0, 5));
    const Vec<T> r = vm.read<T>(o);
    for (uint64_t i = 0; i < 8; ++i) {
      CAPTURE(i);
      CHECK(same_element(r[i], static_cast<Host<T>>(arrvm::random_value<T>(5, i))));
    }
    // Different seeds give different streams.
    const BaseId p = vm.empty<T>(8);
    vm.issue(make(Opcode::Random, vec(p, 8), {}, 0, 6));
    const Vec<T> s = vm.read<T>(p);
    if constexpr (!std::is_same_v<T, bool>)
      CHECK(std::memcmp(r.data(), s.data(), r.size() * sizeof(Host<T>)) != 0);
  }

}  // TEST_SUITE
