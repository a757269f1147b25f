// The three kinds of error libarrvm raises.
#pragma once

#include <stdexcept>
#include <string>

namespace arrvm {

// A user error: bad bytecode, bad trace, API misuse, an index out of range.
// The message names what is wrong; the VM stays usable afterwards.
class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A backend failed (e.g. a kernel did not compile); carries the backend's log.
class BackendError : public Error {
 public:
  BackendError(const std::string& what, std::string log)
      : Error(log.empty() ? what : what + "\n" + log), log_(std::move(log)) {}
  const std::string& log() const { return log_; }

 private:
  std::string log_;
};

// A bug in libarrvm itself.
class InternalError : public std::logic_error {
 public:
  using std::logic_error::logic_error;
};

[[noreturn]] void internal_error(const char* expr, const char* file, int line);

}  // namespace arrvm

#define ARRVM_ASSERT(cond) \
  ((cond) ? (void)0 : ::arrvm::internal_error(#cond, __FILE__, __LINE__))
