#include "cache/process.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>

#include "arrvm/types.hpp"
#include "vm/interrupt.hpp"

extern char** environ;

namespace arrvm {

namespace {

// Keeps the first and the last half of the cap: a compiler's first error and
// its summary both survive.
class CappedOutput {
 public:
  explicit CappedOutput(std::size_t cap) : cap_(cap) {}
  void append(const char* p, std::size_t n) {
    total_ += n;
    const std::size_t head_room = cap_ / 2 > head_.size() ? cap_ / 2 - head_.size() : 0;
    const std::size_t to_head = std::min(head_room, n);
    head_.append(p, to_head);
    tail_.append(p + to_head, n - to_head);
    const std::size_t tail_cap = cap_ - cap_ / 2;
    if (tail_.size() > 2 * tail_cap + 4096) tail_.erase(0, tail_.size() - tail_cap);
  }
  bool truncated() const { return total_ > cap_; }
  std::string take() {
    const std::size_t tail_cap = cap_ - cap_ / 2;
    if (tail_.size() > tail_cap) tail_.erase(0, tail_.size() - tail_cap);
    if (!truncated()) return head_ + tail_;
    return head_ + "\n[... " + std::to_string(total_ - head_.size() - tail_.size()) +
           " bytes of output omitted ...]\n" + tail_;
  }

 private:
  std::size_t cap_, total_ = 0;
  std::string head_, tail_;
};

void kill_group(pid_t pid) {
  ::kill(-pid, SIGKILL);
}

}  // namespace

std::vector<std::string> split_words(const std::string& s) {
  std::vector<std::string> words;
  std::string w;
  for (char c : s) {
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f') {
      if (!w.empty()) words.push_back(std::move(w));
      w.clear();
    } else {
      w += c;
    }
  }
  if (!w.empty()) words.push_back(std::move(w));
  return words;
}

ProcessResult run_process(const std::vector<std::string>& argv, double timeout_s, std::size_t max_output) {
  if (argv.empty()) throw Error("run_process: no program");
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) throw Error(std::string("cannot create a pipe: ") + std::strerror(errno));
  posix_spawn_file_actions_t actions;
  posix_spawnattr_t attr;
  posix_spawn_file_actions_init(&actions);
  posix_spawnattr_init(&attr);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, fds[1], 1);
  posix_spawn_file_actions_adddup2(&actions, fds[1], 2);
  // A group of its own (killed whole), default signal handling, nothing blocked.
  sigset_t none, all;
  sigemptyset(&none);
  sigfillset(&all);
  posix_spawnattr_setpgroup(&attr, 0);
  posix_spawnattr_setsigmask(&attr, &none);
  posix_spawnattr_setsigdefault(&attr, &all);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = -1;
  const int spawned = ::posix_spawnp(&pid, args[0], &actions, &attr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  ::close(fds[1]);
  if (spawned != 0) {
    ::close(fds[0]);
    throw Error("cannot run " + argv[0] + ": " + std::strerror(spawned));
  }
  using Clock = std::chrono::steady_clock;
  const auto start = Clock::now();
  ProcessResult r;
  CappedOutput out(max_output);
  int status = 0;
  bool exited = false, open = true;
  char buf[65536];
  auto finish = [&] {
    kill_group(pid);  // whatever it left running
    if (!exited) ::waitpid(pid, &status, 0);
    ::close(fds[0]);
  };
  while (open) {
    struct pollfd p {
      fds[0], POLLIN, 0
    };
    const int ready = ::poll(&p, 1, 50);
    if (ready > 0) {
      const ssize_t n = ::read(fds[0], buf, sizeof buf);
      if (n > 0) {
        out.append(buf, static_cast<std::size_t>(n));
      } else if (n == 0 || (errno != EINTR && errno != EAGAIN))
        open = false;  // end of output
    } else if (ready < 0 && errno != EINTR) {
      open = false;
    }
    if (!exited && ::waitpid(pid, &status, WNOHANG) == pid) {
      exited = true;
      // The program is done: end whatever it left running (a child holding
      // the pipe open would keep it from ending) and take what is buffered.
      kill_group(pid);
      ::fcntl(fds[0], F_SETFL, O_NONBLOCK);
      ssize_t n;
      while ((n = ::read(fds[0], buf, sizeof buf)) > 0) out.append(buf, static_cast<std::size_t>(n));
      break;
    }
    if (timeout_s > 0 && std::chrono::duration<double>(Clock::now() - start).count() > timeout_s) {
      r.timed_out = true;
      break;
    }
    if (interrupt_requested()) {
      finish();
      throw InterruptedError("interrupted (KeyboardInterrupt) while running " + argv[0]);
    }
  }
  if (!exited && !r.timed_out) {
    // Output closed: wait for the exit, still within the time limit.
    while (::waitpid(pid, &status, WNOHANG) != pid) {
      if (timeout_s > 0 && std::chrono::duration<double>(Clock::now() - start).count() > timeout_s) {
        r.timed_out = true;
        break;
      }
      if (interrupt_requested()) {
        finish();
        throw InterruptedError("interrupted (KeyboardInterrupt) while running " + argv[0]);
      }
      ::usleep(2000);
    }
    if (!r.timed_out) exited = true;
  }
  finish();
  r.exit_code = !r.timed_out && WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.truncated = out.truncated();
  r.output = out.take();
  return r;
}

}  // namespace arrvm
