"""LU decomposition (Doolittle, no pivoting) with a Python loop over pivots."""
import numpy as np

SIZES = {"small": dict(n=20), "full": dict(n=500)}


def main(n=300):
    i = np.arange(n)
    A = 1.0 / (1.0 + np.abs(i[:, None] - i[None, :])) + n * np.eye(n)
    LU = A.copy()
    for k in range(n - 1):
        LU[k + 1:, k] /= LU[k, k]
        LU[k + 1:, k + 1:] -= np.outer(LU[k + 1:, k], LU[k, k + 1:])
    L = np.tril(LU, -1) + np.eye(n)
    U = np.triu(LU)
    return np.array([np.abs(L @ U - A).max(), LU.trace(), LU[n // 2].sum()])


if __name__ == "__main__":
    print(main())
