"""numpy.indices, tri, tril and triu against NumPy, run by arrvm itself (a
fallback to NumPy is an error here): dtypes, offsets, stacks of matrices,
1-D input, views as input."""
import warnings

import numpy as np
import pytest

import arrvm


@pytest.fixture(autouse=True)
def no_fallback():
    with warnings.catch_warnings():
        warnings.simplefilter('error', arrvm.ArrvmFallbackWarning)
        yield


def same(got, want):
    assert isinstance(got, arrvm.ndarray)
    assert got.dtype == want.dtype and got.shape == want.shape
    assert np.array_equal(np.asarray(got), want)


def test_indices():
    for dims in ((3,), (2, 3), (4, 1, 5), (0, 2)):
        for dtype in (int, np.int8, float):
            same(arrvm.indices(dims, dtype=dtype), np.indices(dims, dtype=dtype))
            for g, w in zip(arrvm.indices(dims, dtype=dtype, sparse=True), np.indices(dims, dtype=dtype, sparse=True)):
                same(g, w)
    ii, jj = arrvm.indices((5, 7))
    same((ii + jj) % 2 == 0, (np.indices((5, 7)).sum(axis=0)) % 2 == 0)


def test_tri_tril_triu():
    for n, m in ((4, 4), (3, 5), (5, 2), (1, 1), (0, 3)):
        for k in (-2, -1, 0, 1, 3):
            for dtype in (float, int, bool, np.float32):
                same(arrvm.tri(n, m, k, dtype=dtype), np.tri(n, m, k, dtype=dtype))
    x = np.arange(2 * 4 * 5, dtype=np.float64).reshape(2, 4, 5) - 7
    X = arrvm.array(x)
    for k in (-3, -1, 0, 2, 6):
        same(arrvm.tril(X, k), np.tril(x, k))
        same(arrvm.triu(X, k), np.triu(x, k))
        same(arrvm.tril(X[:, ::2, ::-1], k), np.tril(x[:, ::2, ::-1], k))
        same(arrvm.triu(X[1].T, k), np.triu(x[1].T, k))
    same(arrvm.tril(arrvm.arange(1, 5)), np.tril(np.arange(1, 5)))
    b = np.arange(9).reshape(3, 3) % 2 == 0
    same(arrvm.triu(arrvm.array(b), 1), np.triu(b, 1))
    same(arrvm.tril(arrvm.array(x.astype(np.int16)), -1), np.tril(x.astype(np.int16), -1))
