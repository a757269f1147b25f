"""Modified Gram-Schmidt QR, column by column in Python loops."""
import numpy as np

SIZES = {"small": dict(m=40, n=12), "full": dict(m=600, n=200)}


def main(m=600, n=120):
    i = np.arange(m)[:, None]
    j = np.arange(n)[None, :]
    A = np.cos(i * 0.013 * (j + 1)) + 0.01 * (i == j)
    Q = A.copy()
    R = np.zeros((n, n))
    for k in range(n):
        R[k, k] = np.linalg.norm(Q[:, k])
        Q[:, k] = Q[:, k] / R[k, k]
        for c in range(k + 1, n):
            R[k, c] = np.dot(Q[:, k], Q[:, c])
            Q[:, c] = Q[:, c] - Q[:, k] * R[k, c]
    return np.array([np.abs(Q @ R - A).max(), np.abs(Q.T @ Q - np.eye(n)).max() < 1e-6, R.trace()])


if __name__ == "__main__":
    print(main())
