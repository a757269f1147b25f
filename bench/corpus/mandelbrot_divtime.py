"""Mandelbrot set with complex numbers, the SciPy lecture notes way: escape
times recorded with masks, diverged points reset to 2."""
import numpy as np

SIZES = {"small": dict(h=60, w=60, maxit=20), "full": dict(h=1000, w=1000, maxit=100)}


def main(h=1000, w=1000, maxit=100):
    y, x = np.ogrid[-1.4:1.4:h * 1j, -2:0.8:w * 1j]
    c = x + y * 1j
    z = c
    divtime = maxit + np.zeros(z.shape, dtype=int)
    for i in range(maxit):
        z = z ** 2 + c
        diverge = z * np.conj(z) > 2 ** 2
        div_now = diverge & (divtime == maxit)
        divtime[div_now] = i
        z[diverge] = 2
    return divtime[::max(1, h // 50), ::max(1, w // 50)]


if __name__ == "__main__":
    print(main().sum())
