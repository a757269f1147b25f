"""Black-Scholes prices and greeks for a grid of strikes and maturities."""
import math

import numpy as np

SIZES = {"small": dict(n=100, reps=2), "full": dict(n=1500, reps=5)}


def norm_cdf(x):
    return 0.5 * (1.0 + np.tanh(0.7978845608 * (x + 0.044715 * x ** 3)))


def main(n=1500, reps=10):
    S, r, sigma = 100.0, 0.02, 0.3
    K = np.linspace(50, 150, n)[:, None]
    T = np.linspace(0.05, 3.0, n)[None, :]
    for _ in range(reps):
        sqT = np.sqrt(T)
        d1 = (np.log(S / K) + (r + 0.5 * sigma ** 2) * T) / (sigma * sqT)
        d2 = d1 - sigma * sqT
        call = S * norm_cdf(d1) - K * np.exp(-r * T) * norm_cdf(d2)
        delta = norm_cdf(d1)
        gamma = np.exp(-0.5 * d1 ** 2) / math.sqrt(2 * math.pi) / (S * sigma * sqT)
        sigma = sigma * 1.0001
    return np.array([call.mean(), delta.mean(), gamma.max()])


if __name__ == "__main__":
    print(main())
