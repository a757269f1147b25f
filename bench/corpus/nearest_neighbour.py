"""Nearest neighbours by a broadcast distance matrix, query block by block."""
import numpy as np

SIZES = {"small": dict(n=200, q=50, block=25), "full": dict(n=20000, q=4000, block=500)}


def main(n=20000, q=4000, block=500):
    t = np.arange(n)
    ref = np.stack([np.sin(t * 1.7), np.cos(t * 2.3), np.sin(t * 0.37)], axis=1)
    s = np.arange(q)
    qry = np.stack([np.cos(s * 0.9), np.sin(s * 1.1), np.cos(s * 0.21)], axis=1)
    idx = np.empty(q, dtype=np.int64)
    best = np.empty(q)
    for b in range(0, q, block):
        qb = qry[b:b + block]
        d2 = (qb ** 2).sum(axis=1)[:, None] - 2 * qb @ ref.T + (ref ** 2).sum(axis=1)[None, :]
        idx[b:b + block] = d2.argmin(axis=1)
        best[b:b + block] = d2.min(axis=1)
    return np.array([idx.sum(), np.sqrt(np.maximum(best, 0)).mean()])


if __name__ == "__main__":
    print(main())
