/* Uses the C ABI of an installed libarrvm, built with
 * `cc main.c $(pkg-config --cflags --libs arrvm)`: 2 * [0 1 2 3] + 1 = [1 3 5 7]. */
#include <arrvm/arrvm.h>

#include <stdio.h>
#include <string.h>

int main(void) {
  if (strcmp(arrvm_version(), ARRVM_VERSION_STRING) != 0) return 1;
  arrvm_vm* vm = NULL;
  if (arrvm_vm_create("backend=ref", &vm) != ARRVM_OK) {
    fprintf(stderr, "%s\n", arrvm_last_error());
    return 1;
  }
  const int64_t shape[1] = {4};
  const double in[4] = {0, 1, 2, 3};
  arrvm_array *a = NULL, *b = NULL;
  if (arrvm_from_host(vm, ARRVM_FLOAT64, 1, shape, in, &a) != ARRVM_OK ||
      arrvm_empty(vm, ARRVM_FLOAT64, 1, shape, &b) != ARRVM_OK) {
    fprintf(stderr, "%s\n", arrvm_last_error());
    return 1;
  }
  arrvm_operand mul[2] = {arrvm_arr(a), arrvm_const_f64(ARRVM_FLOAT64, 2.0)};
  arrvm_operand add[2] = {arrvm_arr(b), arrvm_const_f64(ARRVM_FLOAT64, 1.0)};
  double out[4];
  if (arrvm_issue(vm, ARRVM_OP_MULTIPLY, b, 2, mul, 0, 0) != ARRVM_OK ||
      arrvm_issue(vm, ARRVM_OP_ADD, b, 2, add, 0, 0) != ARRVM_OK ||
      arrvm_copy_out(b, out, sizeof out) != ARRVM_OK) {
    fprintf(stderr, "%s\n", arrvm_last_error());
    return 1;
  }
  printf("libarrvm %s: [%g %g %g %g]\n", arrvm_version(), out[0], out[1], out[2], out[3]);
  arrvm_release(a);
  arrvm_release(b);
  arrvm_vm_destroy(vm);
  return out[0] == 1 && out[1] == 3 && out[2] == 5 && out[3] == 7 ? 0 : 1;
}
