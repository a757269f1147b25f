"""Sieve of Eratosthenes with strided slice assignment."""
import numpy as np

SIZES = {"small": dict(n=10000), "full": dict(n=30000000)}


def main(n=30000000):
    is_prime = np.ones(n + 1, dtype=bool)
    is_prime[:2] = False
    p = 2
    while p * p <= n:
        if is_prime[p]:
            is_prime[p * p::p] = False
        p += 1
    primes = np.nonzero(is_prime)[0]
    gaps = np.diff(primes)
    return np.array([len(primes), primes[-1], gaps.max(), gaps.mean()])


if __name__ == "__main__":
    print(main())
