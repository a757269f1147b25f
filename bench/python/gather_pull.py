#!/usr/bin/python3
"""A gather of a computed array, from NumPy code, with and without the
engine pulling the gather's producer in (the pull-gathers pass, ARRVM_PASSES;
rewrite/gather_pull.hpp), in one run: `(a * b + 1.0)[idx].sum()` with
|a| = |b| = N random float64 and a NumPy index array of M positions. Prints
one line per setting: the best of REPEAT runs (after a warm-up) and the
gathers pulled (the profile's passes.pull-gathers).
Usage: PYTHONPATH=build/python /usr/bin/python3 bench/python/gather_pull.py [N M REPEAT]
"""
import json
import os
import subprocess
import sys
import tempfile

CHILD = r'''
import sys, time, numpy as np, arrvm
n, m, repeat = map(int, sys.argv[1:4])
idx = np.random.default_rng(1).integers(0, n, m)
a = arrvm.random.random(n); b = arrvm.random.random(n)
def step():
    return float((a * b + 1.0)[idx].sum())
step()
best = min(( (lambda t0: (step(), time.perf_counter() - t0)[1])(time.perf_counter()) for _ in range(repeat)))
print(best)
'''


def main(argv):
    n, m, repeat = (argv + ['10000000', '10000', '5'][len(argv):])[:3]
    for setting in ('on', 'off'):
        with tempfile.NamedTemporaryFile(suffix='.json') as prof:
            env = dict(os.environ, ARRVM_PASSES='default' if setting == 'on' else '-pull-gathers', ARRVM_PROFILE=prof.name)
            out = subprocess.run([sys.executable, '-c', CHILD, n, m, repeat], env=env, capture_output=True,
                                 text=True, check=True).stdout.split()[-1]
            pulled = json.load(open(prof.name)).get('passes', {}).get('pull-gathers')
        print(f'pull-gathers {setting}: best {float(out) * 1e3:.3f} ms, gathers pulled {pulled}')


if __name__ == '__main__':
    main(sys.argv[1:])
