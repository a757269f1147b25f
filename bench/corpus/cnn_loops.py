"""A small convolutional network's forward pass with explicit loops over
channels and kernel offsets (conv, ReLU, 2x2 max pool, twice, then dense)."""
import numpy as np

SIZES = {"small": dict(size=12, batch=2), "full": dict(size=64, batch=32)}


def conv(x, w):
    # x: (batch, cin, h, w); w: (cout, cin, k, k); valid padding
    b, cin, h, wd = x.shape
    cout, _, k, _ = w.shape
    out = np.zeros((b, cout, h - k + 1, wd - k + 1))
    for o in range(cout):
        for c in range(cin):
            for dy in range(k):
                for dx in range(k):
                    out[:, o] += w[o, c, dy, dx] * x[:, c, dy:dy + h - k + 1, dx:dx + wd - k + 1]
    return out


def pool(x):
    b, c, h, w = x.shape
    x = x[:, :, :h // 2 * 2, :w // 2 * 2]
    return np.maximum(np.maximum(x[:, :, 0::2, 0::2], x[:, :, 1::2, 0::2]),
                      np.maximum(x[:, :, 0::2, 1::2], x[:, :, 1::2, 1::2]))


def main(size=64, batch=8):
    t = np.arange(batch * size * size, dtype=np.float64).reshape(batch, 1, size, size)
    x = np.sin(t * 0.001) + np.cos(t * 0.0007)
    w1 = np.sin(np.arange(8 * 1 * 3 * 3).reshape(8, 1, 3, 3) * 0.7)
    w2 = np.cos(np.arange(16 * 8 * 3 * 3).reshape(16, 8, 3, 3) * 0.3) * 0.2
    h = pool(np.maximum(conv(x, w1), 0))
    h = pool(np.maximum(conv(h, w2), 0))
    flat = h.reshape(batch, -1)
    wd = np.sin(np.arange(flat.shape[1] * 10).reshape(flat.shape[1], 10) * 0.01)
    logits = flat @ wd
    return np.array([logits.sum(), logits.max(), h.mean()])


if __name__ == "__main__":
    print(main())
