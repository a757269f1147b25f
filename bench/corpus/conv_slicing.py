"""2-D convolution with a 5x5 kernel as a sum of shifted slices."""
import numpy as np

SIZES = {"small": dict(n=64, reps=2), "full": dict(n=1500, reps=6)}


def conv2d(img, kern):
    kh, kw = kern.shape
    h, w = img.shape[0] - kh + 1, img.shape[1] - kw + 1
    out = np.zeros((h, w))
    for i in range(kh):
        for j in range(kw):
            out += kern[i, j] * img[i:i + h, j:j + w]
    return out


def main(n=1500, reps=6):
    g = np.exp(-np.linspace(-2, 2, 5) ** 2)
    kern = np.outer(g, g)
    kern /= kern.sum()
    y, x = np.mgrid[0:n, 0:n]
    img = ((x // 16 + y // 16) % 2).astype(np.float64)
    for _ in range(reps):
        img = conv2d(img, kern)
    return np.array([img.sum(), img.std(), img[img.shape[0] // 2, img.shape[1] // 3]])


if __name__ == "__main__":
    print(main())
