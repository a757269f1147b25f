"""1-D Burgers' equation by a finite-volume Godunov scheme."""
import numpy as np

SIZES = {"small": dict(n=200, steps=50), "full": dict(n=1000000, steps=200)}


def flux(u):
    return 0.5 * u * u


def main(n=1000000, steps=300):
    x = np.linspace(0.0, 1.0, n)
    u = np.sin(2 * np.pi * x) + 0.5
    dx = 1.0 / n
    dt = 0.4 * dx
    for _ in range(steps):
        ul = u[:-1]
        ur = u[1:]
        # Godunov flux for Burgers
        fl = flux(ul)
        fr = flux(ur)
        f = np.where(ul > ur,
                     np.where((ul + ur) / 2 > 0, fl, fr),
                     np.where(ul > 0, fl, np.where(ur < 0, fr, 0.0)))
        u[1:-1] = u[1:-1] - dt / dx * (f[1:] - f[:-1])
    return np.array([u.sum() * dx, u.max(), u.min()])


if __name__ == "__main__":
    print(main())
