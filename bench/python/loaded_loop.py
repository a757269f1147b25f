#!/usr/bin/python3
"""The fast-programs issue's loop on a loaded machine: a = ones((200, 200)),
then 1000 x `a = a * 0.5 + 0.5; flush()`. Runs NumPy, arrvm with default
threads and arrvm with OMP_NUM_THREADS=1, each in its own process, quiet and
beside N busy processes (--load, default 2), alternating the three K times
(--rounds, default 3) so that each meets the same phases of the load; prints
one JSON line with the best time of each, seconds.
Usage: PYTHONPATH=build/python /usr/bin/python3 bench/python/loaded_loop.py [--load N] [--rounds K]"""
import argparse
import json
import os
import subprocess
import sys

CHILD = r'''
import sys, time
import numpy
mod = numpy
if sys.argv[1] == 'arrvm':
    import arrvm as mod
a = mod.ones((200, 200))
flush = getattr(mod, 'flush', lambda: None)
flush()
t = time.perf_counter()
for _ in range(1000):
    a = a * 0.5 + 0.5
    flush()
float(a[0, 0])
print(time.perf_counter() - t)
'''

BUSY = 'while True: pass'


def run(which, threads):
    env = dict(os.environ)
    if threads is not None:
        env['OMP_NUM_THREADS'] = str(threads)
    out = subprocess.run([sys.executable, '-c', CHILD, which], env=env, capture_output=True, text=True, check=True)
    return float(out.stdout.strip().splitlines()[-1])


def measure(rounds):
    best = {'numpy': 1e9, 'arrvm_default': 1e9, 'arrvm_1thread': 1e9}
    for _ in range(rounds):
        best['numpy'] = min(best['numpy'], run('numpy', None))
        best['arrvm_default'] = min(best['arrvm_default'], run('arrvm', None))
        best['arrvm_1thread'] = min(best['arrvm_1thread'], run('arrvm', 1))
    return best


def main():
    p = argparse.ArgumentParser()
    p.add_argument('--load', type=int, default=2)
    p.add_argument('--rounds', type=int, default=3)
    args = p.parse_args()
    row = {'quiet': measure(args.rounds)}
    busy = [subprocess.Popen([sys.executable, '-c', BUSY]) for _ in range(args.load)]
    try:
        row['load%d' % args.load] = measure(args.rounds)
    finally:
        for b in busy:
            b.kill()
    for k, v in list(row.items()):
        v['default_over_1thread'] = v['arrvm_default'] / v['arrvm_1thread']
        v['numpy_over_arrvm'] = v['numpy'] / v['arrvm_default']
    print(json.dumps(row))


if __name__ == '__main__':
    main()
