"""The short paths of common calls on small arrays (bench/python/calls.py
measures them) give NumPy's values, dtypes and errors: a.item(...) read at
once, lists of Python numbers built without NumPy, argmax/argmin of a ready
array computed from memory, a ufunc object's call straight to the C++
function, a.T and len(a) in C, and concatenate's lean path."""
import numpy as np
import pytest

import arrvm


def same(got, want):
    """Equal values and dtype (NaN equal to NaN); numbers equal with the same Python type."""
    if isinstance(want, np.ndarray):
        g = arrvm.to_numpy(got) if isinstance(got, arrvm.ndarray) else np.asarray(got)
        assert g.dtype == want.dtype and g.shape == want.shape, (g.dtype, want.dtype, g.shape, want.shape)
        assert np.array_equal(g, want, equal_nan=want.dtype.kind in 'fc'), (g, want)
    else:
        assert type(got) is type(want), (type(got), type(want))
        assert got == want or (got != got and want != want), (got, want)


def counts():
    p = arrvm.profile()
    return p['batches'], p['transfers']['reads_direct']


@pytest.mark.parametrize('dt', ['bool', 'int8', 'uint16', 'int32', 'int64', 'uint64', 'float32', 'float64',
                                'complex128'])
def test_item_reads_numpys_number_without_a_flush(dt):
    n = (np.arange(12).reshape(3, 4) * 3 - 7).astype(dt)
    a = arrvm.asarray(n)
    arrvm.flush()
    b0, r0 = counts()
    for args in [(5,), (-1,), (1, 2), ((2, 3),), (np.int64(7),), (0,)]:
        same(a.item(*args), n.item(*args))
    same(a.T.item(1), n.T.item(1))
    same(a[1:, ::2].item(3), n[1:, ::2].item(3))
    b1, r1 = counts()
    assert b1 == b0 and r1 - r0 == 8, (b0, b1, r0, r1)
    one = arrvm.asarray(n[:1, :1])
    same(one.item(), n[:1, :1].item())
    same(arrvm.asarray(n[1, 1]).item(), n[1, 1].item())  # a 0-d array


def test_item_of_pending_work_and_numpys_errors():
    n = np.arange(12.0).reshape(3, 4)
    a = arrvm.asarray(n) * 2 + 1  # pending on the batching backends, or eager
    same(a.item(7), (n * 2 + 1).item(7))
    for args in [(12,), (-13,), (1, 9), (1, 2, 3), (1.5,), (), ('x',)]:
        try:
            n.item(*args)
            want = None
        except Exception as e:  # noqa: BLE001 (the test compares whatever NumPy raises)
            want = e
        assert want is not None, args
        with pytest.raises(type(want)) as got:
            a.item(*args)
        assert str(got.value) == str(want), (args, got.value, want)


LISTS = [[3], [1.5, 2], [True, False], [True, 2], [True, 1.5], [[1, 2], [3, 4]], [(1.0, 2), (3, 4)], (1, 2, 3),
         [-2**63, 2**63 - 1], [2**63], [2**64 + 5, 1.0], [1 + 2j], [np.int32(3), 4], [np.float64(2.5), 1],
         [np.float32(2.5), 1.0], [], [[]], [[1], [2, 3]], [[1, 2], 3], [[[1, 2]], [[3, 4]]], [np.nan, np.inf]]


@pytest.mark.parametrize('obj', LISTS, ids=[repr(x)[:40] for x in LISTS])
def test_lists_of_numbers_become_numpys_array(obj):
    try:
        want = np.array(obj)
    except Exception as e:  # noqa: BLE001
        with pytest.raises(type(e)):
            arrvm.array(obj)
        return
    if want.dtype == object:
        return  # (NumPy keeps Python objects; arrvm has no such dtype)
    same(arrvm.array(obj), want)
    same(arrvm.asarray(obj), want)


@pytest.mark.parametrize('dt', ['bool', 'int8', 'uint8', 'int32', 'int64', 'uint64', 'float32', 'float64'])
def test_argmax_argmin_of_a_ready_array_are_numpys(dt):
    rng = np.random.default_rng(5)
    for shape in [(1,), (7,), (40,), (6, 9)]:
        n = (rng.integers(-5, 5, size=shape) if dt != 'bool' else rng.integers(0, 2, size=shape)).astype(dt)
        a = arrvm.asarray(n)
        arrvm.flush()
        for f in ('argmax', 'argmin'):
            same(getattr(arrvm, f)(a), getattr(np, f)(n))
            same(getattr(a, f)(), getattr(n, f)())
            same(getattr(a.T, f)(), getattr(n.T, f)())
    if dt.startswith('float'):
        n = np.array([3.0, 7.0, np.nan, 7.0, np.nan, -1.0], dtype=dt)  # the first NaN wins both
        a = arrvm.asarray(n)
        same(arrvm.argmax(a), np.argmax(n))
        same(arrvm.argmin(a), np.argmin(n))
        same(arrvm.argmax(a[3:]), np.argmax(n[3:]))
    with pytest.raises(ValueError):
        arrvm.argmax(arrvm.asarray(np.zeros(0, dtype=dt)))


def test_argmax_of_a_ready_array_does_not_flush_and_of_pending_work_is_right():
    n = np.arange(30.0) % 7
    a = arrvm.asarray(n)
    arrvm.flush()
    b0, r0 = counts()
    same(arrvm.argmax(a), np.argmax(n))
    b1, r1 = counts()
    assert b1 == b0 and r1 > r0, (b0, b1, r0, r1)
    big = arrvm.arange(200000) % 1000  # past the short path: the fused reductions (a lazy 0-d result)
    assert int(arrvm.argmax(big)) == np.argmax(np.arange(200000) % 1000)
    assert int(arrvm.argmin(a - a[4])) == np.argmin(n - n[4])


UFUNC_CALLS = [
    ('minimum', (np.array([3, 9, 2]), 4)), ('maximum', (np.array([3.0, np.nan, 2.0]), 1.0)),
    ('minimum', (np.uint8(200), np.arange(3, dtype=np.int8))), ('maximum', (np.arange(3, dtype=np.int8), 300)),
    ('hypot', (np.array([3, 4]), 4.0)), ('logical_and', (np.array([True, False]), True)),
    ('logical_xor', (np.array([1, 0, 2]), np.array([1, 1, 0]))), ('divide', (np.array([3, 9]), 2)),
    ('mod', (np.array([-7, 9]), 4)), ('arctan2', (np.array([1.0, -2.0]), np.array([2.0, 0.5]))),
    ('exp', (np.arange(4.0),)), ('sqrt', (np.arange(4),)), ('negative', (np.array([1, -2], dtype=np.int16),)),
    ('absolute', (np.array([-1.5, 2.0]),)), ('isnan', (np.array([np.nan, 1.0]),)), ('floor', (np.array([1.5, -1.5]),)),
    ('invert', (np.array([True, False]),)), ('logical_not', (np.array([0, 3]),)),
]


@pytest.mark.parametrize('name,args', UFUNC_CALLS, ids=[c[0] + str(i) for i, c in enumerate(UFUNC_CALLS)])
def test_ufunc_objects_called_with_arrays_and_numbers_are_numpys(name, args):
    with np.errstate(all='ignore'):
        want = getattr(np, name)(*args)
    got = getattr(arrvm, name)(*[arrvm.asarray(x) if isinstance(x, np.ndarray) else x for x in args])
    if name in ('arctan2', 'hypot', 'exp'):  # (libm's and arrvm's loops may differ in the last bit)
        g = arrvm.to_numpy(got)
        assert g.dtype == want.dtype and np.allclose(g, want, rtol=4e-16, atol=0), (g, want)
    else:
        same(got, want)


def test_transposed_view_and_len():
    n = np.arange(12).reshape(3, 4)
    a = arrvm.asarray(n)
    same(a.T, n.T)
    a.T[1, 2] = 100  # a view: writes reach a
    n.T[1, 2] = 100
    same(a, n)
    assert len(a) == 3 and len(a[0]) == 4 and len(a.T) == 4
    with pytest.raises(TypeError, match='len\\(\\) of unsized object'):
        len(arrvm.asarray(np.float64(3.0)))
    same(arrvm.asarray(np.float64(3.0)).T, np.asarray(np.float64(3.0)).T)


def test_concatenate_pieces_shapes_dtypes_and_errors():
    r = np.arange(5)
    a = arrvm.asarray(r)
    same(arrvm.concatenate([[3], a]), np.concatenate([[3], r]))
    same(arrvm.concatenate([a, a * 0.5]), np.concatenate([r, r * 0.5]))
    same(arrvm.concatenate([a, a], dtype=np.float32), np.concatenate([r, r], dtype=np.float32))
    m = np.ones((2, 3))
    same(arrvm.concatenate([arrvm.asarray(m), arrvm.asarray(m[:, :1])], axis=1), np.concatenate([m, m[:, :1]], 1))
    same(arrvm.concatenate([arrvm.asarray(m), arrvm.asarray(m)], axis=-2), np.concatenate([m, m], axis=-2))
    same(arrvm.concatenate([arrvm.asarray(m), a], axis=None), np.concatenate([m, r], axis=None))
    out = arrvm.zeros(10, dtype=np.int64)
    assert arrvm.concatenate([a, a], out=out) is out
    same(out, np.concatenate([r, r]))
    for bad, kw in [([m, m[:1, :1]], {'axis': 1}), ([m, r], {}), ([np.float64(1.0), r], {}), ([], {}),
                    ([m, m], {'axis': 2})]:
        with pytest.raises(Exception) as want:
            np.concatenate(bad, **kw)
        with pytest.raises(type(want.value)):
            arrvm.concatenate([arrvm.asarray(x) if isinstance(x, np.ndarray) else x for x in bad], **kw)
