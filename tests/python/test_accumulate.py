"""ufunc.accumulate of add, multiply, minimum and maximum (cumsum, cumprod,
and the running minimum and maximum: minimum_accumulate and
maximum_accumulate in the bytecode) against NumPy, on every backend, for
small arrays (the eager path) and large ones (batched, compiled), along
each axis, NaN carried on as NumPy carries it; no fallback to NumPy."""
import json
import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

PROGRAM = r'''
import json, warnings
import numpy, arrvm
warnings.simplefilter('error', arrvm.ArrvmFallbackWarning)
bad = []
rng = numpy.random.default_rng(7)
for n in (7, 50000):
    ints = rng.integers(-1000, 1000, n)
    floats = rng.standard_normal(n)
    floats[n // 3] = numpy.nan
    grid = rng.standard_normal((n // 100 + 2, 100)).astype(numpy.float32)
    for name in ('add', 'multiply', 'minimum', 'maximum'):
        for label, a, axis in (('int64', ints, 0), ('int16', ints.astype(numpy.int16), 0),
                               ('float64 nan', floats, 0), ('float32 axis 0', grid, 0),
                               ('float32 axis 1', grid, 1)):
            if name == 'multiply' and label.startswith('int'):
                a = a % 3 - 1  # (products stay small)
            want = getattr(numpy, name).accumulate(a, axis=axis)
            got = numpy.asarray(getattr(arrvm, name).accumulate(arrvm.array(a), axis=axis))
            tol = 1e-4 if a.dtype == numpy.float32 and name in ('add', 'multiply') else 0
            if got.dtype != want.dtype or got.shape != want.shape or not numpy.allclose(
                    got, want, rtol=tol, atol=tol, equal_nan=True):
                bad.append([n, name, label, str(got.dtype), str(want.dtype)])
print(json.dumps(bad))
'''


@pytest.mark.parametrize('backend', ['ref', 'cpu', 'opencl'])
def test_accumulate_equals_numpy(backend):
    if backend == 'opencl' and os.environ.get('ARRVM_TEST_OPENCL', '1') == '0':
        pytest.skip('ARRVM_TEST_OPENCL=0')
    env = dict(os.environ, ARRVM_BACKEND=backend)
    env.setdefault('PYTHONPATH', os.path.join(ROOT, 'build', 'python'))
    p = subprocess.run([sys.executable, '-c', PROGRAM], env=env, capture_output=True, text=True, timeout=900)
    assert p.returncode == 0, p.stderr
    assert json.loads(p.stdout.splitlines()[-1]) == []
