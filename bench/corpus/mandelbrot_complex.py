"""Escape-time Mandelbrot set with complex numbers, the NumPy way: Z = Z**2 + C under a mask."""
import numpy as np

SIZES = {"small": dict(n=64, iters=20), "full": dict(n=1000, iters=100)}


def main(n=1000, iters=100):
    y, x = np.ogrid[-1.2:1.2:n * 1j, -2.0:0.6:n * 1j]
    c = x + 1j * y
    z = np.zeros_like(c)
    count = np.zeros(c.shape, dtype=np.int64)
    for _ in range(iters):
        inside = np.abs(z) <= 2.0
        z[inside] = z[inside] ** 2 + c[inside]
        count += inside
    step = max(1, n // 50)
    return count[::step, ::step]


if __name__ == "__main__":
    print(main().sum())
