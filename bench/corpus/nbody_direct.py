"""Direct-sum gravitational N-body with leapfrog steps."""
import numpy as np

SIZES = {"small": dict(n=32, steps=5), "full": dict(n=1000, steps=50)}


def main(n=1000, steps=50):
    t = np.arange(n)
    pos = np.stack([np.cos(t * 2.4), np.sin(t * 2.4), np.sin(t * 0.1)], axis=1) * (1 + t[:, None] % 7)
    vel = np.zeros((n, 3))
    mass = 1.0 / (1 + t % 5)
    dt, eps = 0.01, 0.1
    for _ in range(steps):
        d = pos[None, :, :] - pos[:, None, :]
        r2 = (d ** 2).sum(axis=2) + eps ** 2
        inv = r2 ** -1.5
        acc = (d * (mass[None, :] * inv)[:, :, None]).sum(axis=1)
        vel += acc * dt
        pos += vel * dt
    ke = 0.5 * (mass * (vel ** 2).sum(axis=1)).sum()
    return np.array([ke, pos.mean(), np.abs(pos).max()])


if __name__ == "__main__":
    print(main())
