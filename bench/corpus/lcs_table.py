"""Longest common subsequence: a dynamic-programming table filled cell by cell."""
import numpy as np

SIZES = {"small": dict(n=30), "full": dict(n=500)}


def main(n=220):
    a = np.arange(n) * 7 % 5
    b = (np.arange(n) * 3 + 1) % 5
    T = np.zeros((n + 1, n + 1), dtype=np.int64)
    for i in range(1, n + 1):
        for j in range(1, n + 1):
            if a[i - 1] == b[j - 1]:
                T[i, j] = T[i - 1, j - 1] + 1
            else:
                T[i, j] = max(T[i - 1, j], T[i, j - 1])
    return np.array([T[n, n], T.sum(), T[n // 2].max()])


if __name__ == "__main__":
    print(main())
