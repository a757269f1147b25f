"""numpy.roll against NumPy: every axis form, shifts past the length and
negative, views as input, several dtypes, an empty axis."""
import numpy as np
import pytest

import arrvm


@pytest.mark.parametrize('dtype', ['uint8', 'int64', 'float64', 'complex128', 'bool'])
def test_roll_matches_numpy(dtype):
    x = (np.arange(2 * 3 * 5) % 7).astype(dtype).reshape(2, 3, 5)
    X = arrvm.array(x)
    for shift in (1, -1, 4, 5, 0, 13, -26):
        for axis in (None, 0, 1, 2, -1, -3, (0, 2), (2, 2)):
            got = arrvm.roll(X, shift, axis)
            want = np.roll(x, shift, axis)
            assert isinstance(got, arrvm.ndarray)
            assert got.dtype == want.dtype and got.shape == want.shape
            assert np.array_equal(np.asarray(got), want), (shift, axis)
    # per-axis shifts; a strided view as input; the input is not changed
    got = arrvm.roll(X[:, ::2, ::-1], (1, -2), (1, 2))
    assert np.array_equal(np.asarray(got), np.roll(x[:, ::2, ::-1], (1, -2), (1, 2)))
    assert np.array_equal(np.asarray(X), x)


def test_roll_writes_a_new_array_and_empty_axes():
    x = np.arange(6.0)
    X = arrvm.array(x)
    r = arrvm.roll(X, 2)
    r[0] = -1.0  # a new array: X keeps its values
    assert np.array_equal(np.asarray(X), x)
    assert np.array_equal(np.asarray(arrvm.roll(arrvm.zeros((0, 3)), 1, 0)), np.roll(np.zeros((0, 3)), 1, 0))
    assert np.array_equal(np.asarray(arrvm.roll(arrvm.zeros((2, 0)), 3)), np.roll(np.zeros((2, 0)), 3))
    with pytest.raises(np.AxisError):
        arrvm.roll(X, 1, 1)
