"""Reductions along the rows and their epilogues (issue 45, row programs),
written as NumPy users write them, on a (1000, 1000) float64 matrix: NumPy
against arrvm, best of 15 calls each after warming, at the default thread
count and at one thread (each in its own process), kernels a call, and the
largest relative difference from NumPy's values.
    PYTHONPATH=build/python python3 bench/python/row_programs.py [M N]
(ARRVM_PASSES=-row-fusion: the same without row programs.)"""
import json
import os
import subprocess
import sys
import time

import numpy as np


def softmax(xp, x):
    e = xp.exp(x - x.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def normalize(xp, x):
    return x / x.sum(axis=1)[:, None]


def standardize(xp, x):
    mu = x.mean(axis=1, keepdims=True)
    d = x - mu
    return d / xp.sqrt((d * d).mean(axis=1, keepdims=True))


def row_sum(xp, x):
    return x.sum(axis=1)


def row_max(xp, x):
    return x.max(axis=1)


FUNCTIONS = (softmax, normalize, standardize, row_sum, row_max)


def best(f, k=15):
    t = []
    for _ in range(k):
        t0 = time.perf_counter()
        f()
        t.append(time.perf_counter() - t0)
    return min(t)


def measure(m, n):
    import arrvm
    xn = np.random.default_rng(0).random((m, n)) + 0.5
    xa = arrvm.asarray(xn)
    out = {}
    for f in FUNCTIONS:
        for _ in range(3):
            np.asarray(f(arrvm, xa))
        k0 = arrvm.profile()['kernels']['launched']
        got = np.asarray(f(arrvm, xa))
        kernels = arrvm.profile()['kernels']['launched'] - k0
        want = f(np, xn)
        out[f.__name__] = {
            'numpy': best(lambda: f(np, xn)),
            'arrvm': best(lambda: np.asarray(f(arrvm, xa))),
            'kernels': kernels,
            'rel': float(np.max(np.abs(got - want) / np.abs(want))),
        }
    return out


def main(argv):
    if argv[:1] == ['--one']:
        print(json.dumps(measure(int(argv[1]), int(argv[2]))))
        return
    m, n = (int(argv[0]), int(argv[1])) if len(argv) >= 2 else (1000, 1000)
    runs = {}
    for threads in ('default', '1'):
        env = dict(os.environ)
        if threads == '1':
            env['OMP_NUM_THREADS'] = '1'
        p = subprocess.run([sys.executable, __file__, '--one', str(m), str(n)], env=env, capture_output=True,
                           text=True, check=True)
        runs[threads] = json.loads(p.stdout.strip().splitlines()[-1])
    print("(%d, %d) float64, ms a call (best of 15), x NumPy" % (m, n))
    print("%-12s %8s %8s %7s %8s %7s %8s %10s" %
          ('', 'numpy', 'arrvm', 'x', 'arrvm 1t', 'x', 'kernels', 'rel. diff'))
    for f in FUNCTIONS:
        d, o = runs['default'][f.__name__], runs['1'][f.__name__]
        print("%-12s %8.3f %8.3f %7.2f %8.3f %7.2f %8d %10.1e" %
              (f.__name__, d['numpy'] * 1e3, d['arrvm'] * 1e3, d['numpy'] / d['arrvm'], o['arrvm'] * 1e3,
               o['numpy'] / o['arrvm'], d['kernels'], d['rel']))


if __name__ == '__main__':
    main(sys.argv[1:])
