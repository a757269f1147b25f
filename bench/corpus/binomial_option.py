"""American put priced on a binomial tree, a loop over the dates."""
import numpy as np

SIZES = {"small": dict(steps=200, strikes=8), "full": dict(steps=3000, strikes=64)}


def main(steps=4000, strikes=64):
    S0, r, sigma, T = 100.0, 0.03, 0.25, 1.0
    K = np.linspace(80.0, 120.0, strikes)[:, None]
    dt = T / steps
    u = np.exp(sigma * np.sqrt(dt))
    d = 1.0 / u
    p = (np.exp(r * dt) - d) / (u - d)
    disc = np.exp(-r * dt)
    j = np.arange(steps + 1)
    S = S0 * u ** (steps - j) * d ** j
    V = np.maximum(K - S[None, :], 0.0)
    for t in range(steps - 1, -1, -1):
        S = S[:-1] * d
        V = disc * (p * V[:, :-1] + (1 - p) * V[:, 1:])
        V = np.maximum(V, K - S[None, :])
    return V[:, 0]


if __name__ == "__main__":
    print(main())
