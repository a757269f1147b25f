"""Boids: cohesion, separation and alignment with all-pairs distances."""
import numpy as np

SIZES = {"small": dict(n=64, steps=5), "full": dict(n=1500, steps=10)}


def main(n=1500, steps=40):
    t = np.arange(n)
    pos = np.stack([np.sin(t * 1.3) * 50 + 50, np.cos(t * 0.7) * 50 + 50], axis=1)
    vel = np.stack([np.cos(t * 2.1), np.sin(t * 0.3)], axis=1)
    for _ in range(steps):
        diff = pos[None, :, :] - pos[:, None, :]
        dist = np.sqrt((diff ** 2).sum(axis=2)) + np.eye(n) * 1e9
        near = dist < 10.0
        close = dist < 2.0
        cnt = near.sum(axis=1)[:, None] + 1e-9
        cohesion = (diff * near[:, :, None]).sum(axis=1) / cnt
        separation = -(diff * close[:, :, None]).sum(axis=1)
        align = (vel[None, :, :] * near[:, :, None]).sum(axis=1) / cnt - vel
        vel = vel + 0.01 * cohesion + 0.05 * separation + 0.05 * align
        speed = np.sqrt((vel ** 2).sum(axis=1))[:, None]
        vel = np.where(speed > 2.0, vel / speed * 2.0, vel)
        pos = (pos + vel) % 100.0
    return np.array([pos.mean(), vel.mean(), np.abs(vel).max()])


if __name__ == "__main__":
    print(main())
