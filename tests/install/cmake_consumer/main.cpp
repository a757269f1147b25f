// Uses the C++ API of an installed libarrvm: NumPy's a[1:] - a[:-1] on
// arange(10) is nine ones; prints with operator<< and checks the headers'
// version against the loaded library's.
#include <arrvm/arrvm.h>
#include <arrvm/arrvm.hpp>

#include <cstring>
#include <iostream>
#include <sstream>

int main() {
  if (std::strcmp(arrvm_version(), ARRVM_VERSION_STRING) != 0) {
    std::cerr << "version mismatch: library " << arrvm_version() << ", headers " << ARRVM_VERSION_STRING
              << "\n";
    return 1;
  }
  arrvm::Vm vm({{"backend", "ref"}});
  const arrvm::Array a = arrvm::Array::arange(10, arrvm::DType::Float64, vm);
  const arrvm::Array b = a(arrvm::Slice{1, {}}) - a(arrvm::Slice{{}, -1});
  const double total = b.sum().item<double>();
  std::ostringstream text;
  text << b;
  std::cout << "sum " << total << ", b = " << text.str() << "\n";
  if (total != 9.0 || text.str() != "[1. 1. 1. 1. 1. 1. 1. 1. 1.]") return 1;
  try {
    (void)arrvm::Array::arange(3, arrvm::DType::Int64, vm).reshape({2, 2});
    return 1;  // must throw
  } catch (const arrvm::Error& e) {
    std::cout << "caught arrvm::Error: " << e.what() << "\n";
  }
  return 0;
}
