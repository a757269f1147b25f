"""Gaussian kernel density estimate on a grid, samples in chunks."""
import numpy as np

SIZES = {"small": dict(n=500, grid=64, chunk=100), "full": dict(n=100000, grid=2000, chunk=5000)}


def main(n=100000, grid=2000, chunk=5000):
    t = np.arange(n)
    samples = np.sin(t * 0.7) * 2 + np.cos(t * 0.013)
    xs = np.linspace(-4, 4, grid)
    h = 1.06 * samples.std() * n ** -0.2
    dens = np.zeros(grid)
    for c in range(0, n, chunk):
        s = samples[c:c + chunk]
        dens += np.exp(-0.5 * ((xs[:, None] - s[None, :]) / h) ** 2).sum(axis=1)
    dens /= n * h * np.sqrt(2 * np.pi)
    return dens[::max(1, grid // 100)]


if __name__ == "__main__":
    print(main().sum())
