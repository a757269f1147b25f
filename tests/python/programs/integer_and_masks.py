"""Integer arithmetic, stacking and masks."""
import numpy as np
a = np.arange(-10, 10)
print(a // 3, a % 3, -a // 4, np.abs(a).max(), (a ** 2).sum())
b = a.reshape(4, 5)
print(np.vstack([b, b[:1] * 2]).shape, np.hstack([b, b]).sum(axis=1), np.stack([b, b], axis=2).shape)
print(np.concatenate([a[:3], a[-3:]]), np.where(b > 0, b, -b).sum(axis=0))
m = (b % 2 == 0) & (b > -5)
print(m.sum(), b[m], b[~m].mean())
b[m] = 0
print(b.sum(), b.min(axis=1), b.max(axis=0), np.count_nonzero(b))
c = np.linspace(0, 1, 11)
print(c[::-2], c[np.array([0, 5, 10])], np.float32(1.5) * c[:3], (c > 0.5).astype(int).sum())
print(np.full((2, 3), 7, dtype=np.int16).dtype, np.eye(3, k=1).sum(), np.identity(2) @ np.array([1.0, 2.0]))
x = np.arange(12.0).reshape(3, 4)
x[1] += 100
x[:, 2] *= -1
print(x, x.T.reshape(-1)[:5], x.flatten().tolist()[-3:], x.sum(axis=(0, 1)))
