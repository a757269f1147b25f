"""Sparse matrix-vector products in CSR form, with a Python loop over rows."""
import numpy as np

SIZES = {"small": dict(n=50, reps=2), "full": dict(n=4000, reps=25)}


def main(n=4000, reps=5):
    # a banded matrix with a few far entries per row, in CSR arrays
    per_row = 7
    cols = (np.arange(n)[:, None] + np.array([-3, -2, -1, 0, 1, 2, 3])[None, :] * 13) % n
    data = 1.0 / (1.0 + np.abs(cols - np.arange(n)[:, None]))
    indices = cols.reshape(-1)
    values = data.reshape(-1)
    indptr = np.arange(0, n * per_row + 1, per_row)
    x = np.linspace(-1.0, 1.0, n)
    for _ in range(reps):
        y = np.zeros(n)
        for r in range(n):
            lo, hi = indptr[r], indptr[r + 1]
            y[r] = values[lo:hi] @ x[indices[lo:hi]]
        x = y / np.abs(y).max()
    return np.array([x.sum(), x[0], np.abs(x).max()])


if __name__ == "__main__":
    print(main())
