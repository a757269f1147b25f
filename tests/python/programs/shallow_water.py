"""2-D shallow water equations (Lax-Friedrichs) on a periodic grid with np.roll."""
import numpy as np

n, steps, g, dt, dx = 64, 60, 9.81, 0.01, 1.0
x = np.linspace(-1, 1, n)
X, Y = np.meshgrid(x, x)
h = 1.0 + 0.1 * np.exp(-10 * (X ** 2 + Y ** 2))
u = np.zeros_like(h)
v = np.zeros_like(h)


def avg(f):
    return 0.25 * (np.roll(f, 1, 0) + np.roll(f, -1, 0) + np.roll(f, 1, 1) + np.roll(f, -1, 1))


def ddx(f):
    return (np.roll(f, -1, 1) - np.roll(f, 1, 1)) / (2 * dx)


def ddy(f):
    return (np.roll(f, -1, 0) - np.roll(f, 1, 0)) / (2 * dx)


for _ in range(steps):
    hu, hv = h * u, h * v
    h_new = avg(h) - dt * (ddx(hu) + ddy(hv))
    hu_new = avg(hu) - dt * (ddx(hu * u + 0.5 * g * h ** 2) + ddy(hu * v))
    hv_new = avg(hv) - dt * (ddx(hu * v) + ddy(hv * v + 0.5 * g * h ** 2))
    h = h_new
    u = hu_new / h
    v = hv_new / h
print("shallow_water", h.sum(), np.abs(u).max(), (h * v).std())
