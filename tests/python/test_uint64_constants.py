"""A Python int or NumPy uint64 constant above 2^63 (hash constants such as
0x9E3779B97F4A7C15) is a uint64 operand, as NumPy takes it: with a uint64
array in place and out of place, and with an int64 array NumPy's promotion
(float64). Values and dtypes against the installed NumPy."""
import os
import subprocess
import sys
import textwrap

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def test_uint64_constants_equal_numpy(tmp_path):
    code = textwrap.dedent('''
        import numpy as np, arrvm
        K = 0x9E3779B97F4A7C15
        cases = [
            lambda m: m.arange(1, 6, dtype=m.uint64) * m.uint64(K),
            lambda m: m.arange(1, 6, dtype=m.uint64) * K,
            lambda m: (m.arange(1, 6, dtype=m.uint64) ^ m.uint64(K)) >> m.uint64(7),
            lambda m: m.arange(1, 6, dtype=m.uint64) + 2 ** 63,
            lambda m: m.arange(1, 6) + 2 ** 63,                    # int64 array: float64
            lambda m: m.arange(1, 6, dtype=m.uint64) == m.uint64(2 ** 64 - 1),
            lambda m: m.arange(1, 6, dtype=m.uint64) < 2 ** 64 - 1,
        ]
        for i, f in enumerate(cases):
            want = f(np)
            got = f(arrvm)
            assert got.dtype == want.dtype, (i, got.dtype, want.dtype)
            assert np.asarray(got).tolist() == want.tolist(), (i, np.asarray(got), want)
        z = arrvm.arange(1, 4, dtype=np.uint64)
        z *= np.uint64(K)
        zn = np.arange(1, 4, dtype=np.uint64)
        zn *= np.uint64(K)
        assert np.asarray(z).tolist() == zn.tolist()
        print('ok')
    ''')
    for backend in ('ref', 'cpu'):
        e = dict(os.environ)
        e.setdefault('PYTHONPATH', os.path.join(ROOT, 'build', 'python'))
        e['ARRVM_BACKEND'] = backend
        e['ARRVM_CACHE_DIR'] = str(tmp_path / 'cache')
        p = subprocess.run([sys.executable, '-c', code], env=e, capture_output=True, text=True, timeout=600)
        assert p.returncode == 0 and 'ok' in p.stdout, (backend, p.stdout + p.stderr)
