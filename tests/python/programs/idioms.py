"""Softmax, small linear algebra and indexing idioms."""
# arrvm falls back: sort, unique
import numpy as np
x = np.linspace(-3, 3, 30).reshape(5, 6)
e = np.exp(x - x.max(axis=1, keepdims=True))
s = e / e.sum(axis=1, keepdims=True)
print(s.sum(axis=1), s.argmax(axis=1), s[2, ::2])
m = np.eye(4) * 2 + np.ones((4, 4))
v = np.arange(4.0)
print(m @ v, np.dot(v, v), np.outer(v, v).trace(), np.cumsum(v)[-1])
a = np.arange(24).reshape(2, 3, 4)
print(a.transpose(1, 0, 2).shape, a.sum(axis=(0, 2)), a[..., 1], a[:, -1, ::-1])
print(np.mean(a, axis=-1).dtype, a.astype(np.float32).var(), np.prod(a[0, 0] + 1))
b = a.copy(); b[b % 3 == 0] = -1; print(b.min(), (b == -1).sum(), np.count_nonzero(b))
print(np.linalg.norm(v), np.sort(np.array([3, 1, 2])), np.unique(a % 5))
