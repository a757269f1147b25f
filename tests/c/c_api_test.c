/* The C ABI from C: includes only arrvm.h and libc, links -larrvm. Expected
 * values are computed by hand in the comments next to them. Prints
 * "N passed, M failed" on its last line; exits non-zero on any failure. */
#include <arrvm/arrvm.h>

#include <stdio.h>
#include <string.h>

static int g_passed = 0;
static int g_failed = 0;

static void check(int ok, const char* what, int line) {
  if (ok) {
    ++g_passed;
  } else {
    ++g_failed;
    printf("FAILED (line %d): %s\n", line, what);
  }
}

#define CHECK(cond) check((cond) ? 1 : 0, #cond, __LINE__)

/* Runs a call that must succeed, printing arrvm_last_error if it does not. */
#define CHECK_OK(call)                                                              \
  do {                                                                              \
    arrvm_status st_ = (call);                                                      \
    if (st_ != ARRVM_OK) printf("  status %d: %s\n", (int)st_, arrvm_last_error()); \
    check(st_ == ARRVM_OK, #call, __LINE__);                                        \
  } while (0)

static void check_f64(const arrvm_array* a, const double* want, int n, int line) {
  double got[16];
  int i;
  int ok;
  memset(got, 0, sizeof got);
  ok = arrvm_copy_out(a, got, (size_t)n * sizeof(double)) == ARRVM_OK;
  if (!ok) printf("  copy_out: %s\n", arrvm_last_error());
  for (i = 0; ok && i < n; ++i) {
    if (got[i] != want[i]) {
      printf("  element %d: got %.17g, want %.17g\n", i, got[i], want[i]);
      ok = 0;
    }
  }
  check(ok, "float64 contents", line);
}

static void check_i32(const arrvm_array* a, const int32_t* want, int n, int line) {
  int32_t got[16];
  int i;
  int ok;
  memset(got, 0, sizeof got);
  ok = arrvm_copy_out(a, got, (size_t)n * sizeof(int32_t)) == ARRVM_OK;
  if (!ok) printf("  copy_out: %s\n", arrvm_last_error());
  for (i = 0; ok && i < n; ++i) {
    if (got[i] != want[i]) {
      printf("  element %d: got %d, want %d\n", i, (int)got[i], (int)want[i]);
      ok = 0;
    }
  }
  check(ok, "int32 contents", line);
}

static void test_tables(void) {
  arrvm_opcode op = ARRVM_OP_IDENTITY;
  arrvm_dtype dt = ARRVM_BOOL;
  CHECK(strcmp(arrvm_opcode_name(ARRVM_OP_ADD_REDUCE), "add_reduce") == 0);
  CHECK(strcmp(arrvm_opcode_name(ARRVM_OP_SYNC), "sync") == 0);
  CHECK(arrvm_opcode_name((arrvm_opcode)1000) == NULL);
  CHECK(arrvm_opcode_from_name("greater_equal", &op) == 1 && op == ARRVM_OP_GREATER_EQUAL);
  CHECK(arrvm_opcode_from_name("no_such_op", &op) == 0);
  CHECK(arrvm_dtype_size(ARRVM_BOOL) == 1);
  CHECK(arrvm_dtype_size(ARRVM_INT16) == 2);
  CHECK(arrvm_dtype_size(ARRVM_UINT32) == 4);
  CHECK(arrvm_dtype_size(ARRVM_FLOAT64) == 8);
  CHECK(arrvm_dtype_size((arrvm_dtype)99) == 0);
  CHECK(arrvm_dtype_from_name("uint16", &dt) == 1 && dt == ARRVM_UINT16);
  CHECK(strcmp(arrvm_dtype_name(ARRVM_FLOAT32), "float32") == 0);
}

static void test_constants(void) {
  /* The helpers fill the field the library reads for the dtype. */
  /* Float to int as NumPy on x86-64 (vm/cast.hpp): the int32 conversion's low bits for int8 and uint8. */
  CHECK(arrvm_const_f64(ARRVM_INT8, 300.0).i == 44);
  CHECK(arrvm_const_f64(ARRVM_INT32, -2.9).i == -2); /* truncates */
  CHECK(arrvm_const_f64(ARRVM_UINT8, -5.0).u == 251);
  CHECK(arrvm_const_f64(ARRVM_UINT64, 1e30).u == 0);
  CHECK(arrvm_const_f64(ARRVM_INT64, -1e30).i == INT64_MIN);
  CHECK(arrvm_const_f64(ARRVM_BOOL, 0.5).i == 1);
  CHECK(arrvm_const_i64(ARRVM_FLOAT64, 7).f == 7.0);
  CHECK(arrvm_const_i64(ARRVM_UINT64, -1).u == UINT64_MAX); /* wraps */
  CHECK(arrvm_const_u64(ARRVM_FLOAT32, 3).f == 3.0);
}

/* y = a[1::2] * b[::2] + 2 in float64; z = c * 3 + 2 in int32; strided reads. */
static void test_elementwise(arrvm_vm* vm) {
  const int64_t n6[1] = {6};
  const int64_t n3[1] = {3};
  const int64_t two[1] = {2};
  const double av[6] = {1, 2, 3, 4, 5, 6};
  const double bv[6] = {10, 20, 30, 40, 50, 60};
  arrvm_array *a = NULL, *b = NULL, *as = NULL, *bs = NULL, *t = NULL, *y = NULL;
  arrvm_operand in[2];
  int64_t shape[1] = {0}, stride[1] = {0};

  CHECK_OK(arrvm_from_host(vm, ARRVM_FLOAT64, 1, n6, av, &a));
  CHECK_OK(arrvm_from_host(vm, ARRVM_FLOAT64, 1, n6, bv, &b));
  CHECK_OK(arrvm_view(a, 1, 1, n3, two, &as)); /* 2, 4, 6 */
  CHECK_OK(arrvm_view(b, 0, 1, n3, two, &bs)); /* 10, 30, 50 */
  CHECK(arrvm_array_dtype(as) == ARRVM_FLOAT64);
  CHECK(arrvm_array_rank(as) == 1);
  CHECK(arrvm_array_offset(as) == 1);
  CHECK(arrvm_array_shape(as, shape) == ARRVM_OK && shape[0] == 3);
  CHECK(arrvm_array_stride(as, stride) == ARRVM_OK && stride[0] == 2);
  CHECK_OK(arrvm_empty(vm, ARRVM_FLOAT64, 1, n3, &t));
  CHECK_OK(arrvm_empty(vm, ARRVM_FLOAT64, 1, n3, &y));
  in[0] = arrvm_arr(as);
  in[1] = arrvm_arr(bs);
  CHECK_OK(arrvm_issue(vm, ARRVM_OP_MULTIPLY, t, 2, in, 0, 0));
  in[0] = arrvm_arr(t);
  in[1] = arrvm_const_f64(ARRVM_FLOAT64, 2.0);
  CHECK_OK(arrvm_issue(vm, ARRVM_OP_ADD, y, 2, in, 0, 0));
  {
    const double want[3] = {22, 122, 302}; /* 2*10+2, 4*30+2, 6*50+2 */
    const double want_as[3] = {2, 4, 6};
    check_f64(y, want, 3, __LINE__);
    check_f64(as, want_as, 3, __LINE__); /* a strided view, read back */
  }
  /* An output into a view: a[0:6:2] = y (a becomes 22,2,122,4,302,6). */
  {
    arrvm_array* a_even = NULL;
    const double want_a[6] = {22, 2, 122, 4, 302, 6};
    CHECK_OK(arrvm_view(a, 0, 1, n3, two, &a_even));
    in[0] = arrvm_arr(y);
    CHECK_OK(arrvm_issue(vm, ARRVM_OP_IDENTITY, a_even, 1, in, 0, 0));
    arrvm_release(a_even); /* a still holds the base */
    check_f64(a, want_a, 6, __LINE__);
  }
  arrvm_release(a);
  arrvm_release(b);
  arrvm_release(as);
  arrvm_release(bs);
  arrvm_release(t);
  arrvm_release(y);

  {
    const int64_t s23[2] = {2, 3};
    const int64_t s32[2] = {3, 2};
    const int64_t tr[2] = {1, 3};
    const int64_t rev[1] = {-1};
    const int32_t cv[6] = {1, 2, 3, 4, 5, 6};
    arrvm_array *c = NULL, *z = NULL, *ct = NULL, *cr = NULL;
    CHECK_OK(arrvm_from_host(vm, ARRVM_INT32, 2, s23, cv, &c));
    CHECK_OK(arrvm_empty(vm, ARRVM_INT32, 2, s23, &z));
    in[0] = arrvm_arr(c);
    in[1] = arrvm_const_i64(ARRVM_INT32, 3);
    CHECK_OK(arrvm_issue(vm, ARRVM_OP_MULTIPLY, z, 2, in, 0, 0));
    in[0] = arrvm_arr(z);
    in[1] = arrvm_const_i64(ARRVM_INT32, 2);
    CHECK_OK(arrvm_issue(vm, ARRVM_OP_ADD, z, 2, in, 0, 0)); /* in place */
    {
      const int32_t want[6] = {5, 8, 11, 14, 17, 20};
      check_i32(z, want, 6, __LINE__);
    }
    CHECK_OK(arrvm_view(c, 0, 2, s32, tr, &ct)); /* the transpose */
    {
      const int32_t want[6] = {1, 4, 2, 5, 3, 6};
      check_i32(ct, want, 6, __LINE__);
    }
    CHECK_OK(arrvm_view(c, 5, 1, n6, rev, &cr)); /* reversed */
    {
      const int32_t want[6] = {6, 5, 4, 3, 2, 1};
      check_i32(cr, want, 6, __LINE__);
    }
    arrvm_release(c);
    arrvm_release(z);
    arrvm_release(ct);
    arrvm_release(cr);
  }
}

/* add_reduce of [[1,2,3],[4,5,6]] along each axis, and a full sum. */
static void test_reductions(arrvm_vm* vm) {
  const int64_t s23[2] = {2, 3};
  const int64_t n2[1] = {2};
  const int64_t n3[1] = {3};
  const double mv[6] = {1, 2, 3, 4, 5, 6};
  const int32_t iv[6] = {1, -2, 3, -4, 5, -6};
  arrvm_array *m = NULL, *r0 = NULL, *r1 = NULL, *total = NULL, *im = NULL, *ir = NULL;
  arrvm_operand in[1];

  CHECK_OK(arrvm_from_host(vm, ARRVM_FLOAT64, 2, s23, mv, &m));
  CHECK_OK(arrvm_empty(vm, ARRVM_FLOAT64, 1, n3, &r0));
  CHECK_OK(arrvm_empty(vm, ARRVM_FLOAT64, 1, n2, &r1));
  CHECK_OK(arrvm_empty(vm, ARRVM_FLOAT64, 0, NULL, &total));
  in[0] = arrvm_arr(m);
  CHECK_OK(arrvm_issue(vm, ARRVM_OP_ADD_REDUCE, r0, 1, in, 0, 0));
  CHECK_OK(arrvm_issue(vm, ARRVM_OP_ADD_REDUCE, r1, 1, in, 1, 0));
  in[0] = arrvm_arr(r0);
  CHECK_OK(arrvm_issue(vm, ARRVM_OP_ADD_REDUCE, total, 1, in, 0, 0));
  {
    const double w0[3] = {5, 7, 9};
    const double w1[2] = {6, 15};
    const double wt[1] = {21};
    check_f64(r0, w0, 3, __LINE__);
    check_f64(r1, w1, 2, __LINE__);
    check_f64(total, wt, 1, __LINE__);
  }
  CHECK(arrvm_array_rank(total) == 0);

  CHECK_OK(arrvm_from_host(vm, ARRVM_INT32, 2, s23, iv, &im));
  CHECK_OK(arrvm_empty(vm, ARRVM_INT32, 1, n2, &ir));
  in[0] = arrvm_arr(im);
  CHECK_OK(arrvm_issue(vm, ARRVM_OP_ADD_REDUCE, ir, 1, in, 1, 0));
  {
    const int32_t want[2] = {2, -5}; /* 1-2+3, -4+5-6 */
    check_i32(ir, want, 2, __LINE__);
  }
  arrvm_release(m);
  arrvm_release(r0);
  arrvm_release(r1);
  arrvm_release(total);
  arrvm_release(im);
  arrvm_release(ir);
}

/* Rejected instructions: INVALID with a message naming the opcode; the VM
 * keeps working. */
static void test_rejections(arrvm_vm* vm) {
  const int64_t n3[1] = {3};
  const int64_t n4[1] = {4};
  const double v3[3] = {1, 2, 3};
  const double v4[4] = {1, 2, 3, 4};
  arrvm_array *x3 = NULL, *x4 = NULL, *out = NULL;
  arrvm_operand in[2];
  arrvm_status st;

  CHECK_OK(arrvm_from_host(vm, ARRVM_FLOAT64, 1, n3, v3, &x3));
  CHECK_OK(arrvm_from_host(vm, ARRVM_FLOAT64, 1, n4, v4, &x4));
  CHECK_OK(arrvm_empty(vm, ARRVM_FLOAT64, 1, n3, &out));

  in[0] = arrvm_arr(x3);
  in[1] = arrvm_arr(x4);
  st = arrvm_issue(vm, ARRVM_OP_SUBTRACT, out, 2, in, 0, 0);
  CHECK(st == ARRVM_ERR_INVALID);
  CHECK(arrvm_last_error()[0] != '\0');
  CHECK(strstr(arrvm_last_error(), "subtract") != NULL);
  printf("  rejected as expected: %s\n", arrvm_last_error());

  st = arrvm_issue(vm, ARRVM_OP_SYNC, out, 0, NULL, 0, 0);
  CHECK(st == ARRVM_ERR_INVALID);
  CHECK(strstr(arrvm_last_error(), "sync") != NULL);

  in[1] = arrvm_arr(x3);
  CHECK_OK(arrvm_issue(vm, ARRVM_OP_SUBTRACT, out, 2, in, 0, 0));
  in[0] = arrvm_arr(out);
  in[1] = arrvm_const_i64(ARRVM_FLOAT64, 5);
  CHECK_OK(arrvm_issue(vm, ARRVM_OP_ADD, out, 2, in, 0, 0));
  {
    const double want[3] = {5, 5, 5}; /* x3 - x3 + 5 */
    check_f64(out, want, 3, __LINE__);
  }
  arrvm_release(x3);
  arrvm_release(x4);
  arrvm_release(out);
}

/* A gather with an index out of range poisons what it writes: reading that
 * array fails with ARRVM_ERR_RUNTIME naming the gather; an unrelated array
 * computed in the same batch reads back right. */
static void test_poisoned(arrvm_vm* vm) {
  const int64_t n3[1] = {3};
  const int64_t n4[1] = {4};
  const double src_v[4] = {1, 2, 3, 4};
  const int64_t bad_idx[3] = {0, 9, 1};
  double got[3];
  arrvm_array *src = NULL, *idx = NULL, *out = NULL, *other = NULL;
  arrvm_operand in[2];
  arrvm_status st;

  CHECK_OK(arrvm_from_host(vm, ARRVM_FLOAT64, 1, n4, src_v, &src));
  CHECK_OK(arrvm_from_host(vm, ARRVM_INT64, 1, n3, bad_idx, &idx));
  CHECK_OK(arrvm_empty(vm, ARRVM_FLOAT64, 1, n3, &out));
  CHECK_OK(arrvm_empty(vm, ARRVM_FLOAT64, 1, n4, &other));
  in[0] = arrvm_arr(src);
  in[1] = arrvm_arr(idx);
  CHECK_OK(arrvm_issue(vm, ARRVM_OP_GATHER, out, 2, in, 0, 0));
  in[1] = arrvm_const_i64(ARRVM_FLOAT64, 1);
  CHECK_OK(arrvm_issue(vm, ARRVM_OP_ADD, other, 2, in, 0, 0));
  {
    const double want[4] = {2, 3, 4, 5};
    check_f64(other, want, 4, __LINE__);
  }
  st = arrvm_copy_out(out, got, sizeof got);
  CHECK(st == ARRVM_ERR_RUNTIME);
  CHECK(strstr(arrvm_last_error(), "gather") != NULL);
  CHECK(strstr(arrvm_last_error(), "index 9 out of range") != NULL);
  printf("  poisoned as expected: %s\n", arrvm_last_error());
  st = arrvm_copy_out(out, got, sizeof got); /* the error stays with the array */
  CHECK(st == ARRVM_ERR_RUNTIME);
  check_f64(src, src_v, 4, __LINE__);
  arrvm_release(src);
  arrvm_release(idx);
  arrvm_release(out);
  arrvm_release(other);
}

/* arrvm_wrap_host: the VM computes in the caller's memory; the deleter runs
 * exactly once, after the last handle is released and its free has run. */
typedef struct wrap_ctx {
  int calls;
  void* seen;
} wrap_ctx;

static void count_deleter(void* data, void* ctx) {
  wrap_ctx* c = (wrap_ctx*)ctx;
  ++c->calls;
  c->seen = data;
}

static void test_wrap_host(arrvm_vm* vm, int shares) {
  const int64_t n4[1] = {4};
  const int64_t n2[1] = {2};
  const int64_t one[1] = {1};
  double mem[4] = {1, 2, 3, 4};
  arrvm_array *w = NULL, *half = NULL, *r = NULL;
  arrvm_operand in[2];
  wrap_ctx ctx = {0, NULL};
  int32_t none = 0;

  CHECK_OK(arrvm_wrap_host(vm, ARRVM_FLOAT64, 1, n4, mem, count_deleter, &ctx, &w));
  {
    const double want[4] = {1, 2, 3, 4}; /* read from mem itself */
    check_f64(w, want, 4, __LINE__);
  }
  /* w[0:2] = w[0:2] * 10 in place, and r = w + 1 (a new base). */
  CHECK_OK(arrvm_view(w, 0, 1, n2, one, &half));
  in[0] = arrvm_arr(half);
  in[1] = arrvm_const_f64(ARRVM_FLOAT64, 10.0);
  CHECK_OK(arrvm_issue(vm, ARRVM_OP_MULTIPLY, half, 2, in, 0, 0));
  CHECK_OK(arrvm_empty(vm, ARRVM_FLOAT64, 1, n4, &r));
  in[0] = arrvm_arr(w);
  in[1] = arrvm_const_f64(ARRVM_FLOAT64, 1.0);
  CHECK_OK(arrvm_issue(vm, ARRVM_OP_ADD, r, 2, in, 0, 0));
  {
    const double want[4] = {11, 21, 4, 5}; /* 1*10+1, 2*10+1, 3+1, 4+1 */
    check_f64(r, want, 4, __LINE__);
  }
  if (shares) {
    /* The VM wrote into mem (host backends). */
    CHECK(mem[0] == 10.0 && mem[1] == 20.0 && mem[2] == 3.0 && mem[3] == 4.0);
    CHECK(ctx.calls == 0);
  } else {
    /* A device backend copied the contents and ran the deleter at once. */
    CHECK(mem[0] == 1.0 && ctx.calls == 1);
  }
  arrvm_release(half);
  CHECK_OK(arrvm_flush(vm));
  CHECK(ctx.calls == (shares ? 0 : 1)); /* w still holds the base */
  arrvm_release(w);
  CHECK_OK(arrvm_flush(vm)); /* runs the free */
  CHECK(ctx.calls == 1);
  CHECK(ctx.seen == (void*)mem);
  CHECK_OK(arrvm_flush(vm));
  CHECK(ctx.calls == 1); /* exactly once */
  arrvm_release(r);

  /* Zero elements: the deleter runs at once; data may be NULL. */
  {
    const int64_t zero[1] = {0};
    wrap_ctx z = {0, NULL};
    arrvm_array* e = NULL;
    CHECK_OK(arrvm_wrap_host(vm, ARRVM_INT32, 1, zero, NULL, count_deleter, &z, &e));
    CHECK(z.calls == 1);
    arrvm_release(e);
    CHECK_OK(arrvm_flush(vm));
    CHECK(z.calls == 1);
  }
  /* Rejected calls wrap nothing and leave the deleter alone. */
  {
    wrap_ctx bad = {0, NULL};
    arrvm_array* e = NULL;
    CHECK(arrvm_wrap_host(vm, ARRVM_INT32, 1, n4, NULL, count_deleter, &bad, &e) == ARRVM_ERR_INVALID);
    CHECK(strstr(arrvm_last_error(), "data is NULL") != NULL);
    CHECK(arrvm_wrap_host(vm, (arrvm_dtype)99, 1, n4, &none, count_deleter, &bad, &e) == ARRVM_ERR_INVALID);
    CHECK(arrvm_wrap_host(NULL, ARRVM_INT32, 1, n4, &none, count_deleter, &bad, &e) == ARRVM_ERR_INVALID);
    CHECK(e == NULL && bad.calls == 0);
  }
  /* No deleter: the caller keeps the memory. */
  {
    int32_t im[2] = {5, 7};
    arrvm_array *iw = NULL, *s = NULL;
    CHECK_OK(arrvm_wrap_host(vm, ARRVM_INT32, 1, n2, im, NULL, NULL, &iw));
    CHECK_OK(arrvm_empty(vm, ARRVM_INT32, 1, n2, &s));
    in[0] = arrvm_arr(iw);
    in[1] = arrvm_arr(iw);
    CHECK_OK(arrvm_issue(vm, ARRVM_OP_MULTIPLY, s, 2, in, 0, 0));
    {
      const int32_t want[2] = {25, 49};
      check_i32(s, want, 2, __LINE__);
    }
    arrvm_release(iw);
    arrvm_release(s);
    CHECK_OK(arrvm_flush(vm));
  }
}

int main(void) {
  arrvm_vm* vm = NULL;
  test_tables();
  test_constants();
  CHECK_OK(arrvm_vm_create("backend=ref fuser=singleton", &vm));
  if (vm != NULL) {
    test_elementwise(vm);
    test_reductions(vm);
    test_rejections(vm);
    test_poisoned(vm);
    test_wrap_host(vm, 1);
    CHECK_OK(arrvm_flush(vm));
    arrvm_vm_destroy(vm);
  }
  /* The default backend (cpu, or ARRVM_BACKEND: opencl copies instead of sharing). */
  vm = NULL;
  CHECK_OK(arrvm_vm_create("", &vm));
  if (vm != NULL) {
    const char* backend = arrvm_vm_config(vm, "backend");
    test_wrap_host(vm, backend != NULL && (strcmp(backend, "cpu") == 0 || strcmp(backend, "ref") == 0));
    arrvm_vm_destroy(vm);
  }
  printf("%d passed, %d failed\n", g_passed, g_failed);
  return g_failed == 0 ? 0 : 1;
}
