"""Gauss-Seidel sweeps of a 9-point stencil (PolyBench seidel-2d), a row at a time."""
import numpy as np

SIZES = {"small": dict(n=20, steps=2), "full": dict(n=200, steps=10)}


def main(n=200, steps=10):
    i = np.arange(n)
    A = ((i[:, None] * (i[None, :] + 2) + 2) / n).astype(np.float64)
    for _ in range(steps):
        for r in range(1, n - 1):
            # columns left to right within the row: the row's new values feed the next column
            row = (A[r - 1, :-2] + A[r - 1, 1:-1] + A[r - 1, 2:] + A[r, 2:] +
                   A[r + 1, :-2] + A[r + 1, 1:-1] + A[r + 1, 2:])
            for c in range(1, n - 1):
                A[r, c] = (row[c - 1] + A[r, c - 1] + A[r, c]) / 9.0
    return np.array([A.sum(), A[n // 2, n // 2], A[1, 1]])


if __name__ == "__main__":
    print(main())
