"""Monte Carlo estimates of integrals in batches of uniform samples."""
import numpy as np

SIZES = {"small": dict(n=10000, batches=3), "full": dict(n=2000000, batches=20)}


def main(n=2000000, batches=20):
    np.random.seed(7)
    inside = 0
    total = 0.0
    for _ in range(batches):
        x = np.random.rand(n)
        y = np.random.rand(n)
        inside += np.count_nonzero(x * x + y * y <= 1.0)
        total += np.exp(-x * x).sum()
    pi = 4.0 * inside / (n * batches)
    gauss = total / (n * batches)
    return np.array([pi, gauss])


# statistical: the estimates, not the stream
TOLERANCE = dict(rtol=0.0, atol=[0.03, 0.005])

if __name__ == "__main__":
    print(main())
