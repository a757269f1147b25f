"""2-D heat diffusion, explicit finite differences (a textbook NumPy script)."""
import numpy as np

nx, ny, steps = 120, 100, 200
alpha, dx, dt = 0.1, 1.0, 0.2
u = np.zeros((ny, nx))
u[0, :] = 100.0            # hot top edge
u[:, 0] = 50.0             # warm left edge
x = np.linspace(0, np.pi, nx)
u[ny // 2, :] += 10 * np.sin(x)
for step in range(steps):
    lap = (u[2:, 1:-1] + u[:-2, 1:-1] + u[1:-1, 2:] + u[1:-1, :-2] - 4 * u[1:-1, 1:-1]) / dx**2
    u[1:-1, 1:-1] = u[1:-1, 1:-1] + alpha * dt * lap
print("heat", u.sum(), u.max(), u[ny // 2].mean())
