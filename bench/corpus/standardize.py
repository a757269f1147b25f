"""Column statistics, standardization and a correlation matrix."""
import numpy as np

SIZES = {"small": dict(n=300, d=6), "full": dict(n=400000, d=30)}


def main(n=400000, d=30):
    i = np.arange(n)[:, None]
    j = np.arange(d)[None, :]
    X = np.sin(i * 0.0003 * (j + 2)) * (j + 1) + np.cos(i * 0.01) * 3 + j
    mu = X.mean(axis=0)
    sd = X.std(axis=0)
    Z = (X - mu) / sd
    corr = Z.T @ Z / n
    clipped = np.clip(Z, -2, 2)
    return np.concatenate([corr[0], [np.abs(clipped).mean(), Z.max()]])


if __name__ == "__main__":
    print(main())
