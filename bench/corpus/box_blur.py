"""Repeated 3x3 box blur of a grayscale image, written with slices."""
import numpy as np

SIZES = {"small": dict(n=64, steps=3), "full": dict(n=1500, steps=30)}


def main(n=1500, steps=30):
    y, x = np.mgrid[0:n, 0:n]
    img = (np.sin(x / 17.0) * np.cos(y / 23.0) + 1.0) * 127.5
    for _ in range(steps):
        out = img.copy()
        out[1:-1, 1:-1] = (img[:-2, :-2] + img[:-2, 1:-1] + img[:-2, 2:] +
                           img[1:-1, :-2] + img[1:-1, 1:-1] + img[1:-1, 2:] +
                           img[2:, :-2] + img[2:, 1:-1] + img[2:, 2:]) / 9.0
        img = out
    return img[::max(1, n // 64), ::max(1, n // 64)]


if __name__ == "__main__":
    print(main().sum())
