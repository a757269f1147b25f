"""1-D wave equation, leapfrog in time, for many strings at once."""
import numpy as np

SIZES = {"small": dict(n=200, strings=4, steps=100), "full": dict(n=4000, strings=128, steps=400)}


def main(n=4000, strings=256, steps=2000):
    x = np.linspace(0, 1, n)
    c = np.linspace(0.5, 1.0, strings)[:, None]
    dx = x[1] - x[0]
    dt = 0.5 * dx
    u_prev = np.exp(-200 * (x - 0.3) ** 2) * np.ones((strings, 1))
    u = u_prev.copy()
    r2 = (c * dt / dx) ** 2
    for _ in range(steps):
        u_next = np.zeros_like(u)
        u_next[:, 1:-1] = 2 * u[:, 1:-1] - u_prev[:, 1:-1] + r2 * (u[:, 2:] - 2 * u[:, 1:-1] + u[:, :-2])
        u_prev, u = u, u_next
    energy = (u ** 2).sum(axis=1) * dx
    return energy[::max(1, strings // 32)]


if __name__ == "__main__":
    print(main())
