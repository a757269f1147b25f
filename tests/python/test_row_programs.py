"""Reductions along the rows with their epilogues, written as NumPy users
write them (softmax with keepdims, `x / x.sum(axis=1)[:, None]`, a
standardization, an in-place normalization), under `python3 -m arrvm` on
the cpu, opencl and mpi (two ranks) backends: NumPy's values, and each function
one kernel a call (on mpi, a kernel a rank)
(fusion/row_nests.hpp: a row program), against two or more without row
fusion."""
import json
import os
import subprocess
import sys

import numpy as np
import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))

SCRIPT = r"""
import json, os, sys
import numpy as np

def softmax(x):
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)

def normalize(x):
    return x / x.sum(axis=1)[:, None]

def standardize(x):
    mu = x.mean(axis=1, keepdims=True)
    d = x - mu
    return d / np.sqrt((d * d).mean(axis=1, keepdims=True))

def normalize_in_place(x):
    y = x.copy()
    y /= np.abs(y).max(axis=1)[:, None]
    return y

rng = np.random.default_rng(0)
x = np.asarray(rng.random((300, 257)) + 0.5)  # positive: row sums far from 0
out = {}
for f in (softmax, normalize, standardize, normalize_in_place):
    y = f(x)
    np.asarray(y)  # compiled and cached: the second call is counted
    before = np.profile()['kernels']['launched'] if hasattr(np, 'profile') else 0
    y = f(x)
    values = np.asarray(y).tolist()
    after = np.profile()['kernels']['launched'] if hasattr(np, 'profile') else 0
    out[f.__name__] = {'values': values, 'kernels': after - before}
if os.environ.get('OMPI_COMM_WORLD_RANK', '0') == '0':  # (mpi: every rank has the same values)
    print(json.dumps(out))
"""


def run(under_arrvm, backend='cpu', **extra):
    env = dict(os.environ)
    env.setdefault('PYTHONPATH', os.path.join(ROOT, 'build', 'python'))
    env.update(ARRVM_BACKEND=backend, ARRVM_TIERED='off', ARRVM_EAGER='off', **extra)
    cmd = [sys.executable] + (['-m', 'arrvm'] if under_arrvm else []) + ['-c', SCRIPT]
    if backend == 'mpi':  # two ranks, each running its rows (rank 0 prints)
        env.setdefault('OMP_NUM_THREADS', '1')
        cmd = ['mpirun', '--oversubscribe', '--allow-run-as-root', '-np', '2'] + cmd
    p = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=600)
    assert p.returncode == 0, p.stderr
    return json.loads(p.stdout)


@pytest.mark.parametrize('backend', ['cpu', 'opencl', 'mpi'])
def test_epilogues_are_one_kernel_with_numpys_values(tmp_path, backend):
    want = run(False)
    fused = run(True, backend, ARRVM_CACHE_DIR=str(tmp_path))
    apart = run(True, backend, ARRVM_CACHE_DIR=str(tmp_path), ARRVM_PASSES='-row-fusion')
    for name, w in want.items():
        for got in (fused[name], apart[name]):
            np.testing.assert_allclose(np.array(got['values']), np.array(w['values']), rtol=1e-12, atol=1e-13)
        # x is copied in by the first call: the counted call is the function alone.
        assert fused[name]['kernels'] == 1, (name, fused[name]['kernels'])
        assert apart[name]['kernels'] >= 2, (name, apart[name]['kernels'])
