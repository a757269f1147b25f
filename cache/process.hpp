// Runs a program (the C compiler) as a child process: no shell (arguments
// are passed as they are, nothing is expanded), in a process group of its
// own, with a time limit, a cap on the output kept, and the VM's interrupt
// check (vm/interrupt.hpp) polled while it runs. On a timeout or an
// interrupt the whole group is killed (SIGKILL), children included, and so
// it is once the program itself exits: a child it left holding the output
// pipe cannot keep the VM waiting.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace arrvm {

struct ProcessResult {
  int exit_code = -1;      // the program's exit status; -1 if it did not exit normally
  bool timed_out = false;  // killed at the time limit
  std::string output;      // stdout and stderr together, at most the cap (head and tail kept)
  bool truncated = false;  // the output passed the cap
};

// Runs argv[0] (looked up in PATH) with stdin from /dev/null. `timeout_s`
// <= 0: no limit. Throws InterruptedError (after killing the group) if the
// interrupt check fires, Error if the program cannot be started.
ProcessResult run_process(const std::vector<std::string>& argv, double timeout_s, std::size_t max_output);

// `s` split at whitespace (ARRVM_CC, ARRVM_CFLAGS: no quoting, no expansion).
std::vector<std::string> split_words(const std::string& s);

}  // namespace arrvm
