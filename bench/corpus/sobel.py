"""Sobel edge magnitude and a threshold mask of a synthetic image."""
import numpy as np

SIZES = {"small": dict(n=64, reps=2), "full": dict(n=2000, reps=10)}


def sobel(img):
    gx = (img[:-2, 2:] + 2 * img[1:-1, 2:] + img[2:, 2:]) - (img[:-2, :-2] + 2 * img[1:-1, :-2] + img[2:, :-2])
    gy = (img[2:, :-2] + 2 * img[2:, 1:-1] + img[2:, 2:]) - (img[:-2, :-2] + 2 * img[:-2, 1:-1] + img[:-2, 2:])
    return np.sqrt(gx ** 2 + gy ** 2)


def main(n=2000, reps=10):
    x = np.linspace(-3, 3, n)
    img = np.exp(-(x[:, None] ** 2 + x[None, :] ** 2)) + 0.3 * np.sin(5 * x)[None, :]
    total = 0.0
    for _ in range(reps):
        mag = sobel(img)
        edges = mag > mag.mean() + mag.std()
        total += edges.sum()
        img = img * 0.99
    return np.array([total, mag.max(), mag.mean()])


if __name__ == "__main__":
    print(main())
