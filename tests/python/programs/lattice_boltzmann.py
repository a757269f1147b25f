"""D2Q9 lattice Boltzmann (BGK) flow past a cylinder, a few hundred steps."""
import numpy as np

nx, ny, steps, tau = 80, 40, 100, 0.6
c = np.array([[0, 0], [1, 0], [0, 1], [-1, 0], [0, -1], [1, 1], [-1, 1], [-1, -1], [1, -1]])
w = np.array([4 / 9] + [1 / 9] * 4 + [1 / 36] * 4)
X, Y = np.meshgrid(np.arange(nx), np.arange(ny))
obstacle = (X - nx / 4) ** 2 + (Y - ny / 2) ** 2 < (ny / 6) ** 2
F = np.ones((ny, nx, 9)) + 0.01 * np.sin(2 * np.pi * X / nx)[:, :, None]
F[:, :, 1] += 1.0
for _ in range(steps):
    for k in range(9):
        F[:, :, k] = np.roll(np.roll(F[:, :, k], c[k, 0], axis=1), c[k, 1], axis=0)
    boundary = F[obstacle, :]
    boundary = boundary[:, [0, 3, 4, 1, 2, 7, 8, 5, 6]]
    rho = np.sum(F, 2)
    ux = np.sum(F * c[:, 0], 2) / rho
    uy = np.sum(F * c[:, 1], 2) / rho
    F[obstacle, :] = boundary
    ux[obstacle] = 0
    uy[obstacle] = 0
    Feq = np.zeros(F.shape)
    for k in range(9):
        cu = c[k, 0] * ux + c[k, 1] * uy
        Feq[:, :, k] = rho * w[k] * (1 + 3 * cu + 9 * cu ** 2 / 2 - 3 * (ux ** 2 + uy ** 2) / 2)
    F += -(1.0 / tau) * (F - Feq)
print("lattice_boltzmann", rho.sum(), np.abs(ux).mean(), uy.max())
