// The three kinds of error libarrvm raises.
#pragma once

#include <cstddef>
#include <cstdint>
#include <exception>
#include <stdexcept>
#include <string>
#include <vector>

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

// Instructions of one block failed at run time (an index out of range, a
// reduction over an empty axis, memory) while the rest of the block ran to
// completion: every instruction that does not read a failed one's result
// computed what the program says. Backends throw it at the end of the
// block (or of `span` consecutive blocks run as one kernel); the runtime
// poisons the failed instructions' results and what is computed from them
// (Runtime::contain_failure), so a user gets the same arrays back whatever
// the fuser put in one block. what() is the first failure's message.
class InstructionsFailed : public Error {
 public:
  struct Failure {
    uint32_t instr;            // index in the batch
    std::exception_ptr error;  // an Error naming the instruction by its text
  };
  InstructionsFailed(std::vector<Failure> failures, std::size_t span, const std::string& first)
      : Error(first), failures(std::move(failures)), span(span) {}
  std::vector<Failure> failures;
  std::size_t span;  // partition blocks the failed run covered (from Backend::progress().done)
};

}  // namespace arrvm

#define ARRVM_ASSERT(cond) ((cond) ? (void)0 : ::arrvm::internal_error(#cond, __FILE__, __LINE__))
