"""Standardizing a data matrix, covariance and correlation, the textbook way."""
import numpy as np
X = np.sin(np.arange(600.0).reshape(200, 3) * [0.1, 0.37, 1.3]) + np.arange(200.0)[:, None] * [0.01, -0.02, 0.0]
mu = X.mean(axis=0)
sd = X.std(axis=0, ddof=1)
Z = (X - mu) / sd
C = (X - mu).T @ (X - mu) / (X.shape[0] - 1)
R = C / np.outer(np.sqrt(np.diag(C)), np.sqrt(np.diag(C)))
print(np.round(mu, 6), np.round(sd, 6))
print(np.round(C, 6))
print(np.round(R, 6), Z.min(axis=0), Z.max(), (np.abs(Z) > 2).sum(axis=0))
w = np.ones(5) / 5
ma = np.cumsum(X[:, 0])
ma = (ma[5:] - ma[:-5]) / 5
print(ma[:3], ma.shape, np.diff(X[:4, 1]), np.clip(X[:3, 2], -0.5, 0.5))
