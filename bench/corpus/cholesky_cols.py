"""Cholesky factorization, one column at a time in a Python loop."""
import numpy as np

SIZES = {"small": dict(n=20), "full": dict(n=600)}


def main(n=300):
    i = np.arange(n)
    A = np.exp(-0.1 * np.abs(i[:, None] - i[None, :])) + np.eye(n)
    L = np.zeros((n, n))
    for j in range(n):
        s = A[j, j] - np.dot(L[j, :j], L[j, :j])
        L[j, j] = np.sqrt(s)
        L[j + 1:, j] = (A[j + 1:, j] - L[j + 1:, :j] @ L[j, :j]) / L[j, j]
    return np.array([np.abs(L @ L.T - A).max(), L.trace(), L.sum()])


if __name__ == "__main__":
    print(main())
