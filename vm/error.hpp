// The three kinds of error libarrvm raises.
#pragma once

#include <stdexcept>
#include <string>

#include "arrvm/types.hpp"

namespace arrvm {

// Error (a user error) and BackendError (carries the backend's log) are
// declared in the public arrvm/types.hpp, the one place users see them.

// A bug in libarrvm itself.
class InternalError : public std::logic_error {
 public:
  using std::logic_error::logic_error;
};

[[noreturn]] void internal_error(const char* expr, const char* file, int line);

}  // namespace arrvm

#define ARRVM_ASSERT(cond) ((cond) ? (void)0 : ::arrvm::internal_error(#cond, __FILE__, __LINE__))
