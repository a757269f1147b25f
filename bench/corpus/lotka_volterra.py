"""An ensemble of predator-prey models integrated with RK4."""
import numpy as np

SIZES = {"small": dict(n=100, steps=100), "full": dict(n=200000, steps=400)}


def rhs(x, y, a, b, c, d):
    return a * x - b * x * y, d * x * y - c * y


def main(n=200000, steps=1000):
    a = np.linspace(0.8, 1.2, n)
    b, c, d = 0.4, 0.8, 0.2
    x = np.full(n, 10.0)
    y = np.full(n, 5.0)
    h = 0.01
    for _ in range(steps):
        k1x, k1y = rhs(x, y, a, b, c, d)
        k2x, k2y = rhs(x + h / 2 * k1x, y + h / 2 * k1y, a, b, c, d)
        k3x, k3y = rhs(x + h / 2 * k2x, y + h / 2 * k2y, a, b, c, d)
        k4x, k4y = rhs(x + h * k3x, y + h * k3y, a, b, c, d)
        x = x + h / 6 * (k1x + 2 * k2x + 2 * k3x + k4x)
        y = y + h / 6 * (k1y + 2 * k2y + 2 * k3y + k4y)
    return np.array([x.mean(), y.mean(), x.max(), y.min()])


if __name__ == "__main__":
    print(main())
