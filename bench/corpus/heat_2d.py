"""2-D heat diffusion with an explicit 5-point stencil and fixed edges."""
import numpy as np

SIZES = {"small": dict(n=40, steps=50), "full": dict(n=400, steps=2000)}


def main(n=400, steps=2000):
    u = np.zeros((n, n))
    u[0, :] = 100.0
    u[:, 0] = 50.0
    alpha = 0.2
    for _ in range(steps):
        u[1:-1, 1:-1] = u[1:-1, 1:-1] + alpha * (u[2:, 1:-1] + u[:-2, 1:-1] + u[1:-1, 2:] + u[1:-1, :-2]
                                                 - 4 * u[1:-1, 1:-1])
    return u[::max(1, n // 40), ::max(1, n // 40)]


if __name__ == "__main__":
    print(main().sum())
