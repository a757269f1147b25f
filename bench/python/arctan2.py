"""Issue 47's arctan2 check: numpy.arctan2 on 1e6 float64 against arrvm's,
alone, fused with a sum, and in a chain of elementwise work; best of 15
each, and the largest relative difference from NumPy's values.
    PYTHONPATH=build/python python3 bench/python/arctan2.py"""
import time

import numpy as np

import arrvm


def best(f, k=15):
    t = []
    for _ in range(k):
        t0 = time.perf_counter()
        f()
        t.append(time.perf_counter() - t0)
    return min(t)


def main(n=1_000_000):
    rng = np.random.default_rng(0)
    yn, xn = rng.standard_normal(n), rng.standard_normal(n)
    ya, xa = arrvm.asarray(yn), arrvm.asarray(xn)
    rows = [
        ("arctan2 alone", lambda: np.arctan2(yn, xn), lambda: np.asarray(arrvm.arctan2(ya, xa))),
        ("arctan2 + sum", lambda: np.arctan2(yn, xn).sum(), lambda: float(arrvm.arctan2(ya, xa).sum())),
        ("arctan2 in a chain", lambda: np.arctan2(yn * 2.0, xn + 1.0) * 0.5,
         lambda: np.asarray(arrvm.arctan2(ya * 2.0, xa + 1.0) * 0.5)),
    ]
    for name, f_np, f_arrvm in rows:
        tn, ta = best(f_np), best(f_arrvm)
        print("%-20s numpy %.2f ms, arrvm %.2f ms (%.2fx)" % (name, tn * 1e3, ta * 1e3, tn / ta))
    got = np.asarray(arrvm.arctan2(ya * 2.0, xa + 1.0) * 0.5)
    want = np.arctan2(yn * 2.0, xn + 1.0) * 0.5
    print("largest relative difference from NumPy's values: %g" % np.max(np.abs(got - want) / np.abs(want)))


if __name__ == "__main__":
    main()
