// How many threads a cpu kernel launch runs on.
//
// A kernel is compiled with OpenMP parallel regions when its work pays for a
// team (kParallelWork element-statements, cpu_backend.cpp); each launch of it
// then asks `Threads::for_launch` how many threads to start. Three things
// decide it:
//
// - the cores this process may use: the CPU affinity mask, capped by a
//   cgroup CPU quota (v2 `cpu.max`, v1 `cpu.cfs_quota_us`), or
//   OMP_NUM_THREADS when the user sets it;
// - the cores other processes keep busy: the number of runnable tasks of
//   /proc/loadavg, sampled at most every kSampleSeconds. A team larger than
//   the idle cores waits at each region's end for a thread the scheduler
//   has not run: on a 2-core machine with 2 busy processes a 200x200
//   elementwise loop ran 7.8 s with a team of 2 and 0.011 s on one thread
//   (docs/architecture.md, "Threads");
// - how long libgomp's idle threads spin before they sleep: GOMP_SPINCOUNT
//   is set to kSpinCount when neither it nor OMP_WAIT_POLICY is set and
//   libgomp is not loaded yet. Its default, 300 000 pauses, is milliseconds
//   of a core taken from whoever shares the machine (heat_2d of the corpus
//   under 2 busy processes: 0.71 s, one thread 0.32 s, 100 000 pauses
//   0.27 s); sleeping at once (OMP_WAIT_POLICY=passive) or after 2000
//   pauses costs a futex wake a region on a quiet machine (the 200x200
//   loop 7x slower, the corpus's julia 1.57 s against 0.32 s).
#pragma once

#include <chrono>
#include <cstdint>

namespace arrvm {

class Threads {
 public:
  // Reads the process's cores and the user's settings; sets GOMP_SPINCOUNT
  // (above). Call before the first kernel is loaded.
  Threads();

  // The most threads a kernel runs on (>= 1).
  int team() const { return team_; }

  // The threads for one launch of a parallel kernel: team() less the cores
  // other processes keep busy, at least 1.
  int for_launch();
  // After a launch on `threads` threads: a team's threads may spin a while.
  void ran(int threads) {
    if (threads > 1) last_team_end_ = std::chrono::steady_clock::now();
  }

  // Test hook: the number of runnable tasks other than this one, as
  // /proc/loadavg would give it (< 0: read /proc/loadavg again).
  void assume_others(int others) { assumed_others_ = others; }

  static constexpr int64_t kSpinCount = 100000;
  static constexpr double kSampleSeconds = 0.02;

 private:
  int team_ = 1;
  int free_ = 1;  // the last sample's threads
  int assumed_others_ = -1;
  std::chrono::steady_clock::time_point sampled_{};
  std::chrono::steady_clock::time_point last_team_end_{};
};

// Whether a team pays for one parallel kernel at one size, measured. The
// work threshold (kParallelWork, cpu_backend.cpp) is a guess from the
// element count; what a team costs (waking it, the barrier, combining
// reductions) and what it saves depend on the kernel and the machine: rule
// 30's step (5 statements on 20001 bytes, one a uint64 sum) ran 3.4 us on
// one thread and 5.7 us on two. A compiled parallel kernel takes its thread
// count at each launch, so the first launches of a kernel (per size class)
// run kProbe on the team, then kProbe on one thread (runs, not alternating:
// threads.cpp); then the faster wins (the team only when clearly faster: a
// tie leaves the other core to whoever shares the machine), until kRenew
// more launches start a new probe (load and sizes change). Work from kSureParallelWork (cpu_backend.cpp) on
// always takes the team: no probe that could slow a long kernel.
class TeamChoice {
 public:
  static constexpr int kProbe = 4;
  static constexpr int kRenew = 2048;
  static constexpr double kMargin = 0.9;  // the team's time must be below this x one thread's

  // The threads for this launch, given `team` (> 1, Threads::for_launch's);
  // *timed: whether to time it and report the time to `ran`.
  int pick(int team, bool* timed);
  void ran(int threads, double seconds);
  // (For tests: the choice once decided, else 0.)
  int decided() const { return left_ > 0 ? choice_ : 0; }

 private:
  int n_team_ = 0, n_one_ = 0;
  double team_s_ = 0, one_s_ = 0;  // the fastest of each
  int choice_ = 0;                 // 1: one thread; 2: the team
  int left_ = 0;                   // launches before the next probe
};

// The cores this process may run on: its affinity mask, capped by a cgroup
// CPU quota (at least 1). Exposed for tests and `arrvm bench`.
int usable_cores();

// Runnable tasks system-wide (the fourth field of /proc/loadavg), or -1.
int runnable_tasks();

}  // namespace arrvm
