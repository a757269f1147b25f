"""k-means clustering, broadcasting distances (a tutorial NumPy script)."""
# arrvm falls back: bincount
import numpy as np
rng = np.random.default_rng(0)
X = np.concatenate([rng.normal(loc=c, scale=0.5, size=(200, 2)) for c in ([0, 0], [5, 5], [0, 5])])
k = 3
centroids = X[[0, 200, 400]].copy()
for it in range(10):
    d = ((X[:, None, :] - centroids[None, :, :]) ** 2).sum(axis=2)
    labels = d.argmin(axis=1)
    new = np.array([X[labels == j].mean(axis=0) for j in range(k)])
    if np.allclose(new, centroids):
        break
    centroids = new
print(np.round(centroids, 3), np.bincount(labels))
