// Compiled by the top_refuses_* tests with the include path of the arrvm
// program: the tests are beside the product, so this must not compile
// ("tests/cpu_test_util.hpp: No such file or directory").
#include "tests/cpu_test_util.hpp"
