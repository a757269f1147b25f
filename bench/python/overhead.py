#!/usr/bin/python3
"""Per-operation overhead of the arrvm Python layer against NumPy's own, in
one run: a loop issuing 10^5 elementwise operations on 10-element float64
arrays, flushing every 1000 (NumPy: nothing to flush). Prints one JSON line:
    {"ops": ..., "numpy_us_per_op": ..., "arrvm_us_per_op": ..., "ratio": ...}
Usage: PYTHONPATH=build/python /usr/bin/python3 bench/python/overhead.py [OPS]
"""
import json
import sys
import time

import numpy

import arrvm


def loop(mod, ops, flush):
    x = mod.ones(10)
    y = mod.ones(10) * 0.5
    start = time.perf_counter()
    for i in range(ops):
        x = x * y  # one instruction (and a free of the previous x)
        if i % 1000 == 999:
            flush()
    flush()
    float(x[0])  # sync the result
    return time.perf_counter() - start


def main(argv):
    ops = int(argv[0]) if argv else 100000
    loop(arrvm, 2000, arrvm.flush)  # warm: kernels compiled, partitions in the merge cache
    loop(numpy, 2000, lambda: None)
    t_np = min(loop(numpy, ops, lambda: None) for _ in range(3))
    t_av = min(loop(arrvm, ops, arrvm.flush) for _ in range(3))
    print(json.dumps({'ops': ops, 'numpy_us_per_op': t_np / ops * 1e6, 'arrvm_us_per_op': t_av / ops * 1e6,
                      'ratio': t_av / t_np, 'backend': arrvm.config()['backend']}))
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
