"""k-means clustering (Lloyd's algorithm) with distances written as **2."""
import numpy as np

SIZES = {"small": dict(n=500, k=4, iters=5), "full": dict(n=200000, k=8, iters=20)}


def main(n=200000, k=8, iters=20):
    t = np.arange(n)
    # points on k blobs, placed deterministically
    c = t % k
    pts = np.empty((n, 2))
    pts[:, 0] = np.cos(c * 0.8) * 5 + np.sin(t * 12.9898) * 0.7
    pts[:, 1] = np.sin(c * 0.8) * 5 + np.cos(t * 78.233) * 0.7
    centers = pts[:k].copy()
    for _ in range(iters):
        d = ((pts[:, None, :] - centers[None, :, :]) ** 2).sum(axis=2)
        label = d.argmin(axis=1)
        for j in range(k):
            members = pts[label == j]
            if len(members):
                centers[j] = members.mean(axis=0)
    return np.sort(centers[:, 0])


if __name__ == "__main__":
    print(main())
