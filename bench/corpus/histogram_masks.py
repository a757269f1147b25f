"""A histogram computed bin by bin with boolean masks."""
import numpy as np

SIZES = {"small": dict(n=1000, bins=10), "full": dict(n=4000000, bins=50)}


def main(n=4000000, bins=50):
    t = np.arange(n)
    data = np.sin(t * 0.001) * np.cos(t * 0.0007) + 0.2 * np.sin(t * 1.7)
    lo, hi = data.min(), data.max()
    edges = np.linspace(lo, hi, bins + 1)
    counts = np.zeros(bins)
    for b in range(bins):
        if b == bins - 1:
            mask = (data >= edges[b]) & (data <= edges[b + 1])
        else:
            mask = (data >= edges[b]) & (data < edges[b + 1])
        counts[b] = mask.sum()
    centers = (edges[:-1] + edges[1:]) / 2
    mean = (counts * centers).sum() / counts.sum()
    return np.concatenate([counts, [mean]])


if __name__ == "__main__":
    print(main())
