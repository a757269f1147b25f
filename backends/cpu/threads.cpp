#include "backends/cpu/threads.hpp"

#include <dlfcn.h>
#include <fcntl.h>
#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

#include "vm/log.hpp"

namespace arrvm {

namespace {

// The quota's cores (rounded up), or 0 when there is none.
int cgroup_quota_cores() {
  double quota = -1, period = -1;
  {
    std::ifstream v2("/sys/fs/cgroup/cpu.max");  // "max 100000" or "150000 100000"
    std::string q;
    if (v2 >> q >> period) {
      if (q == "max") return 0;
      quota = std::atof(q.c_str());
    }
  }
  if (quota < 0) {
    std::ifstream q("/sys/fs/cgroup/cpu/cpu.cfs_quota_us"), p("/sys/fs/cgroup/cpu/cpu.cfs_period_us");
    if (!(q >> quota) || !(p >> period)) return 0;
  }
  if (quota <= 0 || period <= 0) return 0;
  return std::max(1, static_cast<int>(std::ceil(quota / period)));
}

// OMP_NUM_THREADS's first value, or 0 when unset or not a positive number.
int user_threads() {
  const char* s = std::getenv("OMP_NUM_THREADS");
  if (s == nullptr) return 0;
  char* end = nullptr;
  const long n = std::strtol(s, &end, 10);
  return end != s && n > 0 ? static_cast<int>(std::min<long>(n, 1024)) : 0;
}

}  // namespace

int usable_cores() {
  int n = 0;
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof(set), &set) == 0) n = CPU_COUNT(&set);
  if (n <= 0) n = static_cast<int>(std::max(1L, sysconf(_SC_NPROCESSORS_ONLN)));
  const int quota = cgroup_quota_cores();
  return quota > 0 ? std::min(n, quota) : n;
}

int runnable_tasks() {
  // "0.62 1.43 1.67 3/79 24781": the fourth field is running/total.
  const int fd = ::open("/proc/loadavg", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return -1;
  char buf[128];
  const ssize_t n = ::read(fd, buf, sizeof(buf) - 1);
  ::close(fd);
  if (n <= 0) return -1;
  buf[n] = '\0';
  double l1, l5, l15;
  int running = -1, total = -1;
  if (std::sscanf(buf, "%lf %lf %lf %d/%d", &l1, &l5, &l15, &running, &total) != 5) return -1;
  return running;
}

Threads::Threads() {
  const int user = user_threads();
  team_ = user > 0 ? user : usable_cores();
  free_ = team_;
  // libgomp reads its environment once, when it is loaded (the first kernel
  // loads it: libarrvm does not link it).
  if (std::getenv("OMP_WAIT_POLICY") == nullptr && std::getenv("GOMP_SPINCOUNT") == nullptr) {
    if (void* h = ::dlopen("libgomp.so.1", RTLD_LAZY | RTLD_NOLOAD)) {
      ::dlclose(h);
      logger().debug("cpu: libgomp was loaded before arrvm: its threads spin as the environment says");
    } else {
      ::setenv("GOMP_SPINCOUNT", std::to_string(kSpinCount).c_str(), 0);
    }
  }
}

int Threads::for_launch() {
  if (team_ <= 1) return 1;
  const auto now = std::chrono::steady_clock::now();
  if (assumed_others_ >= 0 || now - sampled_ > std::chrono::duration<double>(kSampleSeconds)) {
    sampled_ = now;
    int others = assumed_others_;
    if (others < 0) {
      const int running = runnable_tasks();
      if (running < 0) {
        others = 0;
      } else {
        // Less this thread, and this process's team if it may still spin
        // (a region that ended within a millisecond).
        others = running - 1;
        if (now - last_team_end_ < std::chrono::milliseconds(1)) others -= team_ - 1;
      }
    }
    free_ = std::clamp(team_ - std::max(others, 0), 1, team_);
  }
  return free_;
}

int TeamChoice::pick(int team, bool* timed) {
  if (left_ > 0) {
    --left_;
    *timed = false;
    return choice_ == 2 ? team : 1;
  }
  *timed = true;
  // kProbe launches on the team, then kProbe on one thread, each side
  // keeping its fastest: a run's first launch meets the caches the other
  // side left (a team leaves half the arrays in the other core's cache;
  // alternating, the 200x200 loop's one-thread launches took 15-27 us
  // against 5 us in a run of them, and the team won wrongly), and a
  // kernel's first launch meets cold ones.
  return n_team_ < kProbe ? team : 1;
}

void TeamChoice::ran(int threads, double seconds) {
  if (threads > 1) {
    team_s_ = n_team_++ == 0 ? seconds : std::min(team_s_, seconds);
  } else {
    one_s_ = n_one_++ == 0 ? seconds : std::min(one_s_, seconds);
  }
  if (n_team_ < kProbe || n_one_ < kProbe) return;
  choice_ = team_s_ < kMargin * one_s_ ? 2 : 1;
  left_ = kRenew;
  n_team_ = n_one_ = 0;
}

}  // namespace arrvm
