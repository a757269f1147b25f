#include "vm/error.hpp"

#include <string>

namespace arrvm {

void internal_error(const char* expr, const char* file, int line) {
  throw InternalError(std::string("libarrvm internal error: ") + expr + " failed at " + file + ":" +
                      std::to_string(line));
}

}  // namespace arrvm
