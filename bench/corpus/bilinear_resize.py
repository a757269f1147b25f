"""Bilinear image resize with index arrays (fancy indexing)."""
import numpy as np

SIZES = {"small": dict(n=40, m=70, reps=2), "full": dict(n=1000, m=1700, reps=5)}


def resize(img, m):
    n = img.shape[0]
    coords = np.linspace(0, n - 1, m)
    i0 = np.floor(coords).astype(np.int64)
    i1 = np.minimum(i0 + 1, n - 1)
    f = coords - i0
    rows = img[i0, :] * (1 - f)[:, None] + img[i1, :] * f[:, None]
    return rows[:, i0] * (1 - f)[None, :] + rows[:, i1] * f[None, :]


def main(n=1000, m=1700, reps=5):
    y, x = np.mgrid[0:n, 0:n]
    img = np.sin(x * 0.05) + np.cos(y * 0.03)
    for _ in range(reps):
        big = resize(img, m)
        img = img * 0.9 + 0.1 * big[:n, :n]
    return np.array([big.mean(), big.std(), img.sum()])


if __name__ == "__main__":
    print(main())
