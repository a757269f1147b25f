"""Blur and gradient magnitude of an image with shifted slices."""
import numpy as np
img = np.linspace(0, 1, 64*64).reshape(64, 64)
img[20:40, 20:40] = 1.0
k = np.array([[1, 2, 1], [2, 4, 2], [1, 2, 1]], dtype=np.float64) / 16
out = np.zeros_like(img)
for i in range(3):
    for j in range(3):
        out[1:-1, 1:-1] += k[i, j] * img[i:i + 62, j:j + 62]
gx = img[:, 2:] - img[:, :-2]
gy = img[2:, :] - img[:-2, :]
mag = np.sqrt(gx[1:-1, :]**2 + gy[:, 1:-1]**2)
print(out.sum(), mag.max(), np.argmax(mag), mag.mean(axis=0)[:3])
print(np.clip(out, 0.2, 0.8).std(), np.where(out > 0.5, 1, 0).sum())
