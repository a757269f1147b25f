"""Julia set escape counts with the orbit in real arithmetic."""
import numpy as np

SIZES = {"small": dict(n=64, iters=30), "full": dict(n=1000, iters=200)}


def main(n=1000, iters=200):
    cr, ci = -0.8, 0.156
    x = np.linspace(-1.6, 1.6, n)
    zr = np.repeat(x[None, :], n, axis=0)
    zi = np.repeat(x[:, None], n, axis=1)
    out = np.zeros((n, n), dtype=np.int64)
    for k in range(iters):
        zr, zi = zr * zr - zi * zi + cr, 2 * zr * zi + ci
        esc = (zr * zr + zi * zi > 4.0) & (out == 0)
        out[esc] = k
        zr = np.clip(zr, -4, 4)
        zi = np.clip(zi, -4, 4)
    return np.array([out.sum(), (out == 0).sum(), out.max()])


if __name__ == "__main__":
    print(main())
