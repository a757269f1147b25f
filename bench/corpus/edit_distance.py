"""Edit distance between two sequences, the DP table filled a row at a time."""
import numpy as np

SIZES = {"small": dict(n=60), "full": dict(n=8000)}


def main(n=3000):
    a = np.arange(n) * 7 % 4
    b = (np.arange(n) * 5 % 4 + (np.arange(n) % 11 == 0)) % 4
    j = np.arange(1, n + 1)
    prev = np.arange(n + 1)
    for i in range(1, n + 1):
        best = np.minimum(prev[:-1] + (b != a[i - 1]), prev[1:] + 1)
        # an insertion extends along the row: cur[j] = min over k <= j of best[k] + (j - k)
        cur = np.empty(n + 1, dtype=prev.dtype)
        cur[0] = i
        cur[1:] = np.minimum.accumulate(np.concatenate([[i], best - j]))[1:] + j
        prev = cur
    return np.array([prev[-1], prev.sum()])


if __name__ == "__main__":
    print(main())
