// Every elementwise opcode x every dtype it accepts (and identity x every
// pair of dtypes, range and random x every dtype) on the cpu backend gives
// exactly the bytes of ref, on inputs full of edge cases (NaN, +-inf, -0.0,
// integer MIN/MAX, -1, zero divisors, shift amounts out of range). Runs
// with greedy fusion (one big kernel per batch) and with a constant operand.
#include <doctest/doctest.h>

#include <cstddef>
#include <string>

#include "engine/runtime.hpp"
#include "tests/cpu_test_util.hpp"
#include "tests/op_table.hpp"

using namespace arrvm;  // tests only
using optable::Result;
using optable::run_table;

TEST_CASE("cpu: every elementwise opcode and dtype equals ref bit for bit") {
  cputest::TempDir dir;
  Config ref_config = cputest::config("ref", dir.path());
  ref_config.batch = 100000;
  Config cpu_config = cputest::config("cpu", dir.path());
  cpu_config.batch = 100000;
  const Result expected = run_table(ref_config);
  const Result got = run_table(cpu_config);
  REQUIRE(expected.labels == got.labels);
  // 11 dtypes: 121 casts, range and random each, plus the accepted ops.
  CHECK(got.issued > 121 + 22 + 300);
  int mismatches = 0;
  for (std::size_t i = 0; i < got.bytes.size(); ++i) {
    INFO(got.labels[i]);
    if (got.bytes[i] != expected.bytes[i]) {
      ++mismatches;
      for (std::size_t k = 0; k < got.bytes[i].size(); ++k) {
        if (got.bytes[i][k] != expected.bytes[i][k]) {
          MESSAGE(got.labels[i] << ": first difference at byte " << k << ": " << int(got.bytes[i][k])
                                << " vs ref " << int(expected.bytes[i][k]));
          break;
        }
      }
    }
    CHECK(got.bytes[i] == expected.bytes[i]);
  }
  CHECK(mismatches == 0);
}
