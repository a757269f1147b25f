"""Logistic regression trained by full-batch gradient descent."""
import numpy as np

SIZES = {"small": dict(n=500, d=8, steps=20), "full": dict(n=100000, d=40, steps=200)}


def sigmoid(z):
    return 1.0 / (1.0 + np.exp(-z))


def main(n=100000, d=40, steps=200):
    i = np.arange(n)[:, None]
    j = np.arange(d)[None, :]
    X = np.sin(i * 0.013 * (j + 1) + j)
    true_w = np.cos(np.arange(d))
    y = (X @ true_w > 0).astype(np.float64)
    w = np.zeros(d)
    b = 0.0
    lr = 0.5
    for _ in range(steps):
        p = sigmoid(X @ w + b)
        err = p - y
        w -= lr * (X.T @ err) / n
        b -= lr * err.mean()
    p = sigmoid(X @ w + b)
    loss = -np.mean(y * np.log(p + 1e-12) + (1 - y) * np.log(1 - p + 1e-12))
    return np.array([loss, ((p > 0.5) == y).mean()])


if __name__ == "__main__":
    print(main())
