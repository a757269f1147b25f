"""Random-number throughput (numbers per second), arrvm's `random` opcode
(Philox-4x32-10, float64 in [0, 1)) beside NumPy's generators, in one run.

Usage: PYTHONPATH=build/python /usr/bin/python3 bench/python/random_throughput.py [N] [REPEAT]
Each line is the best of REPEAT timings of generating N float64 numbers into
memory (arrvm: issue + flush of one kernel, warm kernel cache; the thread
count of the generated kernels follows OMP_NUM_THREADS, so run it with
OMP_NUM_THREADS=1 and =2 for one and two threads; NumPy is single-threaded)."""
import os
import sys
import time

import numpy

import arrvm  # noqa: E402

n = int(sys.argv[1]) if len(sys.argv) > 1 else 10_000_000
repeat = int(sys.argv[2]) if len(sys.argv) > 2 else 5


def best(f):
    f()  # warm-up: compile, first touch
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        f()
        times.append(time.perf_counter() - t0)
    return min(times)


def arrvm_random():
    x = arrvm.random.random(n)
    arrvm.flush()
    return x


rng = numpy.random.default_rng(1)
rows = [
    ("arrvm random (Philox-4x32-10, OMP_NUM_THREADS=%s)" % os.environ.get("OMP_NUM_THREADS", "all"), best(arrvm_random)),
    ("numpy.random.random (MT19937)", best(lambda: numpy.random.random(n))),
    ("numpy default_rng().random (PCG64)", best(lambda: rng.random(n))),
]
print("%d float64 numbers, best of %d" % (n, repeat))
for name, t in rows:
    print("  %-52s %8.4f s  %7.1f M numbers/s" % (name, t, n / t / 1e6))
