"""Many 1-D random walks: final positions, maxima and first passage."""
import numpy as np

SIZES = {"small": dict(walkers=100, steps=200), "full": dict(walkers=4000, steps=2000)}


def main(walkers=4000, steps=2000):
    rng = np.random.RandomState(42)
    steps_ = np.where(rng.random_sample((walkers, steps)) < 0.5, -1, 1)
    paths = np.cumsum(steps_, axis=1)
    final = paths[:, -1]
    peak = paths.max(axis=1)
    crossed = (np.abs(paths) >= 30).any(axis=1)
    return np.array([final.mean(), (final ** 2).mean() / steps, peak.mean() / np.sqrt(steps), crossed.mean()])


# statistical: the stream is the generator's, the check is its expectation
TOLERANCE = dict(rtol=0.0, atol=[0.5, 0.1, 0.1, 0.05])

if __name__ == "__main__":
    print(main())
