"""A wave packet advanced with complex exponentials (a split-step phase
rotation on a 2-D grid), and its norm and momentum each step."""
import numpy as np

SIZES = {"small": dict(n=32, steps=10), "full": dict(n=600, steps=100)}


def main(n=600, steps=100, dt=0.002):
    x = np.linspace(-np.pi, np.pi, n)
    X, Y = np.meshgrid(x, x)
    psi = np.exp(1j * (5 * X + 2 * Y)) * np.exp(-(X ** 2 + Y ** 2) * 2)
    potential = 0.5 * (X ** 2 + Y ** 2)
    norms = []
    for _ in range(steps):
        psi = psi * np.exp(-1j * potential * dt)
        lap = (np.roll(psi, 1, 0) + np.roll(psi, -1, 0) + np.roll(psi, 1, 1) + np.roll(psi, -1, 1) - 4 * psi)
        psi = psi + 0.5j * dt * lap
        norms.append((np.abs(psi) ** 2).sum())
    momentum = (np.conj(psi) * (np.roll(psi, -1, 1) - np.roll(psi, 1, 1))).sum()
    return np.array([norms[0], norms[-1], momentum.real, momentum.imag])


if __name__ == "__main__":
    print(main())
