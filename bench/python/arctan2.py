#!/usr/bin/python3
"""arctan2 over 10^6 float64, alone and fused into an expression, against
NumPy in one run (best of 20 each), and the largest difference from NumPy's
values in ulp of the result. One JSON line.
Usage: PYTHONPATH=build/python /usr/bin/python3 bench/python/arctan2.py
(OMP_NUM_THREADS=1 for one thread; ARRVM_PASSES=-vector-math for scalar libm)."""
import json
import time

import numpy

import arrvm


def best(f, reps=20):
    t = 1e9
    for _ in range(reps):
        t0 = time.perf_counter()
        f()
        t = min(t, time.perf_counter() - t0)
    return t


def main():
    rng = numpy.random.default_rng(1)
    x, y = rng.standard_normal(10**6), rng.standard_normal(10**6)
    a, b = arrvm.asarray(x), arrvm.asarray(y)
    row = {}
    cases = {'alone': (lambda m, p, q: m.arctan2(p, q)),
             'fused': (lambda m, p, q: (m.arctan2(p * 2.0, q + 1.0) * 0.5).sum())}
    for name, f in cases.items():
        row['numpy_' + name + '_ms'] = best(lambda: f(numpy, x, y)) * 1e3

        def run():
            r = f(arrvm, a, b)
            arrvm.flush()
            return r
        row['arrvm_' + name + '_ms'] = best(run) * 1e3
        row['ratio_' + name] = row['numpy_' + name + '_ms'] / row['arrvm_' + name + '_ms']
    got, want = numpy.asarray(arrvm.arctan2(a, b)), numpy.arctan2(x, y)
    row['max_ulp_from_numpy'] = float(numpy.max(numpy.abs(got - want) / numpy.spacing(numpy.abs(want))))
    print(json.dumps(row))


if __name__ == '__main__':
    main()
