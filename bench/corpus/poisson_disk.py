"""Dart-throwing Poisson disk sampling on a grid, with scalar reads."""
import numpy as np

SIZES = {"small": dict(n=40, tries=300), "full": dict(n=400, tries=80000)}


def main(n=200, tries=20000):
    r = 3.0
    taken = np.zeros((n, n), dtype=bool)
    xs = (np.arange(tries) * 0.6180339887 % 1.0) * n
    ys = (np.arange(tries) * 0.7548776662 % 1.0) * n
    accepted = []
    for x, y in zip(xs, ys):
        i, j = int(x), int(y)
        if taken[i, j]:
            continue
        accepted.append((x, y))
        i0, i1 = max(0, int(x - r)), min(n, int(x + r) + 1)
        j0, j1 = max(0, int(y - r)), min(n, int(y + r) + 1)
        gi = np.arange(i0, i1)[:, None] + 0.5
        gj = np.arange(j0, j1)[None, :] + 0.5
        taken[i0:i1, j0:j1] |= (gi - x) ** 2 + (gj - y) ** 2 < r * r
    pts = np.array(accepted)
    return np.array([len(pts), pts[:, 0].mean(), pts[:, 1].mean(), taken.mean()])


if __name__ == "__main__":
    print(main())
