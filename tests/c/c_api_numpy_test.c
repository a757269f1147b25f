/* The C ABI's array-level calls against hand-computed NumPy results:
 * promotion with weak constants, true division, broadcasting, ufuncs with
 * out, reductions over axes with keepdims and dtype, casts, basic indexing
 * with steps / new axes / ellipsis, assignment through views, and errors. */
#include <arrvm/arrvm.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

static int failures = 0;

#define CHECK(cond)                                                                            \
  do {                                                                                         \
    if (!(cond)) {                                                                             \
      fprintf(stderr, "%s:%d: CHECK(%s) failed (last error: %s)\n", __FILE__, __LINE__, #cond, \
              arrvm_last_error());                                                             \
      ++failures;                                                                              \
    }                                                                                          \
  } while (0)

static int shape_is(const arrvm_array* a, int rank, const int64_t* want) {
  int64_t s[8];
  if (arrvm_array_rank(a) != rank) return 0;
  if (arrvm_array_shape(a, s) != ARRVM_OK) return 0;
  for (int i = 0; i < rank; ++i)
    if (s[i] != want[i]) return 0;
  return 1;
}

int main(void) {
  arrvm_vm* vm = NULL;
  CHECK(arrvm_vm_create("backend=ref", &vm) == ARRVM_OK);
  CHECK(strcmp(arrvm_version(), "") != 0);
  CHECK(strcmp(arrvm_vm_config(vm, "backend"), "ref") == 0);
  CHECK(arrvm_vm_config(vm, "no_such_key") == NULL);

  /* a = [[0 1 2] [3 4 5]] int32 */
  const int32_t av[6] = {0, 1, 2, 3, 4, 5};
  const int64_t s23[2] = {2, 3};
  arrvm_array* a = NULL;
  CHECK(arrvm_from_host(vm, ARRVM_INT32, 2, s23, av, &a) == ARRVM_OK);

  /* int32 + weak int64 constant stays int32; + weak float -> float64 */
  arrvm_operand in[2] = {arrvm_arr(a), arrvm_const_i64(ARRVM_INT64, 10)};
  arrvm_array* r = NULL;
  CHECK(arrvm_ufunc(vm, "add", 2, in, NULL, &r) == ARRVM_OK);
  CHECK(arrvm_array_dtype(r) == ARRVM_INT32);
  int32_t ri[6];
  CHECK(arrvm_copy_out(r, ri, sizeof ri) == ARRVM_OK);
  CHECK(ri[0] == 10 && ri[5] == 15);
  arrvm_release(r);

  in[1] = arrvm_const_f64(ARRVM_FLOAT64, 0.5);
  CHECK(arrvm_ufunc(vm, "multiply", 2, in, NULL, &r) == ARRVM_OK);
  CHECK(arrvm_array_dtype(r) == ARRVM_FLOAT64);
  double rd[6];
  CHECK(arrvm_copy_out(r, rd, sizeof rd) == ARRVM_OK);
  CHECK(rd[3] == 1.5);
  arrvm_release(r);

  /* true division of ints gives float64; broadcasting a row */
  arrvm_array* row = NULL;
  arrvm_subscript sub[3];
  memset(sub, 0, sizeof sub);
  sub[0].kind = ARRVM_INDEX_INT;
  sub[0].index = -1; /* a[-1] = [3 4 5] */
  CHECK(arrvm_index(a, 1, sub, &row) == ARRVM_OK);
  const int64_t s3[1] = {3};
  CHECK(shape_is(row, 1, s3));
  in[0] = arrvm_arr(a);
  in[1] = arrvm_arr(row);
  CHECK(arrvm_ufunc(vm, "true_divide", 2, in, NULL, &r) == ARRVM_OK);
  CHECK(arrvm_array_dtype(r) == ARRVM_FLOAT64 && shape_is(r, 2, s23));
  CHECK(arrvm_copy_out(r, rd, sizeof rd) == ARRVM_OK);
  CHECK(fabs(rd[1] - 0.25) < 1e-15 && rd[5] == 1.0);

  /* sqrt with out= into a float32 array */
  arrvm_array* o32 = NULL;
  CHECK(arrvm_empty(vm, ARRVM_FLOAT32, 2, s23, &o32) == ARRVM_OK);
  in[0] = arrvm_arr(a);
  CHECK(arrvm_ufunc(vm, "sqrt", 1, in, o32, NULL) == ARRVM_OK);
  float rf[6];
  CHECK(arrvm_copy_out(o32, rf, sizeof rf) == ARRVM_OK);
  CHECK(fabsf(rf[4] - 2.0f) < 1e-6f);
  arrvm_release(o32);
  arrvm_release(r);

  /* reductions: sum over axis 0 (int32 -> int64), keepdims; mean over all; sum(dtype=float32) */
  const int ax0[1] = {0};
  CHECK(arrvm_reduce(a, "sum", 1, ax0, 1, -1, &r) == ARRVM_OK);
  const int64_t s13[2] = {1, 3};
  CHECK(arrvm_array_dtype(r) == ARRVM_INT64 && shape_is(r, 2, s13));
  int64_t r3[3];
  CHECK(arrvm_copy_out(r, r3, sizeof r3) == ARRVM_OK);
  CHECK(r3[0] == 3 && r3[1] == 5 && r3[2] == 7);
  arrvm_release(r);
  CHECK(arrvm_reduce(a, "mean", -1, NULL, 0, -1, &r) == ARRVM_OK);
  CHECK(arrvm_array_rank(r) == 0 && arrvm_array_dtype(r) == ARRVM_FLOAT64);
  double m = 0;
  CHECK(arrvm_copy_out(r, &m, sizeof m) == ARRVM_OK);
  CHECK(m == 2.5);
  arrvm_release(r);
  const int ax_last[1] = {-1};
  CHECK(arrvm_reduce(a, "max", 1, ax_last, 0, -1, &r) == ARRVM_OK);
  int32_t mx[2];
  CHECK(arrvm_copy_out(r, mx, sizeof mx) == ARRVM_OK);
  CHECK(mx[0] == 2 && mx[1] == 5);
  arrvm_release(r);
  CHECK(arrvm_reduce(a, "sum", -1, NULL, 0, ARRVM_FLOAT32, &r) == ARRVM_OK);
  CHECK(arrvm_array_dtype(r) == ARRVM_FLOAT32);
  arrvm_release(r);

  /* cast */
  CHECK(arrvm_cast(a, ARRVM_UINT8, &r) == ARRVM_OK);
  CHECK(arrvm_array_dtype(r) == ARRVM_UINT8 && shape_is(r, 2, s23));
  arrvm_release(r);

  /* a[..., ::-2][None] has shape (1, 2, 2): [[2 0] [5 3]] */
  memset(sub, 0, sizeof sub);
  sub[0].kind = ARRVM_INDEX_NEWAXIS;
  sub[1].kind = ARRVM_INDEX_ELLIPSIS;
  sub[2].kind = ARRVM_INDEX_SLICE;
  sub[2].has_step = 1;
  sub[2].step = -2;
  CHECK(arrvm_index(a, 3, sub, &r) == ARRVM_OK);
  const int64_t s122[3] = {1, 2, 2};
  CHECK(shape_is(r, 3, s122));
  int32_t rv[4];
  CHECK(arrvm_copy_out(r, rv, sizeof rv) == ARRVM_OK);
  CHECK(rv[0] == 2 && rv[1] == 0 && rv[2] == 5 && rv[3] == 3);

  /* writing the view writes a: a[:, ::-2] = 7 */
  CHECK(arrvm_assign(r, arrvm_const_i64(ARRVM_INT64, 7)) == ARRVM_OK);
  int32_t all[6];
  CHECK(arrvm_copy_out(a, all, sizeof all) == ARRVM_OK);
  CHECK(all[0] == 7 && all[1] == 1 && all[2] == 7 && all[3] == 7 && all[4] == 4 && all[5] == 7);
  arrvm_release(r);

  /* a[1] = a[0] (overlap-free) through arrvm_assign */
  CHECK(arrvm_assign(row, arrvm_arr(a)) != ARRVM_OK); /* shape (2,3) into (3,): a ValueError in NumPy */
  memset(sub, 0, sizeof sub);
  sub[0].kind = ARRVM_INDEX_INT;
  sub[0].index = 0;
  arrvm_array* row0 = NULL;
  CHECK(arrvm_index(a, 1, sub, &row0) == ARRVM_OK);
  CHECK(arrvm_assign(row, arrvm_arr(row0)) == ARRVM_OK);
  CHECK(arrvm_copy_out(a, all, sizeof all) == ARRVM_OK);
  CHECK(all[3] == 7 && all[4] == 1 && all[5] == 7);
  arrvm_release(row0);

  /* errors: unknown ufunc, bitwise on floats, broadcast mismatch, index out of bounds, bad axis */
  in[0] = arrvm_arr(a);
  CHECK(arrvm_ufunc(vm, "no_such_ufunc", 1, in, NULL, &r) == ARRVM_ERR_INVALID);
  in[1] = arrvm_const_f64(ARRVM_FLOAT64, 1.5);
  CHECK(arrvm_ufunc(vm, "bitwise_and", 2, in, NULL, &r) == ARRVM_ERR_INVALID);
  const int64_t s4[1] = {4};
  arrvm_array* four = NULL;
  CHECK(arrvm_empty(vm, ARRVM_INT32, 1, s4, &four) == ARRVM_OK);
  in[1] = arrvm_arr(four);
  CHECK(arrvm_ufunc(vm, "add", 2, in, NULL, &r) == ARRVM_ERR_INVALID);
  CHECK(strstr(arrvm_last_error(), "broadcast") != NULL);
  sub[0].index = 2;
  CHECK(arrvm_index(a, 1, sub, &r) == ARRVM_ERR_INVALID);
  const int ax5[1] = {5};
  CHECK(arrvm_reduce(a, "sum", 1, ax5, 0, -1, &r) == ARRVM_ERR_INVALID);
  CHECK(arrvm_ufunc(NULL, "add", 2, in, NULL, &r) == ARRVM_ERR_INVALID);

  arrvm_release(four);
  arrvm_release(row);
  arrvm_release(a);
  arrvm_vm_destroy(vm);
  if (failures) {
    fprintf(stderr, "%d check(s) failed\n", failures);
    return 1;
  }
  printf("c_api_numpy_test: all checks passed\n");
  return 0;
}
