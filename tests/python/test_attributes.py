"""ndarray's attributes as C getters (shape, ndim, size, dtype, strides)
against NumPy's, on views and 0-d arrays; setting shape
reshapes in place only where NumPy allows it."""
import numpy as np
import pytest

import arrvm


def test_attributes_match_numpy():
    x = np.arange(24, dtype=np.int32).reshape(2, 3, 4)
    X = arrvm.asarray(x)
    for v, w in [(X, x), (X[:, ::2, 1:], x[:, ::2, 1:]), (X.T, x.T), (X[1, 2, 3], x[1, 2, 3]),
                 (arrvm.asarray(np.float32(2.5)), np.asarray(np.float32(2.5)))]:
        if not isinstance(v, arrvm.ndarray):  # an element: NumPy's scalar
            assert type(v) is type(w) and v == w
            continue
        assert (v.shape, v.ndim, v.size, v.dtype, v.strides) == (w.shape, w.ndim, w.size, w.dtype, w.strides)
        assert v.dtype is np.dtype(w.dtype.name)  # NumPy's own dtype object
        assert type(v.shape) is tuple and all(type(s) is int for s in v.shape)


def test_shape_set_in_place_and_refused():
    X = arrvm.arange(12.0)
    X.shape = (3, 4)
    assert X.shape == (3, 4) and np.array_equal(np.asarray(X), np.arange(12.0).reshape(3, 4))
    X.shape = 12
    assert X.shape == (12,)
    T = arrvm.arange(6.0).reshape(2, 3).T
    with pytest.raises(AttributeError):
        T.shape = (6,)  # not a view of the same memory: NumPy refuses too
    with pytest.raises(ValueError):
        X.shape = (5,)
    with pytest.raises(AttributeError):
        del X.shape
    with pytest.raises(AttributeError):
        X.ndim = 3
