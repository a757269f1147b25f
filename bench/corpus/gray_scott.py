"""Gray-Scott reaction-diffusion with a 5-point Laplacian by slicing."""
import numpy as np

SIZES = {"small": dict(n=48, steps=20), "full": dict(n=512, steps=400)}


def laplacian(Z):
    return (Z[:-2, 1:-1] + Z[2:, 1:-1] + Z[1:-1, :-2] + Z[1:-1, 2:] - 4 * Z[1:-1, 1:-1])


def main(n=512, steps=1000):
    Du, Dv, F, k = 0.16, 0.08, 0.060, 0.062
    U = np.ones((n, n))
    V = np.zeros((n, n))
    r = n // 10
    U[n // 2 - r:n // 2 + r, n // 2 - r:n // 2 + r] = 0.50
    V[n // 2 - r:n // 2 + r, n // 2 - r:n // 2 + r] = 0.25
    for _ in range(steps):
        u = U[1:-1, 1:-1]
        v = V[1:-1, 1:-1]
        uvv = u * v * v
        U[1:-1, 1:-1] = u + Du * laplacian(U) - uvv + F * (1 - u)
        V[1:-1, 1:-1] = v + Dv * laplacian(V) + uvv - (F + k) * v
    return np.array([U.mean(), V.mean(), V.max()])


if __name__ == "__main__":
    print(main())
