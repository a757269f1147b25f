"""`x.sum()`, `x.max()`, ... with no arguments (one call into C: arrvm._core.
reduce_value) against NumPy on every method, several dtypes, 0-d, empty and
2-D arrays, small (eager: NumPy's scalar at once) and large (batched: a
lazy 0-d array whose value is NumPy's): the same value and, where the work
ran at once, NumPy's scalar type; an empty min/max raises NumPy's error."""
import numpy as np
import pytest

import arrvm

METHODS = ('sum', 'prod', 'min', 'max', 'all', 'any', 'mean')


def cases():
    rng = np.random.default_rng(3)
    yield np.arange(10, dtype=np.int64) - 4
    yield (rng.random(12) * 4 - 2).astype(np.float32)
    yield rng.random((3, 5))
    yield np.array([True, False, True])
    yield np.arange(6, dtype=np.uint8).reshape(2, 3)
    yield np.array(2.5)
    yield np.array([1 + 2j, 3 - 1j])
    yield np.zeros(0)
    yield rng.random(100000)  # batched, not eager


@pytest.mark.parametrize('method', METHODS)
def test_reduction_methods_equal_numpy(method):
    checked = 0
    for x in cases():
        a = arrvm.asarray(x.copy())
        if x.size == 0 and method in ('min', 'max'):
            with pytest.raises(ValueError, match='zero-size array'):
                getattr(a, method)()
            with pytest.raises(ValueError):
                getattr(x, method)()
            continue
        with np.errstate(all='ignore'):
            want = getattr(x, method)()
            got = getattr(a, method)()
        value = np.asarray(got)
        assert value.dtype == np.asarray(want).dtype, (method, x.dtype, value.dtype)
        if x.dtype.kind == 'f' and method in ('sum', 'prod', 'mean'):
            np.testing.assert_allclose(value, want, rtol=1e-6 if x.dtype == np.float32 else 1e-12)
        else:
            assert value.tolist() == np.asarray(want).tolist(), (method, x, got, want)
        if x.size < 1000:  # eager work: NumPy's scalar at once
            assert type(got) is type(want), (method, x.dtype, type(got), type(want))
        checked += 1
    assert checked >= 8
