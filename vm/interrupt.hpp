// Interruption: a frontend that owns the process's signals (Python, whose
// SIGINT handler only sets a flag) registers a check, and the VM calls it at
// points where stopping is safe: between the blocks of a flush and while it
// waits for a compiler. A check that reports an interrupt makes the VM throw
// InterruptedError there (the arrays the flush did not finish are poisoned
// with it, as with any failure). Without a check (C and C++ programs keep
// SIGINT's default action) nothing is ever interrupted this way.
#pragma once

#include <atomic>
#include <exception>

namespace arrvm {

// `check` returns true when the user asked to stop; nullptr removes it (the
// public arrvm::set_interrupt_check, include/arrvm/arrvm.hpp, sets it). It is
// called on the thread that runs the flush.
void set_interrupt_hook(bool (*check)());

// Throws InterruptedError if the registered check reports an interrupt.
void check_interrupt();

// Whether the registered check reports an interrupt (false without one);
// on a thread with a cancel flag, whether the flag is set (only that).
bool interrupt_requested();

// A flag that stops what this thread waits for (the compiler it runs) as an
// interrupt does: the cpu backend's compile threads, at shutdown. nullptr
// removes it.
void set_thread_cancel(const std::atomic<bool>* flag);

// Whether `error` is an InterruptedError.
bool is_interrupt(std::exception_ptr error);

}  // namespace arrvm
