/* A program that compiles kernels on the cpu backend and then leaves without
 * cleaning up, the ways a real program does: tests/process/work_dirs.sh runs
 * it with TMPDIR set to a fresh directory and checks that nothing of the
 * compiler is left there.
 *
 *   exit_helper MODE      MODE: exit   (_exit(0): no destructors, no atexit)
 *                               kill   (SIGKILL itself after the compile)
 *                               fail   (the compile fails: cc=false; then _exit)
 *                               midcompile CC (compiles with CC, a script
 *                                        that SIGKILLs this process first)
 *                               clean  (destroys everything, returns from main)
 *                               bgexit CC (tiered: the result comes interpreted
 *                                        while CC, a slow script, compiles the
 *                                        kernel in the background; then _exit
 *                                        0.3 s into that compile)
 *                               bgclean (tiered: destroys the VM during the
 *                                        background compile, returns from main)
 *
 * The other modes compile before the kernel runs (tiered=off).
 * Prints the kernel's result and exits 0 when the run went as the mode
 * expects (exit status 3 otherwise; "kill" dies of SIGKILL). */
#include <arrvm/arrvm.h>

#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static int fail(const char* what) {
  fprintf(stderr, "exit_helper: %s: %s\n", what, arrvm_last_error());
  return 3;
}

int main(int argc, char** argv) {
  const char* mode = argc > 1 ? argv[1] : "exit";
  const int compile_fails = strcmp(mode, "fail") == 0;
  /* A private, memory-only kernel cache: every kernel is compiled here. */
  const int background = strcmp(mode, "bgexit") == 0 || strcmp(mode, "bgclean") == 0;
  char options[4096] = "backend=cpu cache=memory trace= profile=";
  strcat(options, background ? " tiered=on" : " tiered=off");
  strcat(options, " eager=off"); /* (its 1000 elements would run eagerly: no compile) */
  if (compile_fails) strcat(options, " cc=false");
  if ((strcmp(mode, "midcompile") == 0 || strcmp(mode, "bgexit") == 0) && argc > 2 &&
      strlen(argv[2]) < 4000) {
    strcat(options, " cc=");
    strcat(options, argv[2]);
  }
  arrvm_vm* vm = NULL;
  arrvm_array *a = NULL, *b = NULL;
  const int64_t n = 1000;
  double x[1000], y[1000];
  int i;
  arrvm_operand in[2];
  arrvm_status st;
  for (i = 0; i < n; ++i) x[i] = i;
  if (arrvm_vm_create(options, &vm) != ARRVM_OK) return fail("vm_create");
  if (arrvm_from_host(vm, ARRVM_FLOAT64, 1, &n, x, &a) != ARRVM_OK) return fail("from_host");
  if (arrvm_empty(vm, ARRVM_FLOAT64, 1, &n, &b) != ARRVM_OK) return fail("empty");
  in[0] = arrvm_arr(a);
  in[1] = arrvm_const_f64(ARRVM_FLOAT64, 0.5);
  if (arrvm_issue(vm, ARRVM_OP_MULTIPLY, b, 2, in, 0, 0) != ARRVM_OK) return fail("issue");
  st = arrvm_copy_out(b, y, sizeof y);
  if (compile_fails) {
    if (st != ARRVM_ERR_BACKEND) return fail("the compile did not fail");
    _exit(0);
  }
  if (st != ARRVM_OK) return fail("copy_out");
  for (i = 0; i < n; ++i)
    if (y[i] != 0.5 * i) return fail("wrong result");
  printf("exit_helper %s: y[999] = %g\n", mode, y[999]);
  fflush(stdout);
  if (strcmp(mode, "kill") == 0) raise(SIGKILL);
  if (strcmp(mode, "bgexit") == 0) usleep(300000); /* (the compile has started) */
  if (strcmp(mode, "clean") == 0 || strcmp(mode, "bgclean") == 0) {
    arrvm_release(a);
    arrvm_release(b);
    arrvm_vm_destroy(vm);
    return 0;
  }
  _exit(0);
}
