#!/usr/bin/python3
"""Reads of single elements and small flushes, arrvm against NumPy, in one run.

  read_us        float(b[i, j]) on a 50x50 array nothing pending writes,
                 20 000 times: microseconds per read (NumPy, arrvm)
  index_us       b[i, j] alone (NumPy's scalar either way)
  flush_us       `y = x + 1.0; arrvm.flush()` on 10 elements, 20 000 times
                 (the merge cache and the kernel warm): microseconds in
                 flush(), its kernel's launch (the profile's execution
                 time) and the rest (merge cache, lowering reuse, lookup)

Prints one JSON line. Usage:
  PYTHONPATH=build/python /usr/bin/python3 bench/python/reads.py [N]
"""
import json
import sys
import time

import numpy

import arrvm


def per(n, f):
    best = float('inf')
    for _ in range(3):
        t = time.perf_counter()
        f(n)
        best = min(best, time.perf_counter() - t)
    return best / n * 1e6


def main(n):
    out = {}
    for name, mod in (('numpy', numpy), ('arrvm', arrvm)):
        b = mod.arange(2500.0).reshape(50, 50) * 0.5 + 1
        if mod is arrvm:
            arrvm.flush()

        def reads(n, b=b):
            s = 0.0
            for k in range(n):
                s += float(b[k % 50, (k * 7) % 50])
            return s

        def index(n, b=b):
            for k in range(n):
                b[k % 50, (k * 7) % 50]

        out['read_us_' + name] = per(n, reads)
        out['index_us_' + name] = per(n, index)
    x = arrvm.ones(10)
    for _ in range(100):  # warm: the kernel and the merge cache
        y = x + 1.0
        arrvm.flush()
    p0 = arrvm.profile()
    in_flush = 0.0
    for _ in range(n):
        y = x + 1.0
        t = time.perf_counter()
        arrvm.flush()
        in_flush += time.perf_counter() - t
    p1 = arrvm.profile()
    kernels = p1['kernels']['launched'] - p0['kernels']['launched']
    exec_s = p1['time']['execution'] - p0['time']['execution']
    out['flush_us'] = in_flush / n * 1e6
    out['flush_us_launch'] = exec_s / n * 1e6
    out['flush_us_not_launch'] = (in_flush - exec_s) / n * 1e6
    out['kernels_per_flush'] = kernels / n
    out['read_ratio'] = out['read_us_arrvm'] / out['read_us_numpy']
    print(json.dumps({k: round(v, 3) for k, v in out.items()}))


if __name__ == '__main__':
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 20000)
