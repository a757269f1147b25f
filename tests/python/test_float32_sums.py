"""float32 sums: on every backend and thread count, a float32
add-reduce of ten million elements is at least as accurate as NumPy's
pairwise sum of the same data (arrvm sums in float64 and rounds once:
vm/opcode.hpp accumulator_dtype), and the result's dtype is NumPy's."""
import json
import math
import os
import subprocess
import sys

import numpy
import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))

CHILD = r'''
import json, sys
import numpy
import arrvm
rng = numpy.random.default_rng(7)
data = {
    'tenth': numpy.full(10**7, 0.1, numpy.float32),
    'ones': numpy.ones(3 * 10**7, numpy.float32),
    'uniform': rng.random(10**7, dtype=numpy.float32),
    'signed': (rng.standard_normal(10**7) * 1e3).astype(numpy.float32),
}
out = {}
for name, x in data.items():
    a = arrvm.array(x)
    s = a.sum()
    out[name] = [float(s), str(s.dtype), float(a.mean()), str(a.mean().dtype), float((a * 2).sum())]
rows = arrvm.array(data['uniform'].reshape(1000, 10**4))
cols = arrvm.array(data['uniform'].reshape(10**5, 100))
out['rows'] = arrvm.to_numpy(rows.sum(axis=1)).astype(float).tolist()
out['cols'] = arrvm.to_numpy(cols.sum(axis=0)).astype(float).tolist()
print(json.dumps(out))
'''


def child(backend, threads):
    env = dict(os.environ, ARRVM_BACKEND=backend)
    env.setdefault('PYTHONPATH', os.path.join(ROOT, 'build', 'python'))
    if threads:
        env['OMP_NUM_THREADS'] = str(threads)
    p = subprocess.run([sys.executable, '-c', CHILD], env=env, capture_output=True, text=True, timeout=900)
    assert p.returncode == 0, p.stderr
    return json.loads(p.stdout.splitlines()[-1])


def at_least_as_accurate(got, numpy_value, exact):
    """|got - exact| no more than NumPy's error, or than half an ulp of the
    float32 result (the correctly rounded sum may still be off by that)."""
    half_ulp = float(numpy.spacing(numpy.float32(abs(exact)))) / 2
    return abs(got - exact) <= max(abs(float(numpy_value) - exact), half_ulp) * (1 + 1e-12)


CASES = [('ref', None), ('cpu', 1), ('cpu', 2), ('opencl', None)]


@pytest.mark.parametrize('backend,threads', CASES)
def test_float32_sums_within_numpy_error(backend, threads):
    if backend == 'opencl' and os.environ.get('ARRVM_TEST_OPENCL', '1') == '0':
        pytest.skip('ARRVM_TEST_OPENCL=0')
    got = child(backend, threads)
    rng = numpy.random.default_rng(7)
    data = {
        'tenth': numpy.full(10**7, 0.1, numpy.float32),
        'ones': numpy.ones(3 * 10**7, numpy.float32),
        'uniform': rng.random(10**7, dtype=numpy.float32),
        'signed': (rng.standard_normal(10**7) * 1e3).astype(numpy.float32),
    }
    for name, x in data.items():
        total, dtype, mean, mean_dtype, twice = got[name]
        exact = math.fsum(x.astype(float))
        assert dtype == 'float32' and mean_dtype == 'float32', (name, dtype, mean_dtype)
        assert at_least_as_accurate(total, x.sum(), exact), (name, total, float(x.sum()), exact)
        assert at_least_as_accurate(mean, x.mean(), exact / x.size), (name, mean, float(x.mean()))
        assert at_least_as_accurate(twice, (x * 2).sum(), 2 * exact), (name, twice, float((x * 2).sum()))
    u = data['uniform']
    for name, m, axis in (('rows', u.reshape(1000, 10**4), 1), ('cols', u.reshape(10**5, 100), 0)):
        want = m.sum(axis=axis)
        exact = [math.fsum(v) for v in (m.astype(float) if axis == 1 else m.astype(float).T)]
        bad = [i for i, (g, w, e) in enumerate(zip(got[name], want, exact)) if not at_least_as_accurate(g, w, e)]
        assert not bad, (name, bad[:5])
    # The one-thread and two-thread cpu results, and ref's, are the same numbers.
    if backend == 'cpu' and threads == 2:
        assert got == child('ref', None)
