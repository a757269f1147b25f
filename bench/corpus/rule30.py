"""Elementary cellular automaton (rule 30), one row per step."""
import numpy as np

SIZES = {"small": dict(n=101, steps=50), "full": dict(n=20001, steps=5000)}


def main(n=20001, steps=5000):
    row = np.zeros(n, dtype=np.uint8)
    row[n // 2] = 1
    counts = np.zeros(steps)
    for t in range(steps):
        left = np.roll(row, 1)
        right = np.roll(row, -1)
        row = (left ^ (row | right)).astype(np.uint8)
        counts[t] = row.sum()
    return counts[::max(1, steps // 100)]


if __name__ == "__main__":
    print(main().sum())
