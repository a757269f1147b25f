"""All-pairs shortest paths by Floyd-Warshall, one pivot row at a time."""
import numpy as np

SIZES = {"small": dict(n=40), "full": dict(n=600)}


def main(n=600):
    i = np.arange(n)
    D = ((i[:, None] * 31 + i[None, :] * 17) % 97 + 1).astype(np.float64)
    D[(i[:, None] * 7 + i[None, :] * 3) % 5 == 0] = np.inf
    np.fill_diagonal(D, 0.0)
    for k in range(n):
        D = np.minimum(D, D[:, k:k + 1] + D[k:k + 1, :])
    finite = np.isfinite(D)
    return np.array([D[finite].sum(), finite.sum(), D.max()])


if __name__ == "__main__":
    print(main())
