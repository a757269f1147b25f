"""Jacobi iteration for Laplace's equation until the update is small."""
import numpy as np

SIZES = {"small": dict(n=24, tol=1e-3), "full": dict(n=200, tol=1e-4)}


def main(n=200, tol=1e-4):
    u = np.zeros((n, n))
    u[0, :] = 1.0
    it = 0
    while True:
        new = u.copy()
        new[1:-1, 1:-1] = 0.25 * (u[2:, 1:-1] + u[:-2, 1:-1] + u[1:-1, 2:] + u[1:-1, :-2])
        diff = np.abs(new - u).max()
        u = new
        it += 1
        if diff < tol or it >= 20000:
            break
    return np.array([it, u[n // 2, n // 2], u.mean()])


if __name__ == "__main__":
    print(main())
