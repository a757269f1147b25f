"""Direct-sum N-body with softening and a leapfrog integrator."""
import numpy as np

n, steps, dt, G, eps = 300, 20, 0.01, 1.0, 0.05
i = np.arange(n)
pos = np.stack([np.cos(i * 0.1) * (1 + i / n), np.sin(i * 0.1) * (1 + i / n), np.sin(i * 0.37) * 0.1], axis=1)
vel = np.zeros((n, 3))
mass = 1.0 / n + np.zeros(n)


def accel(pos):
    d = pos[np.newaxis, :, :] - pos[:, np.newaxis, :]      # d[i, j] = pos[j] - pos[i]
    r2 = (d ** 2).sum(axis=2) + eps ** 2
    inv_r3 = r2 ** -1.5
    return G * (d * (mass[np.newaxis, :] * inv_r3)[:, :, np.newaxis]).sum(axis=1)


a = accel(pos)
for _ in range(steps):
    vel += 0.5 * dt * a
    pos += dt * vel
    a = accel(pos)
    vel += 0.5 * dt * a
kinetic = 0.5 * (mass[:, None] * vel ** 2).sum()
print("nbody", kinetic, np.abs(pos).sum(), pos.mean(axis=0)[2])
