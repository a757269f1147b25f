"""NumPy's scalars and what NumPy writes in place, under arrvm: x[i] is a
value (a lazy 0-d copy) that hashes, rounds and sizes as NumPy's scalar
does; a fallback's writes into an argument, ufunc.at and a.flat[k] = v reach
the arrvm array; a fallback's warning names the function as the user spells
it and points at the user's line; `v in a` and a.flags answer as NumPy's."""
import warnings

import numpy as np
import pytest

import arrvm
from test_core import same


def test_ufunc_at_reduceat_and_attributes():
    # ufunc.at updates in place, unbuffered (repeated indices accumulate),
    # through arrvm views too; reduceat and the plain attributes are NumPy's.
    idx = [0, 0, 1, 4, 4, 4]
    a, A = np.zeros(6), arrvm.zeros(6)
    with warnings.catch_warnings():
        warnings.simplefilter('ignore', arrvm.ArrvmFallbackWarning)
        np.add.at(a, idx, 1.5)
        assert arrvm.add.at(A, idx, 1.5) is None
        same(A, a)
        A2 = arrvm.zeros(6)
        np.add.at(A2, idx, 1.5)  # NumPy's ufunc on an arrvm array: __array_ufunc__
        same(A2, a)
        b, B = np.arange(12.0).reshape(3, 4), arrvm.arange(12.0).reshape(3, 4)
        np.subtract.at(b[1:], (slice(None), [0, 0, 3]), np.array([1.0, 2.0, 3.0]))
        arrvm.subtract.at(B[1:], (slice(None), [0, 0, 3]), arrvm.array([1.0, 2.0, 3.0]))
        same(B, b)
        np.negative.at(b, (2, 1))
        arrvm.negative.at(B, (2, 1))
        same(B, b)
        same(arrvm.add.reduceat(B.ravel(), [0, 4, 8]), np.add.reduceat(b.ravel(), [0, 4, 8]))
    n = np.zeros(3)
    arrvm.add.at(n, [2, 2], 1.0)  # a NumPy array: NumPy's own update
    assert n.tolist() == [0.0, 0.0, 2.0]
    assert arrvm.add.identity == 0 and arrvm.multiply.identity == 1 and arrvm.maximum.identity is None
    with pytest.raises(AttributeError):
        arrvm.add.no_such_method


def test_fallback_writes_back_what_numpy_writes_into_an_argument():
    # Functions that update an argument in place, and out= with where=, run
    # on synced copies: their writes reach the arrvm array.
    cases = [
        lambda m, x: m.fill_diagonal(x, 3.0),
        lambda m, x: m.copyto(x, np.arange(16.0).reshape(4, 4)),
        lambda m, x: m.put(x, [0, 5, 15], [-1.0, -2.0, -3.0]),
        lambda m, x: m.putmask(x, np.eye(4, dtype=bool), 7.0),
        lambda m, x: m.place(x, np.eye(4, dtype=bool), [9.0]),
        lambda m, x: m.put_along_axis(x, np.array([[0], [1], [2], [3]]), -1.0, axis=1),
        lambda m, x: m.add(np.ones((4, 4)), 1.0, out=x, where=np.eye(4, dtype=bool)),
    ]
    with warnings.catch_warnings():
        warnings.simplefilter('ignore', arrvm.ArrvmFallbackWarning)
        for f in cases:
            x, X = np.full((4, 4), 0.5), arrvm.full((4, 4), 0.5)
            f(np, x)
            f(np, X)  # through __array_function__ / __array_ufunc__ to the fallback
            same(X, x)
        g = arrvm.arange(10)
        arrvm._fallback._fallback(np.random.default_rng(3).shuffle, 'random.shuffle', (g,), {})
        h = np.arange(10)
        np.random.default_rng(3).shuffle(h)
        same(g, h)


def test_one_element_is_a_value_not_a_view():
    # NumPy's x[i] is a scalar: later writes to x do not reach it.
    x = arrvm.arange(5.0)
    a, b, d = x[1], x[np.int64(4)], x[1, ...]
    x[:] = 0.0
    assert float(a) == 1.0 and float(b) == 4.0
    assert float(d) == 0.0  # x[1, ...] is a 0-d view, as in NumPy
    x = arrvm.arange(5.0)
    x[0], x[3] = x[3], x[0]
    same(x, np.array([3.0, 1.0, 2.0, 0.0, 4.0]))
    y = arrvm.arange(6.0).reshape(2, 3)
    y[1, 2] += 10.0
    same(y, np.array([[0.0, 1.0, 2.0], [3.0, 4.0, 15.0]]))


def test_a_0d_array_serves_where_numpy_takes_a_scalar():
    v = arrvm.array(np.array([1, 2, 2, 3]))
    counts = {}
    for e in v:  # keys: the elements' values
        counts[e] = counts.get(e, 0) + 1
    assert {int(k): c for k, c in counts.items()} == {1: 1, 2: 2, 3: 1}
    assert hash(v[1]) == hash(2)
    with pytest.raises(TypeError):
        hash(v)
    x = arrvm.arange(5.0)
    assert round(x[2] / 3, 3) == 0.667 and round(x[2] + 0.6) == 3
    same(round(x / 3, 2), np.round(np.arange(5.0) / 3, 2))
    assert divmod(x[3], 2) == (1.0, 1.0) and divmod(7, x[2]) == (3.0, 1.0)
    n = x.astype(int)[4]
    assert arrvm.zeros(n).shape == (4,) and arrvm.ones((n, 2)).shape == (4, 2)
    assert arrvm.random.rand(n).shape == (4,) and arrvm.repeat(x[:2], n).shape == (8,)
    assert arrvm.squeeze(arrvm.zeros((1, 3, 1)), axis=x.astype(int)[2]).shape == (1, 3)
    with warnings.catch_warnings():
        warnings.simplefilter('error', arrvm.ArrvmFallbackWarning)  # no sync for the shape
        assert arrvm.ndim(x) == 1 and arrvm.shape(x) == (5,) and arrvm.size(x) == 5
        assert arrvm.isscalar(x[0]) and not arrvm.isscalar(x) and arrvm.isscalar(2.5)


def test_flat_writes_reach_the_array_whatever_its_layout():
    a, A = np.arange(6.0).reshape(2, 3), arrvm.arange(6.0).reshape(2, 3)
    a.T.flat[1] = 50.0
    A.T.flat[1] = 50.0
    a.flat[[0, 5]] = -1.0
    A.flat[[0, 5]] = -1.0
    a.T.flat[4:] = 7.0
    A.T.flat[4:] = 7.0
    same(A, a)
    assert list(A.T.flat) == list(a.T.flat) and len(A.flat) == 6
    assert float(A.T.flat[1]) == a.T.flat[1]


def test_fallback_warning_names_the_submodule_and_the_callers_line():
    X = arrvm.array(np.array([3.0, 4.0]))
    arrvm._functions._warned.discard('linalg.norm')
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter('always')
        n = np.linalg.norm(X, ord=1)  # through NumPy's __array_function__ dispatch (ord=None is arrvm's)
    hits = [x for x in w if issubclass(x.category, arrvm.ArrvmFallbackWarning)]
    assert len(hits) == 1
    assert 'numpy.linalg.norm ' in str(hits[0].message)
    assert hits[0].filename == __file__  # this line, not NumPy's internals
    assert float(n) == 7.0


def test_contains_and_flags_as_numpy():
    # `v in a` is (a == v).any() (it iterated rows and asked their truth);
    # a.flags answers the layout questions library code asks.
    a, A = np.arange(12).reshape(3, 4), arrvm.arange(12).reshape(3, 4)
    assert (2 in A) and (13 not in A) and (3.0 in A[0]) and (7 not in A[0])
    for x, X in [(a, A), (a.T, A.T), (a[:, ::2], A[:, ::2]), (a[1], A[1]), (a[::-1], A[::-1]),
                 (np.zeros((1, 5))[:, ::2], arrvm.zeros((1, 5))[:, ::2]), (np.zeros((3, 1)).T, arrvm.zeros((3, 1)).T)]:
        for key in ('C_CONTIGUOUS', 'F_CONTIGUOUS', 'C', 'F', 'WRITEABLE', 'ALIGNED'):
            assert X.flags[key] == x.flags[key], (key, x.shape, x.strides)
        assert X.flags.c_contiguous == x.flags.c_contiguous and X.flags.f_contiguous == x.flags.f_contiguous
