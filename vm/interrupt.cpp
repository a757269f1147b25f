#include "vm/interrupt.hpp"

#include <atomic>

#include "arrvm/types.hpp"

namespace arrvm {

namespace {
std::atomic<bool (*)()> g_check{nullptr};
thread_local const std::atomic<bool>* t_cancel = nullptr;
}  // namespace

void set_thread_cancel(const std::atomic<bool>* flag) {
  t_cancel = flag;
}

void set_interrupt_hook(bool (*check)()) {
  g_check.store(check);
}

bool interrupt_requested() {
  // A thread with a cancel flag (a compile worker) answers by it alone: the
  // registered check is the frontend's (Python's signal handlers), for the
  // thread that runs flushes, and may not be called once the interpreter
  // is finalizing (a worker compiling at exit crashed in it).
  if (t_cancel != nullptr) return t_cancel->load(std::memory_order_relaxed);
  bool (*check)() = g_check.load(std::memory_order_relaxed);
  return check != nullptr && check();
}

void check_interrupt() {
  if (interrupt_requested()) throw InterruptedError("interrupted (KeyboardInterrupt)");
}

bool is_interrupt(std::exception_ptr error) {
  try {
    std::rethrow_exception(error);
  } catch (const InterruptedError&) {
    return true;
  } catch (...) {
    return false;
  }
}

}  // namespace arrvm
