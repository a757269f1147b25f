"""European call and put prices by Black-Scholes over a grid of options."""
import math
import numpy as np


def cnd(d):
    a1, a2, a3, a4, a5 = 0.31938153, -0.356563782, 1.781477937, -1.821255978, 1.330274429
    k = 1.0 / (1.0 + 0.2316419 * np.abs(d))
    poly = k * (a1 + k * (a2 + k * (a3 + k * (a4 + k * a5))))
    w = 1.0 - 1.0 / math.sqrt(2 * math.pi) * np.exp(-d * d / 2.0) * poly
    return np.where(d < 0, 1.0 - w, w)


n = 200000
S = np.linspace(10.0, 100.0, n)            # spot prices
K = 50.0 + 20.0 * np.sin(np.arange(n) / 1000.0)
T = np.full(n, 0.75)
r, sigma = 0.03, 0.25
d1 = (np.log(S / K) + (r + 0.5 * sigma ** 2) * T) / (sigma * np.sqrt(T))
d2 = d1 - sigma * np.sqrt(T)
call = S * cnd(d1) - K * np.exp(-r * T) * cnd(d2)
put = K * np.exp(-r * T) * cnd(-d2) - S * cnd(-d1)
parity = np.max(np.abs(call - put - (S - K * np.exp(-r * T))))
print("black_scholes", call.sum(), put.mean(), float(parity) < 1e-9)
