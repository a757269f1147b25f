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


def test_assigning_big_ints_and_numpy_scalars_equals_numpy():
    """`a[i] = v` (an element, written at once) and `a[1:3] = v` (a view) for
    NumPy scalars of every integer and real dtype, and ints of 2^63 and more:
    NumPy 1.24's value, or its OverflowError (an int too large for a C long
    into int8-int64, uint8, uint16; a NumPy uint64 into a signed array)."""
    import warnings
    import numpy as np
    import arrvm
    values = [np.int8(-5), np.int16(-300), np.int32(-70000), np.int64(-2 ** 40), np.uint8(250),
              np.uint16(65000), np.uint32(4000000000), np.uint64(2 ** 64 - 1), np.uint64(7),
              np.float32(1.1), np.float64(-2.5), np.bool_(True), 2 ** 64 - 1, 2 ** 63, 300, -1]
    dtypes = (np.int64, np.int32, np.int8, np.uint64, np.uint32, np.uint16, np.uint8, np.float64,
              np.float32, np.bool_)
    checked = 0
    for dt in dtypes:
        for v in values:
            for key, settle in ((1, False), (1, True), ((1, 2), True), (slice(1, 3), False)):
                results = []
                for m in (np, arrvm):
                    a = m.zeros((3, 4) if isinstance(key, tuple) else 4, dtype=dt)
                    if settle:  # computed: an element key is written at once (no batch)
                        a.tolist()
                    try:
                        with warnings.catch_warnings(), np.errstate(all='ignore'):
                            warnings.simplefilter('ignore')
                            a[key] = v
                        results.append(np.asarray(a).tolist())
                    except OverflowError:
                        results.append('OverflowError')
                assert results[0] == results[1], (dt.__name__, repr(v), key, results)
                checked += 1
    assert checked == len(dtypes) * len(values) * 4
