#!/usr/bin/python3
"""Full sums of 10^7 elements, arrvm against NumPy, in one run: a plain sum
and a fused (a*a + 1).sum(), float32 and float64, milliseconds per call
(best of 20 after a warm-up), and each result's error against math.fsum.

  PYTHONPATH=build/python /usr/bin/python3 bench/python/sums.py
  (OMP_NUM_THREADS=1 for one thread)
"""
import json
import math
import time

import numpy

import arrvm


def best(f, n=20):
    f()
    t = float('inf')
    for _ in range(n):
        s = time.perf_counter()
        f()
        t = min(t, time.perf_counter() - s)
    return t * 1e3


def main():
    out = {}
    for dt in (numpy.float32, numpy.float64):
        x = numpy.random.default_rng(1).random(10**7, dtype=dt)
        a = arrvm.array(x)
        exact = math.fsum(x.astype(float))
        name = numpy.dtype(dt).name
        out['sum_ms_numpy_' + name] = round(best(lambda: x.sum()), 3)
        out['sum_ms_arrvm_' + name] = round(best(lambda: float(a.sum())), 3)
        out['fused_ms_numpy_' + name] = round(best(lambda: (x * x + 1).sum()), 3)
        out['fused_ms_arrvm_' + name] = round(best(lambda: float((a * a + 1).sum())), 3)
        out['sum_rel_error_numpy_' + name] = abs(float(x.sum()) - exact) / exact
        out['sum_rel_error_arrvm_' + name] = abs(float(a.sum()) - exact) / exact
    print(json.dumps(out))


if __name__ == '__main__':
    main()
