// Compiled by the top_refuses_* tests with the include path of the arrvm
// program (the library's layers and programs/): the benchmark harness is
// beside the product, not below it, so this must not compile
// ("bench/hand_c/hand_kernels.h: No such file or directory").
#include "bench/hand_c/hand_kernels.h"
