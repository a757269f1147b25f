"""Forward substitution for a lower-triangular system, row by row."""
import numpy as np

SIZES = {"small": dict(n=30, reps=2), "full": dict(n=1500, reps=20)}


def main(n=600, reps=4):
    i = np.arange(n)
    L = np.tril(np.cos(i[:, None] * 0.37 + i[None, :] * 0.11)) * 0.1 + 2.0 * np.eye(n)
    total = 0.0
    for r in range(reps):
        b = np.sin(i * (r + 1.0))
        x = np.zeros(n)
        for k in range(n):
            x[k] = (b[k] - L[k, :k] @ x[:k]) / L[k, k]
        total += float(np.abs(L @ x - b).max())
    return np.array([total, x.sum(), x[-1]])


if __name__ == "__main__":
    print(main())
