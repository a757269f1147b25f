"""np.take's modes (raise, clip, wrap), and gathers that compose: NumPy's
values, dtypes and errors; `xs[is1][is2]` and `x.sum(axis=1)[idx]` of
indices read at once are one kernel each (seed 000's simple2 and simple4,
the pull-gathers pass)."""
import warnings

import numpy as np
import pytest

import arrvm


def same(got, want):
    got = np.asarray(got)
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize('mode', ['raise', 'clip', 'wrap'])
def test_take_modes_are_numpys(mode):
    x = np.arange(24.0).reshape(4, 6) * 1.5
    ix = [np.array([0, 3, 5, 2]), np.array([[1, -1], [0, 7]]), np.array([-30, 100, 23, -1], dtype=np.int32),
          np.array([True, False]), np.array([], dtype=np.int64)]
    with warnings.catch_warnings():
        warnings.simplefilter('error', arrvm.ArrvmFallbackWarning)
        for idx in ix:
            for axis in (None, 0, 1, -1):
                try:
                    want = np.take(x, idx, axis=axis, mode=mode)
                except IndexError as e:
                    with pytest.raises(IndexError):
                        np.asarray(arrvm.take(arrvm.asarray(x), arrvm.asarray(idx), axis=axis, mode=mode))
                    continue
                same(arrvm.take(arrvm.asarray(x), arrvm.asarray(idx), axis=axis, mode=mode), want)
                same(arrvm.asarray(x).take(arrvm.asarray(idx), axis=axis, mode=mode), want)


def test_take_mode_errors_are_numpys():
    a = arrvm.arange(5)
    with pytest.raises(ValueError, match='clipmode'):
        arrvm.take(a, arrvm.asarray([1]), mode='bogus')
    with pytest.raises(IndexError, match='empty'):
        arrvm.take(arrvm.zeros(0), arrvm.asarray([0]), mode='clip')
    with pytest.raises(TypeError):
        arrvm.take(a, arrvm.asarray([1.0]), mode='wrap')
    same(arrvm.take(arrvm.zeros(0), arrvm.asarray(np.array([], dtype=np.int64)), mode='wrap'), np.zeros(0))


def test_a_gather_of_a_gather_and_of_row_sums_are_one_kernel_each():
    # (Sizes past the eager path and the reads at once: the batch path.)
    rng = np.random.default_rng(5)
    xs = rng.standard_normal(200000)
    is1 = rng.integers(0, 200000, 100000)
    is2 = rng.integers(0, 100000, 50000)
    X = rng.integers(-9, 9, (4000, 64)).astype(np.float64)
    idx = rng.integers(0, 4000, 1000)
    a_xs, a_is1, a_is2, a_X, a_idx = (arrvm.asarray(v) for v in (xs, is1, is2, X, idx))
    arrvm.flush()
    for program, want in ((lambda: a_xs[a_is1][a_is2], xs[is1][is2]),
                          (lambda: a_X.sum(axis=1)[a_idx], X.sum(axis=1)[idx]),
                          (lambda: a_X.max(axis=1)[a_idx], X.max(axis=1)[idx])):
        before = arrvm.profile()
        got = program()
        arrvm.flush()
        after = arrvm.profile()
        same(got, want)
        assert after['work_blocks'] - before['work_blocks'] == 1  # (one kernel: the partition's)
        assert after['passes'].get('pull-gathers', 0) > before['passes'].get('pull-gathers', 0)
    # An index out of range still raises NumPy's IndexError, at the indexing.
    with pytest.raises(IndexError):
        a_xs[a_is1][arrvm.asarray(np.array([0, 100000]))]
