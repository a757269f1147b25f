// Vector math for the cpu backend (the vector-math pass, ARRVM_PASSES): which libm functions
// the generated C may call through glibc's vector math library, libmvec.
//
// gcc vectorizes a loop that calls exp or pow only when the function is
// declared `omp declare simd` (glibc's <math.h> does so only under
// -ffast-math, which we do not use: it drops NaN and infinity semantics);
// it then calls libmvec's variant (`_ZGVdN4vv_pow`: four doubles at once,
// AVX2) in place of four scalar calls. With scalar calls, a `power`, `exp`
// or `log` is most of an elementwise kernel's time (docs/architecture.md,
// "Vector math").
//
// The values are not ref's bit for bit: libmvec's results are within a few
// ulp of the scalar ones (tests/test_vector_math.cpp measures the largest
// difference per function and bounds it); special values (NaN, infinities,
// zeros, out of domain) are handled by libmvec's scalar fallback and equal
// ref's. `ARRVM_PASSES=-vector-math` gives ref's values everywhere.
#pragma once

#include <string>
#include <vector>

namespace arrvm {

// The double-precision names ("exp", "pow", ...) of the functions whose
// vector variants this process's C library has, both precisions (the
// float variants are `expf`, ...): glibc 2.22's five, and from glibc 2.35
// those of the opcodes of this project too. Empty without glibc or
// libmvec. Probed once.
const std::vector<std::string>& vector_math_functions();

}  // namespace arrvm
