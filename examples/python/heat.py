"""A plain NumPy script: 2-D heat diffusion (Jacobi sweeps) until it settles
or runs out of steps. Runs as is under NumPy (python3 heat.py) and under
libarrvm (python3 -m arrvm heat.py). Usage: heat.py [N] [STEPS]"""
import sys
import time

import numpy as np

n = int(sys.argv[1]) if len(sys.argv) > 1 else 1000
steps = int(sys.argv[2]) if len(sys.argv) > 2 else 100
start = time.perf_counter()
grid = np.zeros((n + 2, n + 2))
grid[0, :] = 40.0
grid[-1, :] = -273.15
grid[:, 0] = -273.15
grid[:, -1] = -273.15
center = grid[1:-1, 1:-1]
delta = 1.0
for step in range(steps):
    work = 0.2 * (center + grid[:-2, 1:-1] + grid[2:, 1:-1] + grid[1:-1, :-2] + grid[1:-1, 2:])
    delta = np.sum(np.abs(work - center))
    center[:] = work
    if step % 10 == 9 and float(delta) < 1e-3:
        break
total = float(np.sum(center))
print("heat %dx%d: %d steps, sum %.10g, last delta %.6g, %.3f s" % (n, n, step + 1, total, float(delta),
                                                                    time.perf_counter() - start))
