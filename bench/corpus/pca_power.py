"""Leading principal components by power iteration with deflation."""
import numpy as np

SIZES = {"small": dict(n=200, d=16, comps=2, iters=20), "full": dict(n=20000, d=200, comps=4, iters=100)}


def main(n=20000, d=200, comps=4, iters=100):
    i = np.arange(n)[:, None]
    j = np.arange(d)[None, :]
    X = np.sin(i * 0.001 * (j + 1)) + np.cos(i * 0.37 + j) * 0.1
    X = X - X.mean(axis=0)
    C = X.T @ X / (n - 1)
    vals = []
    for _ in range(comps):
        v = np.ones(d) / np.sqrt(d)
        for _ in range(iters):
            w = C @ v
            v = w / np.linalg.norm(w)
        lam = v @ C @ v
        vals.append(lam)
        C = C - lam * np.outer(v, v)
    return np.array(vals)


if __name__ == "__main__":
    print(main())
