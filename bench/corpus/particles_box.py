"""Particles under gravity bouncing in a box, with damping at the walls."""
import numpy as np

SIZES = {"small": dict(n=1000, steps=50), "full": dict(n=1000000, steps=200)}


def main(n=1000000, steps=500):
    t = np.arange(n)
    x = (t * 0.618) % 1.0
    y = (t * 0.414) % 1.0
    vx = np.sin(t * 1.1) * 0.01
    vy = np.cos(t * 0.9) * 0.01
    dt, g = 0.1, -0.001
    for _ in range(steps):
        vy = vy + g * dt
        x = x + vx * dt
        y = y + vy * dt
        hit_x = (x < 0) | (x > 1)
        hit_y = y < 0
        vx = np.where(hit_x, -0.9 * vx, vx)
        vy = np.where(hit_y, -0.9 * vy, vy)
        x = np.clip(x, 0, 1)
        y = np.maximum(y, 0)
    return np.array([x.mean(), y.mean(), (vx ** 2 + vy ** 2).mean()])


if __name__ == "__main__":
    print(main())
