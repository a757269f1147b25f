"""Reading one element (`x[i]`, `y[i, j]`) of an array that nothing pending
touches reads its memory at once: NumPy's scalar of NumPy's type, no flush
(the profile's batch count does not move, its reads_direct does). Where the
pending batch writes the array, the read stays a lazy 0-d copy, and either
way the value is the one NumPy gives at that point of the program. On ref
and cpu (the host backends) and opencl (no direct reads: the lazy path)."""
import os
import subprocess
import sys
import textwrap

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))

CODE = textwrap.dedent('''
    import numpy as np, arrvm, os
    direct = os.environ['ARRVM_BACKEND'] != 'opencl'
    def counts():
        p = arrvm.profile()
        return p['batches'], p['transfers']['reads_direct']

    ref = {}
    for dt in ('bool', 'int8', 'int16', 'int32', 'int64', 'uint8', 'uint16', 'uint32', 'uint64',
               'float32', 'float64'):
        n = np.arange(-12, 12).reshape(4, 6).astype(dt)
        a = arrvm.asarray(n) + arrvm.asarray(n) * 0 if dt != 'bool' else arrvm.asarray(n) | False
        w = (n + n * 0) if dt != 'bool' else (n | False)
        arrvm.flush()
        b0, r0 = counts()
        for key in [(0, 0), (3, 5), (-1, -1), (2, -6), (1, 3)]:
            got, want = a[key], w[key]
            assert type(got) is type(want) if direct else got.shape == (), (dt, key, type(got), type(want))
            assert got == want and np.asarray(got).dtype == want.dtype, (dt, key, got, want)
        row = a[2]
        assert row[4] == w[2][4]
        b1, r1 = counts()
        if direct:
            assert b1 == b0 and r1 - r0 == 6, (dt, b0, b1, r0, r1)   # no flush, six direct reads
        else:
            assert r1 == r0
    # Out of range: NumPy's IndexError, from the general path.
    a = arrvm.arange(6.0)
    for bad in (6, -7, (0, 0)):
        try:
            a[bad]
            raise AssertionError(bad)
        except IndexError:
            pass
    # A read is a value: a later write does not change it; a pending write is seen.
    x = arrvm.arange(5.0)
    arrvm.flush()
    v = x[1]
    x[1] = 7.0                  # pending
    assert v == 1.0
    w = x[1]                    # the batch writes x: lazy, then 7
    assert float(w) == 7.0
    x[2], x[3] = x[3], x[2]     # the swap
    assert np.asarray(x).tolist() == [0.0, 7.0, 3.0, 2.0, 4.0]
    # Views with strides and offsets, and a transposed one.
    m = arrvm.arange(30.0).reshape(5, 6) * 2
    arrvm.flush()
    mt = m.T[::2]
    nm = (np.arange(30.0).reshape(5, 6) * 2).T[::2]
    for i in range(mt.shape[0]):
        for j in range(mt.shape[1]):
            assert mt[i, j] == nm[i, j] and mt[-i - 1, -j - 1] == nm[-i - 1, -j - 1]
    # A never-written base reads as NumPy's zeros.
    z = arrvm.zeros((3, 3))
    assert z[1, 2] == 0.0
    # Scalars from direct reads mix with arrays as NumPy's do.
    s = m[1, 1] * arrvm.ones(3)
    assert isinstance(s, arrvm.ndarray) and np.asarray(s).tolist() == [14.0] * 3
    print('ok')
''')


def run(backend, tmp_path):
    e = dict(os.environ)
    e.setdefault('PYTHONPATH', os.path.join(ROOT, 'build', 'python'))
    e['ARRVM_BACKEND'] = backend
    e['ARRVM_CACHE_DIR'] = str(tmp_path / 'cache')
    return subprocess.run([sys.executable, '-c', CODE], env=e, capture_output=True, text=True, timeout=600)


def test_element_reads_host_backends(tmp_path):
    for backend in ('ref', 'cpu'):
        p = run(backend, tmp_path)
        assert p.returncode == 0 and 'ok' in p.stdout, (backend, p.stdout + p.stderr)


def test_element_reads_opencl(tmp_path):
    p = run('opencl', tmp_path)
    assert p.returncode == 0 and 'ok' in p.stdout, p.stdout + p.stderr


def test_element_read_of_a_poisoned_array_raises(tmp_path):
    code = textwrap.dedent('''
        import numpy, arrvm
        host = arrvm.array(numpy.array([1.0, 2.0, 3.0]))  # from the host: no kernel
        x = host * 2 + 1                                    # needs a kernel that fails to compile
        arrvm.flush()
        for attempt in range(2):                            # never the zeros in its memory
            try:
                print('value', float(x[0]))
            except RuntimeError as e:
                print('RuntimeError')
        print('host', host[1])
    ''')
    e = dict(os.environ)
    e.setdefault('PYTHONPATH', os.path.join(ROOT, 'build', 'python'))
    e.update(ARRVM_BACKEND='cpu', ARRVM_CC='false', ARRVM_LOG='off', ARRVM_CACHE_DIR=str(tmp_path / 'cache'),
             ARRVM_TIERED='off', ARRVM_EAGER='off')  # (tiered or eager, it would run interpreted: no poison)
    p = subprocess.run([sys.executable, '-c', code], env=e, capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stdout + p.stderr
    assert p.stdout.count('RuntimeError') == 2 and 'value' not in p.stdout, p.stdout
    assert 'host 2.0' in p.stdout, p.stdout


def test_iteration_gives_numpys_scalars_and_sees_writes():
    """`for x in a`: NumPy's scalars of a 1-D array (pending work run once),
    views of a 2-D one, writes made during the loop seen, a 0-d array refused."""
    import numpy as np
    import arrvm
    a, n = arrvm.arange(6) * 3, np.arange(6) * 3
    got, want = list(a), list(n)
    assert got == want and [type(x) for x in got] == [type(x) for x in want]
    z = arrvm.array([1 + 2j, -1j]) * 2
    assert list(z) == list(np.array([1 + 2j, -1j]) * 2) and type(list(z)[0]) is np.complex128
    m = arrvm.arange(6.0).reshape(2, 3)
    rows = list(m)
    assert [r.shape for r in rows] == [(3,), (3,)] and isinstance(rows[0], arrvm.ndarray)
    assert np.asarray(rows[1]).tolist() == [3.0, 4.0, 5.0]
    for xp in (np, arrvm):
        b = xp.arange(4.0)
        seen = []
        for x in b:
            seen.append(float(x))
            b[3] = 100.0
        assert seen == [0.0, 1.0, 2.0, 100.0]
    try:
        iter(arrvm.array(3.0))
        raise AssertionError("a 0-d array iterated")
    except TypeError as e:
        assert '0-d' in str(e)
    assert list(arrvm.zeros(0)) == []


def test_iteration_reads_runs_at_once_and_sees_every_write():
    """`for x in a` reads a run of elements at once and takes each step's
    element from it while nothing writes the base: a loop that writes the
    array it iterates (an instruction on a slice, an element, another view of
    the base, memory adopted from NumPy and written there) sees each write
    at the next step, across runs, as NumPy's loop does; strided, reversed
    and broadcast views give NumPy's elements."""
    import numpy as np
    import arrvm

    def run(xp, adopt=False):
        out = []
        b = xp.arange(200.0) * 2
        for i, x in enumerate(b):              # an instruction on a slice, and an element
            out.append(float(x))
            if i % 37 == 5:
                b[i + 1:] += 1.0
            if i == 70:
                b[150] = -7.0
        c = xp.arange(150) % 13
        r = c[::-1]
        for i, x in enumerate(c):              # another view of the same base
            out.append(int(x))
            if i < 149:
                r[148 - i] = i                  # (that is c[i + 1])
        for x in (xp.arange(100) * 3)[::-3]:    # strided, reversed
            out.append(int(x))
        for x in xp.broadcast_to(xp.arange(1.0, 2.0), (70,)):  # a step of 0
            out.append(float(x))
        if adopt:
            n = np.arange(130.0)
            a = arrvm.adopt(n)
            for i, x in enumerate(a):          # written behind the VM's back
                out.append(float(x))
                n[i + 1 if i < 129 else 0] = -1.0
        else:
            n = np.arange(130.0)
            for i, x in enumerate(n):
                out.append(float(x))
                n[i + 1 if i < 129 else 0] = -1.0
        return out

    assert run(arrvm, adopt=True) == run(np)


def test_number_conversions_of_0d_arrays_read_at_once():
    """float(), int(), operator.index() and bool() of a 0-d array (a lazy
    scalar: x[i] read while x was pending, a reduction) give NumPy's values,
    whether the batch still writes it (synced) or not (read at once, no
    flush); NumPy's errors for the rest."""
    import operator
    import numpy as np
    import arrvm
    for dt in ('bool', 'int8', 'uint16', 'int64', 'uint64', 'float32', 'float64'):
        n = (np.arange(-3, 30000) % 7).astype(dt)
        a = arrvm.asarray(n) | False if dt == 'bool' else arrvm.asarray(n) * 1
        for i in (0, 4, 5, 8):
            lazy = a[i]                     # a pending: a 0-d arrvm array
            assert isinstance(lazy, arrvm.ndarray) and lazy.shape == ()
            want = n[i]
            assert float(lazy) == float(want) and bool(lazy) == bool(want)  # synced here
            before = arrvm.profile()['batches']
            assert int(lazy) == int(want)                                   # read at once
            if dt[0] in 'iub':
                assert operator.index(lazy) == operator.index(want) if dt != 'bool' else int(want)
                assert [10, 11, 12, 13, 14, 15, 16][lazy] == [10, 11, 12, 13, 14, 15, 16][int(want)]
            else:
                try:
                    operator.index(lazy)
                    raise AssertionError(dt)
                except TypeError:
                    pass
            assert arrvm.profile()['batches'] == before, dt
            a = a + (a * 0)                 # pending again for the next element
    s = arrvm.arange(40000.0)[:0].sum()     # a reduction over nothing: its identity
    assert float(s) == 0.0 and int(s) == 0 and not bool(s)
    for bad in (arrvm.arange(3.0), arrvm.arange(0.0)):
        for conv in (float, int):
            try:
                conv(bad)
                raise AssertionError((conv, bad.shape))
            except TypeError:
                pass
    assert complex(arrvm.asarray(np.array([1 + 2j])).sum()) == 1 + 2j


def test_short_dot_of_ready_vectors_is_read_at_once():
    """`u @ v` of two short 1-D vectors nothing pending writes is computed at
    once from their memory (no flush, no instruction): NumPy's scalar type,
    the value multiply-then-sum gives (the lazy path's: bit for bit for
    integers, within rounding for floats, as NumPy's), 64-bit integers
    wrapping as NumPy's; pending vectors,
    strided views and long ones take the instruction path, same values."""
    import numpy as np
    import arrvm
    rng = np.random.default_rng(7)
    for dt in ('float64', 'int64', 'uint64', 'float32'):
        for n in (1, 2, 7, 64, 4096, 4097, 5000):
            if dt == 'float64':
                un, vn = rng.standard_normal(n), rng.standard_normal(n)
            else:
                un, vn = rng.integers(0, 1000, n).astype(dt), rng.integers(0, 1000, n).astype(dt)
            u, v = arrvm.asarray(un), arrvm.asarray(vn)
            arrvm.flush()
            before = arrvm.profile()['instructions']
            got = u @ v
            issued = arrvm.profile()['instructions'] - before
            pending = arrvm.ones(100000) * 2  # (a batch open: u * 1 waits in it)
            lazy = (u * 1) @ v              # u pending: multiply and sum, then read
            del pending
            assert isinstance(got, np.generic) and got.dtype == np.dtype(dt), (dt, n, type(got))
            assert (issued == 0) == (dt != 'float32' and n <= 4096), (dt, n, issued)
            assert got == lazy if dt[0] in 'iu' else np.isclose(got, lazy, rtol=1e-12), (dt, n, got, lazy)
            assert np.isclose(got, un @ vn, rtol=1e-12 if dt == 'float64' else 1e-6), (dt, n)
    big = arrvm.asarray(np.array([2**62, 3], dtype=np.int64))
    assert big @ big == np.array([2**62, 3], dtype=np.int64) @ np.array([2**62, 3], dtype=np.int64)
    mn = np.arange(12.0).reshape(3, 4)
    m = arrvm.asarray(mn)
    arrvm.flush()
    before = arrvm.profile()['instructions']
    assert m[:, 1] @ m[::-1, 2] == mn[:, 1] @ mn[::-1, 2]   # columns, one reversed: strided reads
    assert arrvm.profile()['instructions'] == before
    assert np.isnan(arrvm.asarray(np.array([np.nan, 1.0])) @ arrvm.ones(2))


def test_short_gather_of_ready_arrays_is_read_at_once():
    """`x[idx]` of a short int64 index whose picks lie close together in a
    1-D x (a CSR row's columns; x at any step) is read from memory at once,
    with no instruction issued; wide spans, pending operands and other
    index dtypes take the gather instruction; all give NumPy's values, and
    an index out of bounds NumPy's IndexError."""
    import numpy as np
    import arrvm
    xn = np.linspace(-1.0, 1.0, 5000)
    for dt in ('float64', 'int32', 'uint8', 'bool'):
        x = arrvm.asarray(xn > 0 if dt == 'bool' else (xn * 100).astype(dt))
        want_x = xn > 0 if dt == 'bool' else (xn * 100).astype(dt)
        cases = [([3, 1, 2], True), ([-1, -7, 4990], True), ([0, 4999], False),
                 (list(range(100, 300, 3)), True), ([7] * 600, False)]
        for ix, direct in cases:
            idx = arrvm.asarray(np.array(ix, dtype=np.int64))
            arrvm.flush()
            before = arrvm.profile()['instructions']
            got = x[idx]
            issued = arrvm.profile()['instructions'] - before
            assert (issued == 0) == direct, (dt, ix[:4], issued)
            assert got.dtype == want_x.dtype and np.array_equal(np.asarray(got), want_x[np.array(ix)]), (dt, ix[:4])
            del got  # (its free is an instruction: not inside the next count)
    x = arrvm.asarray(xn.copy())
    idx = arrvm.asarray(np.array([5, 6], dtype=np.int64))
    g = x[idx]
    x[5] = 42.0
    assert np.asarray(g).tolist() == xn[[5, 6]].tolist()
    xm = xn.copy()
    xm[5] = 42.0
    assert np.array_equal(np.asarray((x * 2)[idx]), (xm * 2)[[5, 6]])  # x * 2 pending: the instruction
    xs = x[::-3]
    arrvm.flush()
    before = arrvm.profile()['instructions']
    gs = xs[idx]                                                         # a strided x: read at its step
    assert arrvm.profile()['instructions'] == before
    assert np.array_equal(np.asarray(gs), xm[::-3][[5, 6]])
    try:
        x[arrvm.asarray(np.array([1, 5000], dtype=np.int64))]
        raise AssertionError("out of bounds")
    except IndexError as e:
        assert '5000' in str(e)


def test_indexing_through_the_type_slots_is_numpys():
    # x[key] and x[key] = v go through the type's slots into C++ for every
    # basic key (pybind11's method dispatch only for `del`): an integer key
    # with an array value, a row of a pending array, a 0-d value, a key whose
    # __index__ itself indexes an array (a call inside a call), and the
    # errors NumPy raises.
    import numpy as np
    import arrvm
    import pytest

    class Nested:
        def __init__(self, arr, i):
            self.arr, self.i = arr, i

        def __index__(self):
            return int(self.arr[self.i, 0:1][0])  # (indexes inside the outer call)

    for pending in (False, True):
        n = np.arange(24.0).reshape(4, 6)
        a = arrvm.asarray(n).copy()
        if pending:
            a += 0  # (a pending write: element reads and writes stay lazy)
        else:
            arrvm.flush()
        counts_n, counts_a = np.zeros(5), arrvm.zeros(5)
        for t in range(5):
            counts_n[t] = n[t % 4].sum()
            counts_a[t] = a[t % 4].sum()  # (an integer key, a 0-d array value)
        n[2] = n[1] * 2
        a[2] = a[1] * 2  # (a row by an integer key)
        n[1, 2:4] = 7
        a[1, 2:4] = 7
        n[3, ...] = n[0]
        a[3, ...] = a[0]
        idx = arrvm.asarray(np.array([[1.0], [3.0], [0.0], [2.0]]))
        assert np.array_equal(np.asarray(a[Nested(idx, 1), 1:]), n[3, 1:])
        a[Nested(idx, 0), Nested(idx, 3)] = -1.0
        n[1, 2] = -1.0
        np.testing.assert_array_equal(np.asarray(a), n)
        np.testing.assert_array_equal(np.asarray(counts_a), counts_n)
        np.testing.assert_array_equal(np.asarray(a[1]), n[1])
        assert a[1, 2] == n[1, 2] and type(a[1, 2]) is type(n[1, 2])
        with pytest.raises(IndexError):
            a[4] = 1.0
        with pytest.raises(IndexError):
            a[0, 9]
        with pytest.raises(ValueError):
            a[0] = arrvm.ones(5)
        with pytest.raises(ValueError, match='cannot delete array elements'):
            del a[0]
        np.testing.assert_array_equal(np.asarray(a), n)  # (nothing changed by the errors)


def test_arrays_made_in_c_are_ordinary_python_objects():
    # Results of the C paths (operators, indexing) are not entered in
    # pybind11's table of instances: weak references, identity and
    # deallocation still behave as for any Python object.
    import gc
    import weakref
    import numpy as np
    import arrvm
    x = arrvm.arange(12.0).reshape(3, 4)
    for make in (lambda: x * 2, lambda: x[1:], lambda: x[1], lambda: x.copy(), lambda: -x):
        a = make()
        b = make()
        assert a is not b and a is not x
        r = weakref.ref(a)
        assert r() is a
        del a
        gc.collect()
        assert r() is None
        np.testing.assert_array_equal(np.asarray(b), np.asarray(make()))
    ys = [x + k for k in range(1000)]
    assert float(ys[999][2, 3]) == 11.0 + 999
    del ys
    gc.collect()
