"""arrvm.asarray / arrvm.array / concatenate of host data against NumPy:
lists of numbers (bools, ints, floats, complex, mixed), nested lists,
lists holding arrvm arrays (stacked without a sync), NumPy arrays that are
not C-contiguous, 0-d, empty, float16 and big-endian input."""
import numpy as np
import pytest

import arrvm


def same(got, want):
    assert isinstance(got, arrvm.ndarray)
    assert got.dtype == want.dtype and got.shape == want.shape, (got.dtype, got.shape, want.dtype, want.shape)
    assert np.array_equal(np.asarray(got), want, equal_nan=want.dtype.kind in 'fc')


@pytest.mark.parametrize('obj', [
    [5], [True, False], [1, 2.5], [1, 2, 3], [1.0, float('nan')], [[1, 2], [3, 4]], (7, 8), [1 + 2j, 3],
    [], [[]], 3, 2.5, True, [2**63], [-1, 2**63 - 1], [[[1.5]]], np.float32(1.5), np.uint8(200),
])
def test_asarray_of_host_values_matches_numpy(obj):
    same(arrvm.asarray(obj), np.asarray(obj))
    same(arrvm.array(obj), np.array(obj))
    for dtype in ('float64', 'int32', 'uint8', 'bool', 'complex64'):
        if np.asarray(obj).dtype.kind == 'c' and dtype != 'complex64':
            continue  # (NumPy warns on a complex to real cast)
        try:
            want = np.asarray(obj, dtype=dtype)
        except (ValueError, OverflowError) as e:  # NaN or 2**63 as an integer: NumPy's error
            with pytest.raises(type(e)):
                arrvm.asarray(obj, dtype=dtype)
            continue
        same(arrvm.asarray(obj, dtype=dtype), want)


def test_asarray_of_numpy_layouts():
    x = np.arange(24.0).reshape(4, 6)
    same(arrvm.asarray(x.T), x.T)  # not C-contiguous
    same(arrvm.asarray(x[:, ::2]), x[:, ::2])
    same(arrvm.asarray(x[::-1, 1:4]), x[::-1, 1:4])
    same(arrvm.asarray(np.array(3.25)), np.array(3.25))  # 0-d
    same(arrvm.asarray(np.zeros((0, 3), np.int16)), np.zeros((0, 3), np.int16))
    half = np.arange(5, dtype=np.float16)  # float16 becomes float32 (arrvm has no float16)
    same(arrvm.asarray(half), half.astype(np.float32))
    big = np.arange(6, dtype='>i4').reshape(2, 3)  # big-endian: native order, the same values
    same(arrvm.asarray(big), big.astype('=i4'))
    with pytest.warns(arrvm.ArrvmFallbackWarning):  # strings: NumPy's array, said so
        assert np.array_equal(arrvm.asarray(np.array(['a', 'b'])), np.array(['a', 'b']))


def test_lists_holding_arrvm_arrays_stack_without_a_sync():
    a = arrvm.arange(3.0) * 2.0  # pending
    b = arrvm.ones(3)
    same(arrvm.asarray([a, b]), np.array([[0.0, 2.0, 4.0], [1.0, 1.0, 1.0]]))
    same(arrvm.asarray([[a], [b]]), np.array([[[0.0, 2.0, 4.0]], [[1.0, 1.0, 1.0]]]))
    same(arrvm.asarray((a[0], 5.0)), np.array([0.0, 5.0]))
    same(arrvm.asarray([a, b], dtype='int64'), np.array([[0, 2, 4], [1, 1, 1]]))


def test_concatenate_of_lists_and_arrays():
    d = arrvm.arange(4) - 7
    same(arrvm.concatenate([[5], d]), np.concatenate([[5], np.arange(4) - 7]))
    same(arrvm.concatenate([[5.5], d]), np.concatenate([[5.5], np.arange(4) - 7]))  # promoted
    same(arrvm.concatenate([d, d.astype('int8')]), np.concatenate([np.arange(4) - 7] * 2))
    same(arrvm.concatenate([[1, 2], [3]], dtype='float32'), np.concatenate([[1, 2], [3]], dtype='float32'))
    x = np.arange(6.0).reshape(2, 3)
    same(arrvm.concatenate([arrvm.asarray(x), x], axis=1), np.concatenate([x, x], axis=1))
