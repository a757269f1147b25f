"""What a Python loop over rows does per row, against the installed NumPy:
`values[lo:hi] @ x[cols[lo:hi]]` (vector @ vector, a gather by an index
array), `y[r] = ...`, and the same operators on every dtype, pending
operands, bad indices and shapes (value, dtype, type, exception class)."""
import numpy as np
import pytest

import arrvm

DTYPES = ['bool', 'int8', 'int32', 'int64', 'uint8', 'uint64', 'float32', 'float64']


def outcome(f):
    try:
        r = f()
    except Exception as e:  # noqa: BLE001 - the class is what is compared
        return ('raises', type(e).__name__)
    if isinstance(r, np.generic):
        return ('scalar', type(r).__name__, r.item())
    r = np.asarray(r)
    return ('array', r.dtype.name, r.shape, r.tolist())


@pytest.mark.parametrize('dt', DTYPES)
def test_vector_at_vector_is_numpys(dt):
    a, b = np.arange(1, 6).astype(dt), np.arange(3, 8).astype(dt)
    A, B = arrvm.array(a), arrvm.array(b)
    for f in (lambda x, y: x @ y, lambda x, y: x[1:4] @ y[:3], lambda x, y: np.matmul(x, y)):
        assert outcome(lambda: f(A, B)) == outcome(lambda: f(a, b))
    # NumPy on one side, arrvm on the other; mismatched lengths; 2-D @ 1-D.
    assert outcome(lambda: a @ B) == outcome(lambda: a @ b)
    assert outcome(lambda: A @ b) == outcome(lambda: a @ b)
    assert outcome(lambda: A @ B[:3])[0] == outcome(lambda: a @ b[:3])[0] == 'raises'
    m, M = np.arange(10).astype(dt).reshape(2, 5), arrvm.array(np.arange(10).astype(dt).reshape(2, 5))
    assert outcome(lambda: M @ B) == outcome(lambda: m @ b)


def test_vector_at_vector_of_pending_work_stays_lazy():
    x = arrvm.ones(100000) * 2.0  # large: batched, pending
    r = x @ x
    assert isinstance(r, arrvm.ndarray) and r.shape == () and float(r) == 400000.0
    s = arrvm.ones(5) @ arrvm.ones(5)  # eager: NumPy's scalar
    assert type(s) is np.float64 and s == 5.0


def test_gather_by_an_index_array_is_numpys():
    x = np.linspace(-1.0, 1.0, 50)
    X = arrvm.array(x)
    cols = np.array([3, 0, 49, 7, 7])
    C = arrvm.array(cols)
    assert outcome(lambda: X[C]) == outcome(lambda: x[cols])
    assert outcome(lambda: X[C[1:3]]) == outcome(lambda: x[cols[1:3]])
    for bad in ([3, 50], [-51, 0], [-1, -50]):
        B, b = arrvm.array(np.array(bad)), np.array(bad)
        assert outcome(lambda: X[B]) == outcome(lambda: x[b])
    pending = C * 1  # an index array of pending work
    assert outcome(lambda: X[pending]) == outcome(lambda: x[cols])
    assert outcome(lambda: X[C.astype(np.int32)]) == outcome(lambda: x[cols.astype(np.int32)])


def test_a_gather_by_indices_read_in_range_is_one_instruction():
    # The indices were read and found in [0, n) (NumPy's check): the gather
    # alone, with no wrapping of negative ones; negative ones are wrapped.
    # (With X pending: a ready X is read at once, no instruction at all.)
    want = np.linspace(-1.0, 1.0, 50)
    X = arrvm.linspace(-1.0, 1.0, 50)
    C = arrvm.array(np.array([3, 0, 49, 7, 7]))
    N = arrvm.array(np.array([-1, 0, -50]))
    float(X.sum()), int(C.sum()), int(N.sum())
    before = arrvm.profile()['instructions']
    g0, h0 = X[C], X[N]
    assert arrvm.profile()['instructions'] == before  # read at once (tests/python/test_reads.py)
    big = arrvm.ones(100000) * 2                      # a batch open: X * 1 waits in it
    Y = X * 1
    before = arrvm.profile()['instructions']
    g = Y[C]
    assert arrvm.profile()['instructions'] - before == 1
    before = arrvm.profile()['instructions']
    h = Y[N]
    assert arrvm.profile()['instructions'] - before > 1  # (the wrap: less, add, where)
    for got, ix in ((g0, [3, 0, 49, 7, 7]), (g, [3, 0, 49, 7, 7]), (h0, [-1, 0, -50]), (h, [-1, 0, -50])):
        np.testing.assert_array_equal(np.asarray(got), want[ix])
    del big


def test_a_csr_row_loop_equals_numpy():
    rng = np.random.default_rng(3)
    n, per = 60, 4
    indices = rng.integers(0, n, n * per)
    values = rng.standard_normal(n * per)
    indptr = np.arange(0, n * per + 1, per)
    x = rng.standard_normal(n)

    def run(xp):
        v, i, p, xx = xp.asarray(values), xp.asarray(indices), xp.asarray(indptr), xp.asarray(x)
        y = xp.zeros(n)
        for r in range(n):
            lo, hi = p[r], p[r + 1]
            y[r] = v[lo:hi] @ xx[i[lo:hi]]
        return np.asarray(y)
    np.testing.assert_allclose(run(arrvm), run(np), rtol=1e-14, atol=0)


@pytest.mark.parametrize('dt', ['bool', 'int64', 'float32', 'float64'])
def test_linalg_norm_default_is_numpys(dt):
    # Gram-Schmidt's `np.linalg.norm(Q[:, k])` per column: computed in
    # arrvm (it synced and ran in NumPy), NumPy's values, dtypes and types.
    import warnings
    for x in (np.arange(10).astype(dt), np.arange(12).reshape(3, 4).astype(dt)):
        X = arrvm.array(x)
        for kw in ({}, {'axis': 0}, {'axis': -1, 'keepdims': True}, {'axis': (0,)}):
            with warnings.catch_warnings():
                warnings.simplefilter('error', arrvm.ArrvmFallbackWarning)
                got = np.linalg.norm(X, **kw)
            want = np.linalg.norm(x, **kw)
            assert np.asarray(got).dtype == np.asarray(want).dtype and np.asarray(got).shape == np.shape(want)
            np.testing.assert_allclose(np.asarray(got), want, rtol=1e-6 if dt == 'float32' else 1e-14)
    # Other orders still run in NumPy, with its answer.
    with warnings.catch_warnings():
        warnings.simplefilter('ignore', arrvm.ArrvmFallbackWarning)
        assert np.linalg.norm(arrvm.arange(5.0), ord=1) == np.linalg.norm(np.arange(5.0), ord=1)


GRAM_SCHMIDT = '''
import sys, numpy, arrvm as np
m, n, form = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
i = np.arange(m)[:, None]; j = np.arange(n)[None, :]
A = np.cos(i * 0.013 * (j + 1)) + 0.01 * (i == j)
A0 = numpy.asarray(A).copy()
Q = A.copy(); R = np.zeros((n, n))
np.flush()
before = np.profile()['kernels']['compiled']
for k in range(n):
    if form == 'issue':   # the issue's loop, in place
        Q[:, k] /= np.linalg.norm(Q[:, k])
        for c in range(k + 1, n):
            Q[:, c] -= Q[:, k] * np.dot(Q[:, k], Q[:, c])
    else:                 # bench/corpus/gram_schmidt.py's, with R
        R[k, k] = np.linalg.norm(Q[:, k])
        Q[:, k] = Q[:, k] / R[k, k]
        for c in range(k + 1, n):
            R[k, c] = np.dot(Q[:, k], Q[:, c])
            Q[:, c] = Q[:, c] - Q[:, k] * R[k, c]
np.flush()
compiled = np.profile()['kernels']['compiled'] - before
q = np.asarray(Q)
r = q.T @ A0 if form == 'issue' else np.asarray(R)
print(compiled, numpy.abs(q @ r - A0).max(), numpy.abs(q.T @ q - numpy.eye(n)).max())
'''


@pytest.mark.parametrize('form,eager,most', [('issue', 'on', 8), ('corpus', 'on', 10), ('issue', 'off', 8),
                                             ('corpus', 'off', 10)])
def test_gram_schmidt_loop_compiles_the_same_few_kernels_whatever_n(tmp_path, form, eager, most):
    """Gram-Schmidt written the ordinary way: its loop's lanes roll up (the
    reroll pass), so the loop compiles the same few kernels at every n (eager
    off, or columns too long for the eager path: every column operation is
    batched): at most 8 for the issue's in-place loop, 10 for the corpus's
    with R; Q R = A and Q orthonormal. (From n = 10: below, the first step
    has at most 8 lanes, and over 1024 rows and more the cpu backend
    compiles a form per short innermost extent, one per lane count. With
    600 rows the rolled kernels' work crosses the threshold for threads as
    the lanes shrink: the serial launches run the parallel form on one
    thread, not a serial form of their own.)"""
    import subprocess, sys, os
    counts = []
    m = 600 if eager == 'off' else 20000
    for n in (12, 20, 44):
        e = dict(os.environ, ARRVM_EAGER=eager, ARRVM_TIERED='off', ARRVM_CACHE_DIR=str(tmp_path / str(n)))
        p = subprocess.run([sys.executable, '-c', GRAM_SCHMIDT, str(m), str(n), form], env=e, capture_output=True,
                           text=True, timeout=600)
        assert p.returncode == 0, p.stderr
        compiled, residual, orthogonality = p.stdout.split()
        assert float(residual) < 1e-9 and float(orthogonality) < 1e-9, p.stdout
        counts.append(int(compiled))
    assert counts[0] == counts[1] == counts[2] and counts[0] <= most, counts
