/* libarrvm C ABI: the only interface language bindings link against.
 *
 * Every array operation is one bytecode instruction issued to a VM; the VM
 * batches, fuses and runs them when data is read back (arrvm_copy_out), on
 * arrvm_flush, or when its batch is full. See docs/reference.md for the semantics of
 * each opcode.
 *
 * Errors: every function that can fail returns an arrvm_status; on failure
 * arrvm_last_error() holds a message naming what went wrong, and the VM stays
 * usable. No function lets an exception or a crash escape for NULL handles or
 * out-of-range enum values: those are ARRVM_ERR_INVALID.
 *
 * Threads: a VM and its arrays must be used by one thread at a time.
 * Different VMs may be used from different threads.
 */
#ifndef ARRVM_ARRVM_H
#define ARRVM_ARRVM_H

#include <stddef.h>
#include <stdint.h>

#include "arrvm/export.h"
#include "arrvm/version.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Every function declared here is exported from libarrvm.so. */
#pragma GCC visibility push(default)

/* The version of the loaded library, "MAJOR.MINOR.PATCH" (compare with
 * ARRVM_VERSION_STRING of the headers compiled against). */
const char* arrvm_version(void);

typedef struct arrvm_vm arrvm_vm;
typedef struct arrvm_array arrvm_array;

typedef enum arrvm_status {
  ARRVM_OK = 0,
  ARRVM_ERR_INVALID = 1, /* bad argument, or an instruction the VM rejected */
  ARRVM_ERR_RUNTIME = 2, /* error raised while running (e.g. index out of range) */
  ARRVM_ERR_BACKEND = 3, /* backend failure (e.g. a compile error); message carries the log */
  ARRVM_ERR_NOMEM = 4,   /* out of memory */
  ARRVM_ERR_INTERNAL = 5 /* a bug in libarrvm */
} arrvm_status;

/* Element types, in the order of vm/dtypes.def (append only). Bools are bytes 0/1. */
typedef enum arrvm_dtype {
  ARRVM_BOOL = 0,
  ARRVM_INT8 = 1,
  ARRVM_INT16 = 2,
  ARRVM_INT32 = 3,
  ARRVM_INT64 = 4,
  ARRVM_UINT8 = 5,
  ARRVM_UINT16 = 6,
  ARRVM_UINT32 = 7,
  ARRVM_UINT64 = 8,
  ARRVM_FLOAT32 = 9,
  ARRVM_FLOAT64 = 10,
  ARRVM_COMPLEX64 = 11,
  ARRVM_COMPLEX128 = 12,
  /* Not dtypes: these give the enum the range of a 32-bit int, so any int a
   * binding passes is a valid value of the type (and is rejected as
   * ARRVM_ERR_INVALID if it is not a dtype above). */
  ARRVM_DTYPE_RANGE_MIN_ = -2147483647 - 1,
  ARRVM_DTYPE_RANGE_MAX_ = 2147483647
} arrvm_dtype;

/* Opcodes, one per row of vm/opcodes.def, in its order (append only). */
typedef enum arrvm_opcode {
  ARRVM_OP_IDENTITY = 0,
  ARRVM_OP_ADD = 1,
  ARRVM_OP_SUBTRACT = 2,
  ARRVM_OP_MULTIPLY = 3,
  ARRVM_OP_DIVIDE = 4,
  ARRVM_OP_POWER = 5,
  ARRVM_OP_MOD = 6,
  ARRVM_OP_MAXIMUM = 7,
  ARRVM_OP_MINIMUM = 8,
  ARRVM_OP_EQUAL = 9,
  ARRVM_OP_NOT_EQUAL = 10,
  ARRVM_OP_LESS = 11,
  ARRVM_OP_LESS_EQUAL = 12,
  ARRVM_OP_GREATER = 13,
  ARRVM_OP_GREATER_EQUAL = 14,
  ARRVM_OP_LOGICAL_AND = 15,
  ARRVM_OP_LOGICAL_OR = 16,
  ARRVM_OP_LOGICAL_XOR = 17,
  ARRVM_OP_LOGICAL_NOT = 18,
  ARRVM_OP_BITWISE_AND = 19,
  ARRVM_OP_BITWISE_OR = 20,
  ARRVM_OP_BITWISE_XOR = 21,
  ARRVM_OP_INVERT = 22,
  ARRVM_OP_LEFT_SHIFT = 23,
  ARRVM_OP_RIGHT_SHIFT = 24,
  ARRVM_OP_NEGATIVE = 25,
  ARRVM_OP_ABSOLUTE = 26,
  ARRVM_OP_SIGN = 27,
  ARRVM_OP_SQRT = 28,
  ARRVM_OP_EXP = 29,
  ARRVM_OP_EXP2 = 30,
  ARRVM_OP_EXPM1 = 31,
  ARRVM_OP_LOG = 32,
  ARRVM_OP_LOG2 = 33,
  ARRVM_OP_LOG10 = 34,
  ARRVM_OP_LOG1P = 35,
  ARRVM_OP_SIN = 36,
  ARRVM_OP_COS = 37,
  ARRVM_OP_TAN = 38,
  ARRVM_OP_ARCSIN = 39,
  ARRVM_OP_ARCCOS = 40,
  ARRVM_OP_ARCTAN = 41,
  ARRVM_OP_ARCTAN2 = 42,
  ARRVM_OP_SINH = 43,
  ARRVM_OP_COSH = 44,
  ARRVM_OP_TANH = 45,
  ARRVM_OP_FLOOR = 46,
  ARRVM_OP_CEIL = 47,
  ARRVM_OP_TRUNC = 48,
  ARRVM_OP_RINT = 49,
  ARRVM_OP_ISNAN = 50,
  ARRVM_OP_ISINF = 51,
  ARRVM_OP_ISFINITE = 52,
  ARRVM_OP_WHERE = 53,
  ARRVM_OP_RANGE = 54,
  ARRVM_OP_RANDOM = 55,
  ARRVM_OP_ADD_REDUCE = 56,
  ARRVM_OP_MULTIPLY_REDUCE = 57,
  ARRVM_OP_MINIMUM_REDUCE = 58,
  ARRVM_OP_MAXIMUM_REDUCE = 59,
  ARRVM_OP_LOGICAL_AND_REDUCE = 60,
  ARRVM_OP_LOGICAL_OR_REDUCE = 61,
  ARRVM_OP_ADD_ACCUMULATE = 62,
  ARRVM_OP_MULTIPLY_ACCUMULATE = 63,
  ARRVM_OP_GATHER = 64,
  ARRVM_OP_SCATTER = 65,
  ARRVM_OP_FREE = 66,     /* not issued directly: arrvm_release frees a base */
  ARRVM_OP_SYNC = 67,     /* not issued directly: arrvm_copy_out syncs */
  ARRVM_OP_COMPRESS = 68, /* out <- in0 where in1; its length: arrvm_length */
  ARRVM_OP_MINIMUM_ACCUMULATE = 69,
  ARRVM_OP_MAXIMUM_ACCUMULATE = 70,
  ARRVM_OP_CBRT = 71,
  ARRVM_OP_ARCSINH = 72,
  ARRVM_OP_ARCCOSH = 73,
  ARRVM_OP_ARCTANH = 74,
  ARRVM_OP_HYPOT = 75,
  ARRVM_OP_IMAG = 76,        /* complex -> its imaginary part (the real part: a cast) */
  ARRVM_OP_CONJUGATE = 77,   /* complex -> its conjugate */
  ARRVM_OP_COMPLEX = 78,     /* two floats (real, imaginary) -> complex */
  ARRVM_OP_GATHER_CLIP = 79, /* gather with each index clamped into [0, n) (NumPy's take mode='clip') */
  ARRVM_OP_CUBE = 80,        /* x**3 rounded once (float inputs) */
  /* Not opcodes: the range of a 32-bit int, as for arrvm_dtype. */
  ARRVM_OP_RANGE_MIN_ = -2147483647 - 1,
  ARRVM_OP_RANGE_MAX_ = 2147483647
} arrvm_opcode;

/* The opcode's bytecode name ("add", "add_reduce"), or NULL if op is out of range. */
const char* arrvm_opcode_name(arrvm_opcode op);
/* Sets *out and returns 1 if `name` is an opcode name; returns 0 otherwise
 * (also for NULL arguments). */
int arrvm_opcode_from_name(const char* name, arrvm_opcode* out);
/* Bytes per element, or 0 if dtype is out of range. */
size_t arrvm_dtype_size(arrvm_dtype dtype);
/* The dtype's name ("float64"), or NULL if dtype is out of range. */
const char* arrvm_dtype_name(arrvm_dtype dtype);
/* Sets *out and returns 1 if `name` is a dtype name; returns 0 otherwise. */
int arrvm_dtype_from_name(const char* name, arrvm_dtype* out);

/* The message of the last failed call on this thread ("" if none has
 * failed). Successful calls leave it unchanged. Valid until the next failing
 * call on this thread. */
const char* arrvm_last_error(void);

/* ---- VM ---------------------------------------------------------------- */

/* Creates a VM. `options` NULL or "": the configuration from the ARRVM_*
 * environment variables. Otherwise whitespace-separated key=value pairs that
 * override it, with the short names of the configuration
 * ("backend=ref fuser=singleton batch=64"; keys: backend fuser cost batch
 * cache_dir cache trace profile log cc cflags opencl_device fuse_time_limit).
 * A value cannot contain whitespace. */
arrvm_status arrvm_vm_create(const char* options, arrvm_vm** out);

/* Releases the caller's reference to the VM (NULL is ignored). Arrays still
 * alive keep the VM running until they are released. */
void arrvm_vm_destroy(arrvm_vm* vm);

/* Runs every pending instruction. */
arrvm_status arrvm_flush(arrvm_vm* vm);

/* ---- Arrays ------------------------------------------------------------ */

/* An array handle is one view (offset, shape, stride in elements) of a base
 * array. A base is freed (a `free` instruction) when the last handle on it is
 * released. rank is 0..8; a rank-0 array is a scalar (shape may be NULL). */

/* A new base of prod(shape) elements, viewed whole and row-major. Elements
 * read as 0 until written. */
arrvm_status arrvm_empty(arrvm_vm* vm, arrvm_dtype dtype, int rank, const int64_t* shape, arrvm_array** out);

/* Like arrvm_empty, then copies prod(shape) elements from `data` (row-major). */
arrvm_status arrvm_from_host(arrvm_vm* vm, arrvm_dtype dtype, int rank, const int64_t* shape,
                             const void* data, arrvm_array** out);

/* Called once when the VM no longer needs memory wrapped by arrvm_wrap_host:
 * `data` is the pointer that was wrapped, `ctx` the caller's context. */
typedef void (*arrvm_deleter)(void* data, void* ctx);

/* A new base of prod(shape) elements on the caller's memory `data`
 * (row-major, arrvm_dtype_size(dtype) bytes per element), not copied, viewed
 * whole. On the host backends (cpu, ref) the VM computes in that memory:
 * what it writes into the array is in `data` once it has run (after
 * arrvm_copy_out of the array or arrvm_flush); the caller must not write
 * `data` while instructions on the array may be pending. Bools must be
 * bytes; they are normalized to 0/1 in place. `deleter` (may be NULL) runs
 * exactly once, with (data, deleter_ctx): when the last handle on the base
 * has been released and its `free` has run, or at once on device backends
 * (opencl), which copy the contents and keep none of `data`, and for an
 * array of zero elements. `data` may be NULL only for zero elements. On
 * failure nothing is wrapped, the deleter does not run and `data` stays the
 * caller's. For NumPy: `data` of a C-contiguous, aligned, native-endian
 * array, the deleter dropping the reference that kept it alive. */
arrvm_status arrvm_wrap_host(arrvm_vm* vm, arrvm_dtype dtype, int rank, const int64_t* shape, void* data,
                             arrvm_deleter deleter, void* deleter_ctx, arrvm_array** out);

/* A new handle on a's base: offset and strides are in elements of the base
 * (not relative to a). stride NULL: row-major contiguous. Every element the
 * view touches must lie inside the base. */
arrvm_status arrvm_view(const arrvm_array* a, int64_t offset, int rank, const int64_t* shape,
                        const int64_t* stride, arrvm_array** out);

/* (arrvm_dtype)-1 if a is NULL. */
arrvm_dtype arrvm_array_dtype(const arrvm_array* a);
/* -1 if a is NULL. */
int arrvm_array_rank(const arrvm_array* a);
/* Write rank values to shape_out / stride_out. */
arrvm_status arrvm_array_shape(const arrvm_array* a, int64_t* shape_out);
arrvm_status arrvm_array_stride(const arrvm_array* a, int64_t* stride_out);
/* -1 if a is NULL. */
int64_t arrvm_array_offset(const arrvm_array* a);

/* Releases the handle (NULL is ignored; never fails). */
void arrvm_release(arrvm_array* a);

/* ---- Instructions ------------------------------------------------------ */

/* An instruction input: an array, or (array == NULL) a constant of `dtype`.
 * The field a constant is read from depends on its dtype: bool and signed
 * integers read `i`, unsigned integers read `u`, floats and complex dtypes read
 * `f` (a complex constant's imaginary part is 0 through this ABI). The helpers
 * below fill all three so that the one read holds the value converted to
 * dtype like the `identity` cast (integers wrap; float -> integer truncates,
 * saturates, NaN -> 0; -> bool is "!= 0"). */
typedef struct arrvm_operand {
  const arrvm_array* array; /* NULL: constant */
  arrvm_dtype dtype;        /* constants only */
  int64_t i;
  uint64_t u;
  double f;
} arrvm_operand;

static inline arrvm_operand arrvm_arr(const arrvm_array* a) {
  arrvm_operand o;
  o.array = a;
  o.dtype = ARRVM_FLOAT64;
  o.i = 0;
  o.u = 0;
  o.f = 0.0;
  return o;
}

static inline arrvm_operand arrvm_const_i64(arrvm_dtype dtype, int64_t v) {
  arrvm_operand o;
  o.array = NULL;
  o.dtype = dtype;
  o.i = v;
  o.u = (uint64_t)v;
  o.f = (double)v;
  return o;
}

static inline arrvm_operand arrvm_const_u64(arrvm_dtype dtype, uint64_t v) {
  arrvm_operand o;
  o.array = NULL;
  o.dtype = dtype;
  o.i = (int64_t)v;
  o.u = v;
  o.f = (double)v;
  return o;
}

/* Float -> integer as the identity cast, which is NumPy's on x86-64: int64
 * and int32 truncate in range, else INT64_MIN / INT32_MIN (NaN included);
 * int16, int8, uint16, uint8 take the int32 conversion's low bits; uint32
 * the int64 conversion's at 2^31 and above, else the int32 one's; uint64 at
 * 2^63 and above the int64 conversion of v - 2^63 with the top bit flipped,
 * else the int64 one's (vm/cast.hpp). */
static inline int64_t arrvm_detail_f2i64(double v) {
  return v >= -9223372036854775808.0 && v < 9223372036854775808.0 ? (int64_t)v : INT64_MIN;
}
static inline int32_t arrvm_detail_f2i32(double v) {
  return v > -2147483649.0 && v < 2147483648.0 ? (int32_t)v : INT32_MIN;
}

static inline arrvm_operand arrvm_const_f64(arrvm_dtype dtype, double v) {
  arrvm_operand o;
  o.array = NULL;
  o.dtype = dtype;
  o.f = v;
  o.i = 0;
  o.u = 0;
  switch (dtype) {
    case ARRVM_BOOL:
      o.i = (v != 0.0); /* NaN is truthy, as in NumPy */
      break;
    case ARRVM_INT8:
      o.i = (int8_t)(uint32_t)arrvm_detail_f2i32(v);
      break;
    case ARRVM_INT16:
      o.i = (int16_t)(uint32_t)arrvm_detail_f2i32(v);
      break;
    case ARRVM_INT32:
      o.i = arrvm_detail_f2i32(v);
      break;
    case ARRVM_INT64:
      o.i = arrvm_detail_f2i64(v);
      break;
    case ARRVM_UINT8:
      o.u = (uint8_t)(uint32_t)arrvm_detail_f2i32(v);
      break;
    case ARRVM_UINT16:
      o.u = (uint16_t)(uint32_t)arrvm_detail_f2i32(v);
      break;
    case ARRVM_UINT32:
      o.u = v >= 2147483648.0 ? (uint32_t)arrvm_detail_f2i64(v) : (uint32_t)arrvm_detail_f2i32(v);
      break;
    case ARRVM_UINT64:
      o.u = v >= 9223372036854775808.0
                ? (uint64_t)arrvm_detail_f2i64(v - 9223372036854775808.0) ^ (UINT64_C(1) << 63)
                : (uint64_t)arrvm_detail_f2i64(v);
      break;
    default: /* floats read f */
      break;
  }
  return o;
}

/* Validates and appends one instruction to the VM's batch. `out` is the
 * output view; `in` holds nin operands. `axis` is read by reductions and
 * scans, `seed` by random; both are ignored otherwise. `free` and `sync` are
 * not issued this way (see arrvm_release, arrvm_copy_out): ARRVM_ERR_INVALID.
 * A rejected instruction returns ARRVM_ERR_INVALID with a message naming it
 * and changes nothing. An output that shares elements with an input is
 * valid and means what NumPy means (inputs are read before the output is
 * written). If the batch becomes full it is run at once. A failure while
 * running (an index out of range, a failed compile) does not surface here or
 * in arrvm_flush: it poisons the arrays the failing kernel writes, and
 * arrvm_copy_out of one of them returns ARRVM_ERR_RUNTIME / ARRVM_ERR_BACKEND
 * with the error (docs/semantics.md). */
arrvm_status arrvm_issue(arrvm_vm* vm, arrvm_opcode op, const arrvm_array* out, int nin,
                         const arrvm_operand* in, int64_t axis, uint64_t seed);

/* Runs what is pending and copies the view's elements, row-major, to dst.
 * dst_bytes must equal nelem * arrvm_dtype_size(dtype). Reading an array
 * poisoned by a run-time failure returns that failure's status and message. */
arrvm_status arrvm_copy_out(const arrvm_array* a, void* dst, size_t dst_bytes);

/* ---- Array-level calls: NumPy's rules, as the C++ and Python APIs -------
 * These compute with NumPy's type promotion (constants are weak numbers of
 * their dtype's kind, like Python numbers: an int32 array plus an int64
 * constant stays int32, plus a float64 constant becomes float64),
 * broadcasting, true division, reduction dtypes and indexing arithmetic,
 * issuing the casts and instructions that needs. Results are new handles
 * (release them with arrvm_release). */

/* The configuration value of `key` (the short names of arrvm_vm_create) as
 * text, or NULL for an unknown key or a NULL argument. Valid until the next
 * call on this thread or until the VM is destroyed. */
const char* arrvm_vm_config(arrvm_vm* vm, const char* key);

/* NumPy's ufunc `name` (add ... arctan2, sqrt ... isfinite, and NumPy's
 * aliases true_divide, floor_divide, remainder, fabs, absolute, bitwise_not
 * ...) on nin (1 or 2) operands, at least one an array. out NULL: *result
 * is a new array. Otherwise the result is cast into out's view (broadcast
 * to it) and *result, if result is not NULL, is a new handle on out's view. */
arrvm_status arrvm_ufunc(arrvm_vm* vm, const char* name, int nin, const arrvm_operand* in,
                         const arrvm_array* out, arrvm_array** result);

/* NumPy's reduction `name` (sum prod min max all any mean) over naxes axes
 * (negative count from the end; naxes < 0: all axes), keeping them as
 * length 1 if keepdims; dtype < 0: NumPy's default (sum/prod of bools and
 * integers in int64/uint64, mean of integers in float64), else the dtype to
 * accumulate in. */
arrvm_status arrvm_reduce(const arrvm_array* a, const char* name, int naxes, const int* axes, int keepdims,
                          int dtype, arrvm_array** result);

/* A contiguous copy of a in `dtype` (NumPy's astype). */
arrvm_status arrvm_cast(const arrvm_array* a, arrvm_dtype dtype, arrvm_array** result);

/* One subscript of basic indexing: an integer (drops the axis), a slice
 * start:stop:step (an omitted part has has_* = 0), a new axis (NumPy's None)
 * or an ellipsis. */
typedef enum arrvm_subscript_kind {
  ARRVM_INDEX_INT = 0,
  ARRVM_INDEX_SLICE = 1,
  ARRVM_INDEX_NEWAXIS = 2,
  ARRVM_INDEX_ELLIPSIS = 3
} arrvm_subscript_kind;

typedef struct arrvm_subscript {
  int kind; /* arrvm_subscript_kind */
  int64_t index;
  int64_t start, stop, step;
  int has_start, has_stop, has_step;
} arrvm_subscript;

/* NumPy's a[s0, s1, ...] with basic subscripts: a new handle on a view of a's base. */
arrvm_status arrvm_index(const arrvm_array* a, int n, const arrvm_subscript* subscripts,
                         arrvm_array** result);

/* NumPy's dst[...] = src: src (an array, broadcast, or a constant) cast into
 * dst's view; an overlapping source is read completely first. */
arrvm_status arrvm_assign(const arrvm_array* dst, arrvm_operand src);
#pragma GCC visibility pop

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* ARRVM_ARRVM_H */
