"""1-D shallow-water dam break with a Lax-Friedrichs scheme."""
import numpy as np

SIZES = {"small": dict(n=200, steps=50), "full": dict(n=200000, steps=600)}


def main(n=200000, steps=2000):
    g = 9.81
    h = np.where(np.arange(n) < n // 2, 2.0, 1.0)
    hu = np.zeros(n)
    dx = 1.0 / n
    dt = 0.2 * dx / np.sqrt(g * 2.0)
    for _ in range(steps):
        u = hu / h
        f1 = hu
        f2 = hu * u + 0.5 * g * h * h
        h_new = h.copy()
        hu_new = hu.copy()
        h_new[1:-1] = 0.5 * (h[2:] + h[:-2]) - dt / (2 * dx) * (f1[2:] - f1[:-2])
        hu_new[1:-1] = 0.5 * (hu[2:] + hu[:-2]) - dt / (2 * dx) * (f2[2:] - f2[:-2])
        h, hu = h_new, hu_new
    return np.array([h.sum() * dx, hu.max(), h.min()])


if __name__ == "__main__":
    print(main())
