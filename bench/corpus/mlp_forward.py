"""A two-layer perceptron: forward pass, softmax and cross-entropy."""
import numpy as np

SIZES = {"small": dict(n=64, d=16, h=32, c=4, reps=2), "full": dict(n=20000, d=256, h=256, c=10, reps=4)}


def main(n=20000, d=256, h=256, c=10, reps=4):
    X = np.sin(np.arange(n * d).reshape(n, d) * 0.01)
    W1 = np.cos(np.arange(d * h).reshape(d, h) * 0.7) / np.sqrt(d)
    W2 = np.sin(np.arange(h * c).reshape(h, c) * 1.3) / np.sqrt(h)
    y = np.arange(n) % c
    for _ in range(reps):
        H = np.maximum(X @ W1, 0)
        logits = H @ W2
        logits -= logits.max(axis=1, keepdims=True)
        P = np.exp(logits)
        P /= P.sum(axis=1, keepdims=True)
        loss = -np.log(P[np.arange(n), y] + 1e-12).mean()
        W2 = W2 * 0.999
    return np.array([loss, P.mean(axis=0).max(), H.mean()])


if __name__ == "__main__":
    print(main())
