"""Logistic regression by gradient descent on deterministic data."""
import numpy as np
np.random.seed(1)
n, d = 1000, 5
X = np.sin(np.arange(n * d).reshape(n, d) * 0.7)
true_w = np.arange(1, d + 1, dtype=float)
y = (X @ true_w + 0.1 * np.cos(np.arange(n)) > 0).astype(np.float64)
w = np.zeros(d)
lr = 0.1
def sigmoid(z):
    return 1.0 / (1.0 + np.exp(-z))
for epoch in range(200):
    p = sigmoid(X.dot(w))
    grad = X.T.dot(p - y) / n
    w -= lr * grad
loss = -np.mean(y * np.log(p + 1e-12) + (1 - y) * np.log(1 - p + 1e-12))
print("loss %.6f" % loss, np.round(w, 4))
acc = ((sigmoid(X @ w) > 0.5) == y).mean()
print("acc", acc)
