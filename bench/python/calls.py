#!/usr/bin/python3
"""What one call of a common NumPy function costs on a small array, under
NumPy and under `python3 -m arrvm`, in one run: the per-call overhead a
Python loop over small arrays pays (issue 41's programs: a row loop, a
Gram-Schmidt column loop, dart throwing). Each case runs in a child
process per library (best of 5 repetitions of a loop of --loops calls, the
loop's own cost subtracted), and the table is sorted by arrvm / NumPy.

Usage: PYTHONPATH=build/python /usr/bin/python3 bench/python/calls.py [--n N] [--loops K] [NAME ...]
"""
import json
import os
import subprocess
import sys

# name: the statement timed, on a = arange(n) (int64), x, y (float64, n),
# M (n x 8 float64), k (a Python int), m (a bool mask of n).
CASES = {
    'a + b': 'a + b',
    'x * 0.5': 'x * 0.5',
    'x ** 2': 'x ** 2',
    'a != 3': 'a != 3',
    'np.minimum(a, b)': 'np.minimum(a, b)',
    'np.maximum(x, 0.0)': 'np.maximum(x, 0.0)',
    'np.abs(x)': 'np.abs(x)',
    'np.sqrt(x)': 'np.sqrt(x)',
    'np.exp(x)': 'np.exp(x)',
    'np.where(m, x, y)': 'np.where(m, x, y)',
    'np.clip(x, 0, 1)': 'np.clip(x, 0.0, 1.0)',
    'x.sum()': 'x.sum()',
    'np.sum(x)': 'np.sum(x)',
    'x.max()': 'x.max()',
    'x.mean()': 'x.mean()',
    'M.sum(axis=0)': 'M.sum(axis=0)',
    'np.dot(x, y)': 'np.dot(x, y)',
    'M.T @ x8': 'M @ x8',
    'np.cumsum(a)': 'np.cumsum(a)',
    'np.minimum.accumulate(a)': 'np.minimum.accumulate(a)',
    'a[1:]': 'a[1:]',
    'a[::2]': 'a[::2]',
    'M[:, 3]': 'M[:, 3]',
    'M[2]': 'M[2]',
    'a[k]': 'a[k]',
    'x[m]': 'x[m]',
    'a[1:] = b[:-1]': 'a[1:] = b[:-1]',
    'x += y': 'x += y',
    'a.copy()': 'a.copy()',
    'x.reshape(-1, 2)': 'x.reshape(-1, 2)',
    'M.T': 'M.T',
    'x[:, None]': 'x[:, None]',
    'a.astype(float)': 'a.astype(np.float64)',
    'np.empty(n)': 'np.empty(n)',
    'np.empty(n, dtype=a.dtype)': 'np.empty(n, dtype=a.dtype)',
    'np.zeros(n)': 'np.zeros(n)',
    'np.ones((n, 8))': 'np.ones((n, 8))',
    'np.full(n, 2.0)': 'np.full(n, 2.0)',
    'np.zeros_like(x)': 'np.zeros_like(x)',
    'np.arange(n)': 'np.arange(n)',
    'np.linspace(0, 1, n)': 'np.linspace(0.0, 1.0, n)',
    'np.array([1.0, 2.0, 3.0])': 'np.array([1.0, 2.0, 3.0])',
    'np.asarray(x)': 'np.asarray(x)',
    'np.concatenate([[k], a])': 'np.concatenate([[k], a])',
    'np.concatenate([a, b])': 'np.concatenate([a, b])',
    'np.stack([x, y])': 'np.stack([x, y])',
    'np.any(m)': 'np.any(m)',
    'len(a), a.shape': 'len(a), a.shape',
    'float(x[k])': 'float(x[k])',
    'np.linalg.norm(x)': 'np.linalg.norm(x)',
    'np.arange(3, 10)[:, None] + 0.5': 'np.arange(3, 10)[:, None] + 0.5',
    'M[2:9, 1:6] |= M[2:9, 1:6] < 0.3': 'M[2:9, 1:6] += M[2:9, 1:6] < 0.3',
    'int(x[k])': 'int(x[k])',
    'x.item(k)': 'x.item(k)',
    'x.tolist()': 'x.tolist()',
    'np.isnan(x).any()': 'np.isnan(x).any()',
    'np.argmax(x)': 'np.argmax(x)',
    'np.sort(x)': 'np.sort(x)',
    'np.roll(x, 1)': 'np.roll(x, 1)',
    'np.mean(M, axis=1)': 'np.mean(M, axis=1)',
    'x.std()': 'x.std()',
    'np.outer(x8, x8)': 'np.outer(x8, x8)',
    'np.diff(x)': 'np.diff(x)',
    'x.T.copy()': 'x.T.copy()',
    'np.hypot(x, y)': 'np.hypot(x, y)',
}

CHILD = r'''
import json, sys, time
import numpy as np
n, loops, names = {n}, {loops}, {names!r}
cases = {cases!r}
a = np.arange(n); b = np.arange(n) + 1
x = np.arange(n) * 0.5 + 1.0; y = np.arange(n) * 0.25
M = np.ones((n, 8)) * 0.5; x8 = np.ones(8)
m = (np.arange(n) % 3) == 0
k = 3
out = {{}}
for name in names:
    src = "def run(L):\n    global a, x\n    for _ in range(L):\n        " + cases[name] + "\n"
    empty = "def run(L):\n    for _ in range(L):\n        pass\n"
    best = []
    for s in (src, empty):
        env = dict(globals())
        exec(s, env)
        env["run"](loops // 10)
        t = min(_timed(env["run"], loops) for _ in range(5))
        best.append(t)
    out[name] = (best[0] - best[1]) / loops
print(json.dumps(out))
'''

TIMER = r'''
def _timed(f, L):
    t0 = time.perf_counter()
    f(L)
    return time.perf_counter() - t0
'''


def child(arrvm, n, loops, names):
    # (the timer first: CHILD's body uses it)
    src = CHILD.format(n=n, loops=loops, names=names, cases=CASES)
    src = src.replace("out = {}\n", TIMER + "out = {}\n", 1)
    cmd = [sys.executable] + (['-m', 'arrvm', '-c', src] if arrvm else ['-c', src])
    r = subprocess.run(cmd, capture_output=True, text=True, env=dict(os.environ))
    if r.returncode != 0:
        sys.exit("child failed (%s):\n%s" % ('arrvm' if arrvm else 'numpy', r.stderr[-3000:]))
    return json.loads(r.stdout.strip().splitlines()[-1])


def main(argv):
    n, loops, names = 1000, 20000, []
    it = iter(argv)
    for a in it:
        if a == '--n':
            n = int(next(it))
        elif a == '--loops':
            loops = int(next(it))
        elif a in CASES:
            names.append(a)
        else:
            sys.exit("unknown argument or case: %r (cases: %s)" % (a, ', '.join(CASES)))
    names = names or list(CASES)
    np_t = child(False, n, loops, names)
    av_t = child(True, n, loops, names)
    rows = sorted(names, key=lambda s: -av_t[s] / max(np_t[s], 1e-12))
    print("# per call, n = %d, loops of %d, best of 5 less the empty loop; ratio = arrvm / NumPy" % (n, loops))
    print("%-30s %10s %10s %7s" % ("call", "numpy ns", "arrvm ns", "ratio"))
    for s in rows:
        print("%-30s %10.0f %10.0f %7.2f" % (s, np_t[s] * 1e9, av_t[s] * 1e9, av_t[s] / max(np_t[s], 1e-12)))
    import math
    g = math.exp(sum(math.log(max(av_t[s], 1e-12) / max(np_t[s], 1e-12)) for s in names) / len(names))
    print("geometric mean ratio %.2f over %d calls; %d slower than NumPy by more than 1.5x"
          % (g, len(names), sum(av_t[s] > 1.5 * np_t[s] for s in names)))
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
