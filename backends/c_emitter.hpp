// The scalar helpers of generated C and OpenCL C: one static inline
// function per (opcode, dtype) that follows backends/ref/scalar_ops.hpp and
// backends/philox.hpp line by line (integer arithmetic in unsigned types,
// no C undefined behaviour), so that every statement of a kernel computes
// exactly what ref computes (the one exception: the libm functions of
// CDialect::vector_functions). The loop nest around them is printed by
// backends/c_printer.hpp.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "backends/loop_ir.hpp"

namespace arrvm::codegen {

// What a dialect of C changes in the helpers and the translation unit.
struct CDialect {
  // ARRVM_DIV0(): an integer division by zero raises the divide-by-zero
  // flag, as NumPy's does (vm/fp_flags.hpp).
  std::string prelude =
      "#include <stdint.h>\n#include <string.h>\n#include <math.h>\n"
      "#define ARRVM_DIV0() do { volatile double arrvm_z_ = 0.0; arrvm_z_ = 1.0 / arrvm_z_; } while (0)\n";
  // What a kernel with complex slots needs before its helpers: the types
  // arrvm_complex64/128 (c_type's names), their parts ARRVM_RE(z) and
  // ARRVM_IM(z), and their constructors arrvm_complex64_of(re, im) ...
  // (subst's $C). C: C99 _Complex with GCC's __real__/__imag__.
  std::string complex_prelude =
      "#ifndef ARRVM_COMPLEX\n#define ARRVM_COMPLEX\n"
      "typedef float _Complex arrvm_complex64;\ntypedef double _Complex arrvm_complex128;\n"
      "#define ARRVM_RE(z) (__real__ (z))\n#define ARRVM_IM(z) (__imag__ (z))\n"
      "#define arrvm_complex64_of(r, i) __builtin_complex((float)(r), (float)(i))\n"
      "#define arrvm_complex128_of(r, i) __builtin_complex((double)(r), (double)(i))\n#endif\n";
  // The C library's complex functions (cexp, csqrt, cpow, ...) exist, as
  // GCC's builtins. false (OpenCL): the helpers call arrvm's own, written
  // out in complex_math_library; complex values are then 2-vectors
  // (float2, double2), converted between precisions by convert_T.
  bool complex_library = true;
  std::string kernel_qualifier;  // e.g. "__kernel " in OpenCL
  std::string global_qualifier;  // address space of array pointers
  // A float32 -> int conversion compares in float, not double (a device
  // without fp64). Exact: each bound is a power of two (vm/cast.hpp).
  bool saturate_in_source_type = false;
  // Each scalar helper (and Philox) inside an include guard, so that the
  // sources of several kernels (with distinct names) concatenate into one
  // translation unit: one device program build for a batch's new kernels.
  bool guard_helpers = false;
  // `random` through a memo of 8 Philox blocks computed at once (AVX2 where
  // the compiler targets it): helper(seed, i, &memo), a memo per random
  // statement, firstprivate to each OpenMP thread. Host C only; the loop
  // that calls it must not be `omp simd` (the memo is state).
  bool chunked_random = false;
  // No OpenMP parallel region: parallel loops print as plain or `omp simd`
  // loops, for launches below the parallel threshold (cpu_backend.cpp). A
  // region under `if(0)` still enters libgomp, which costs ~0.6 us a launch
  // on this host once a team has run (a futex wake per region): the cost
  // of a 100-element kernel, twice over.
  bool serial = false;
  // > 0: the innermost loop's extent, printed as this constant instead of
  // read from the launch arguments (cpu_backend.cpp: a short last axis over
  // many rows, such as (n, n, 4) layers of 4 components). gcc then compiles
  // each row as whole vectors with no loop of its own: an (200, 200, 4)
  // elementwise kernel ran 64 -> 36 us.
  int64_t inner_extent = 0;
  // The libm functions (double names: "exp", "pow") that have vector
  // variants in the C library the kernel links (glibc's libmvec; the cpu
  // backend's probe, backends/cpu/vector_math.hpp). Each helper that calls
  // one declares it `omp declare simd`, so that gcc calls the vector
  // variant in an `omp simd` loop: its values are then within a few ulp of
  // ref's scalar libm, not equal to them. Empty: scalar calls everywhere.
  std::vector<std::string> vector_functions;
};

// `text` with $T (the element type), $U (the wide unsigned type, as ref's
// Wide<T>), $V (the unsigned type of T's width), $B (bits), $F (the libm
// suffix: f or nothing), $P (a complex dtype's part type) and $C (the
// constructor of complex dtype t, or of a real t's complex dtype) replaced.
std::string subst(std::string_view text, DType t);

// The body of the scalar helper of elementwise `op` on complex dtype t
// (c_emitter_complex.cpp); `library`: CDialect::complex_library.
std::string complex_op_body(Opcode op, DType t, bool library);
// The complex functions of a dialect without the C library's
// (CDialect::complex_library false): arrvm_cexp$F ... for complex dtype t,
// guarded. complex64 computes in complex128 where cl_khr_fp64 is defined.
std::string complex_math_library(DType t);
// The body of the cast helper from `from` to `to`, one of them complex, but
// complex to an integer type (the float conversion of its real part).
std::string complex_cast_body(DType from, DType to);
// Whether the helper of `op` on complex dtype t calls complex_math_library.
bool uses_complex_math(Opcode op);

// C spelling of a dtype's element type (bool is uint8_t holding 0 or 1).
const char* c_type(DType t);
// The <stdint.h> name of an integer dtype's largest (max) or smallest value
// ("0" for unsigned minima; "1" / "0" for bool).
const char* c_limit(DType t, bool max);

// The scalar helper that combines two elements for reduction or scan `op`
// on `t`: its definition, and its name in *name.
std::string combine_helper(Opcode op, DType t, const CDialect& dialect, std::string* name);

// The definitions of the scalar helpers that the elementwise and generator
// statements of `body` call, each once (with Philox if one is `random`), and
// the name of a statement's helper.
std::string scalar_helpers(const std::vector<Stmt>& body, const CDialect& dialect);
std::string scalar_helper_name(const Stmt& st);

// `text` inside an include guard named after `name` if the dialect guards
// its helpers, else `text`.
std::string guard_helper(const std::string& name, const std::string& text, const CDialect& dialect);

}  // namespace arrvm::codegen
