"""Escape-time Mandelbrot set in floating point, with masks."""
import numpy as np

SIZES = {"small": dict(n=64, iters=20), "full": dict(n=1200, iters=100)}


def main(n=1200, iters=100):
    x = np.linspace(-2.0, 0.6, n)
    y = np.linspace(-1.2, 1.2, n)
    cr = np.tile(x, (n, 1))
    ci = np.tile(y[:, None], (1, n))
    zr = np.zeros((n, n))
    zi = np.zeros((n, n))
    count = np.zeros((n, n))
    for _ in range(iters):
        zr2 = zr * zr
        zi2 = zi * zi
        inside = zr2 + zi2 <= 4.0
        zi = np.where(inside, 2 * zr * zi + ci, zi)
        zr = np.where(inside, zr2 - zi2 + cr, zr)
        count += inside
    return count[::max(1, n // 50), ::max(1, n // 50)]


if __name__ == "__main__":
    print(main().sum())
