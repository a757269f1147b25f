"""Repro: temporaries held in Python names at a sync are materialized, and the
cpu kernel that writes them and reduces to a scalar is ~10x slower than the
contracted one. Usage: PYTHONPATH=build/python /usr/bin/python3 bench/python/names_at_sync.py"""
import time, arrvm as np
n = 5_000_000
x = np.arange(n, dtype=np.int64) / n
def run(keep):
    total = 0.0
    for _ in range(5):
        a, b = x[:-1], x[1:]
        t, u = 1 - a, b - a * a
        s = np.sum(t * t + 100.0 * (u * u))
        if not keep: del t, u, a, b
        total += float(s)
    return total
for keep in (True, False, True, False):
    p0 = np.profile(); t0 = time.perf_counter(); run(keep); dt = time.perf_counter() - t0; p1 = np.profile()
    print("names alive" if keep else "names deleted", "%.3f s" % dt, "kernels", p1['kernels']['launched'] - p0['kernels']['launched'], "exec %.3f" % (p1['time']['execution'] - p0['time']['execution']))
