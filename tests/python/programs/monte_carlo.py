"""Monte Carlo estimates of pi and of an integral with a quasi-random (R2) sequence."""
import numpy as np

n = 1_000_000
i = np.arange(1, n + 1, dtype=np.float64)
x = (0.5 + i * 0.7548776662466927) % 1.0
y = (0.5 + i * 0.5698402909980532) % 1.0
inside = (x * x + y * y) <= 1.0
pi = 4.0 * inside.mean()
integral = np.mean(np.exp(-x * y) * np.cos(3 * x))
hits = np.count_nonzero(y < np.sin(np.pi * x))
print("monte_carlo", pi, integral, int(hits), inside.dtype)
