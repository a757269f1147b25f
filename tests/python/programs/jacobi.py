"""Jacobi iteration for the 2-D Laplace equation until converged."""
import numpy as np
n = 60
u = np.zeros((n, n))
u[0, :] = 100.0
u[:, 0] = 50.0
tol = 1e-3
it = 0
while True:
    new = u.copy()
    new[1:-1, 1:-1] = 0.25 * (u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:])
    diff = np.max(np.abs(new - u))
    u = new
    it += 1
    if diff < tol or it > 2000:
        break
print(it, round(float(diff), 8), round(float(u.mean()), 6), u[n // 2, n // 2])
