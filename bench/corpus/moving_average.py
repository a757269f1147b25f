"""Moving averages of a long series via cumsum, and crossings."""
import numpy as np

SIZES = {"small": dict(n=2000, reps=2), "full": dict(n=10000000, reps=5)}


def moving_average(a, w):
    c = np.cumsum(a)
    c[w:] = c[w:] - c[:-w]
    return c[w - 1:] / w


def main(n=10000000, reps=5):
    t = np.arange(n, dtype=np.float64)
    series = np.sin(t * 0.0005) * 10 + np.sin(t * 0.1)
    out = []
    for _ in range(reps):
        fast = moving_average(series, 20)
        slow = moving_average(series, 200)
        fast = fast[len(fast) - len(slow):]
        cross = np.count_nonzero(np.diff(np.sign(fast - slow)))
        out.append(cross)
        series = series * 1.001
    return np.array(out + [slow.mean()])


if __name__ == "__main__":
    print(main())
