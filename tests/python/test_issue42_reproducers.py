"""Reproducers of answers arrvm once got wrong or refused (NumPy's answer where arrvm was wrong or
refused), each compared with the installed NumPy: value, dtype, exception
class. The same expression runs with `xp` = numpy and `xp` = arrvm."""
import warnings

import numpy
import pytest

import arrvm

CASES = {
    'mask length': lambda xp: xp.arange(5)[xp.array([True, False])],
    'mask length 2-d': lambda xp: xp.ones((3, 4))[:, xp.array([True, False, True])],
    'mask after ellipsis': lambda xp: xp.ones((3, 4))[..., xp.array([True, False, True, False])],
    'empty bool min': lambda xp: xp.zeros(0, bool).min(),
    'empty max axis': lambda xp: xp.zeros((0, 3)).max(axis=0),
    'empty max other axis': lambda xp: xp.zeros((0, 3)).max(axis=1),
    'flatten F': lambda xp: xp.arange(6).reshape(2, 3).flatten(order='F'),
    'ravel F': lambda xp: xp.ravel(xp.arange(24).reshape(2, 3, 4), order='F'),
    'flatten A of a transpose': lambda xp: xp.arange(6).reshape(2, 3).T.flatten(order='A'),
    'trace 3-d': lambda xp: xp.trace(xp.arange(24).reshape(2, 3, 4)),
    'trace axes': lambda xp: xp.trace(xp.arange(12).reshape(3, 4), axis1=1, axis2=0),
    'trace offset axes': lambda xp: xp.trace(xp.arange(60).reshape(3, 4, 5), 1, 2, 0),
    'trace method dtype': lambda xp: xp.arange(9, dtype=xp.int8).reshape(3, 3).trace(dtype=xp.float32),
    'diagonal axes': lambda xp: xp.diagonal(xp.arange(24).reshape(2, 3, 4), -1, 2, 1),
    'diagonal same axes': lambda xp: xp.diagonal(xp.ones((3, 3)), 0, 1, 1),
    'astype complex64': lambda xp: xp.ones(3).astype(numpy.complex64),
    'add.reduce complex': lambda xp: xp.add.reduce(xp.array([1 + 2j, 3])),
    'arange datetime': lambda xp: xp.arange('2020-01', '2020-03', dtype='datetime64[D]'),
    'view int32': lambda xp: xp.arange(3.0).view(xp.int32),
    'view same dtype': lambda xp: xp.arange(3.0).view(),
    'shares itself': lambda xp: (lambda a: xp.shares_memory(a, a))(xp.zeros(3)),
    'shares interleaved': lambda xp: (lambda a: xp.shares_memory(a[::2], a[1::2]))(xp.zeros(10)),
    'may share interleaved': lambda xp: (lambda a: xp.may_share_memory(a[::2], a[1::2]))(xp.zeros(10)),
    'shares overlap': lambda xp: (lambda a: xp.shares_memory(a[2:5], a[4:]))(xp.zeros(10)),
    'shares other array': lambda xp: xp.shares_memory(xp.zeros(3), xp.zeros(3)),
    'zeros float16': lambda xp: xp.zeros(3, dtype=numpy.float16),
    'float32 times 65536': lambda xp: xp.ones(3, xp.float32) * 65536,
    'float32 times 65535': lambda xp: xp.ones(3, xp.float32) * 65535,
    'float32 minus -40000': lambda xp: xp.ones(3, xp.float32) - (-40000),
    'float32 plus -32768': lambda xp: -32768 + xp.ones(3, xp.float32),
    'float32 plus 1e39': lambda xp: xp.ones(3, xp.float32) + 1e39,
    'nan to int64': lambda xp: xp.array([numpy.nan, numpy.inf, -1.5]).astype(xp.int64),
    'nan to uint8': lambda xp: xp.array([numpy.nan, 300.5, -1.5]).astype(xp.uint8),
    'read-only write': lambda xp: (lambda z: (setattr(z.flags, 'writeable', False), z.__setitem__(0, 1)))(xp.zeros(3)),
    'read-only view write': lambda xp: (lambda z: (setattr(z.flags, 'writeable', False), z[1:].__setitem__(0, 1)))(
        xp.zeros(3)),
    'read-only in-place add': lambda xp: (lambda z: (setattr(z.flags, 'writeable', False), z.__iadd__(1)))(xp.zeros(3)),
    'read-only flag': lambda xp: (lambda z: (setattr(z.flags, 'writeable', False), z.flags.writeable,
                                             z.copy().flags.writeable))(xp.zeros(3))[1:],
    'strides too long': lambda xp: (lambda d: (setattr(d, 'strides', (16,)), d)[1])(xp.zeros(4)),
    'strides halve the shape': lambda xp: (lambda d: (setattr(d, 'strides', (16,)), d)[1])(xp.arange(8.0)[:4]),
    'strides 2-d transpose': lambda xp: (lambda d: (setattr(d, 'strides', (8, 24)), d)[1])(
        xp.arange(6.0).reshape(2, 3)),
    'ndarray constructor': lambda xp: xp.ndarray((3, 4), dtype=xp.float64).shape,
    # an element set from NumPy's scalars (a DP table's `T[i, j] = max(T[i - 1, j], ...)`)
    'setitem numpy int64': lambda xp: (lambda t: (t.__setitem__((1, 2), numpy.int64(7)), t)[1])(
        xp.zeros((3, 4), xp.int64)),
    'setitem numpy float32 into int': lambda xp: (lambda t: (t.__setitem__((2, 1), numpy.float32(2.5)), t)[1])(
        xp.zeros((3, 4), xp.int64)),
    'setitem numpy int8 into a column': lambda xp: (lambda t: (t.__setitem__((..., 3), numpy.int8(5)), t)[1])(
        xp.zeros((3, 4))),
    'index True': lambda xp: xp.arange(6).reshape(2, 3)[True],
    'index False': lambda xp: xp.arange(6).reshape(2, 3)[False],
    'index numpy bool_': lambda xp: xp.arange(4)[numpy.bool_(True)],
    'index numpy uint32': lambda xp: xp.arange(4)[numpy.uint32(2)],
    'iterate pending work': lambda xp: [type(e).__name__ for e in (xp.arange(5000) * 3 % 7).astype(xp.uint8)][:3],
    'setitem max of elements': lambda xp: (lambda t: (t.__setitem__((2, 2), max(t[0, 1], t[1, 0])), t)[1])(
        xp.arange(9).reshape(3, 3)),
    # A full reduction of eager work is NumPy's scalar (a float subclass for
    # float64: json takes it); of lazy work, a 0-d array (json refuses it).
    'json of a small sum': lambda xp: __import__('json').dumps({'s': (xp.arange(10) * 0.5).sum()}),
    'json of a small mean and max': lambda xp: __import__('json').dumps(
        [(xp.arange(10.0) * 0.5).mean(), xp.linspace(0, 1, 5).max(), xp.ones(3).std()]),
    'type of a small sum': lambda xp: type((xp.arange(10) * 0.5).sum()).__name__,
    'type of a small int max': lambda xp: type(xp.arange(10).max()).__name__,
}


def outcome(f, xp):
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        try:
            r = f(xp)
        except Exception as e:  # the class is what is compared
            return ('raises', type(e).__name__ if not isinstance(e, numpy.AxisError) else 'AxisError')
        if isinstance(r, (bool, numpy.bool_, tuple, str)):
            return ('value', r if isinstance(r, (tuple, str)) else bool(r))
        a = numpy.asarray(r)
        return ('array', str(a.dtype), a.shape, a.tolist())


@pytest.mark.parametrize('name', sorted(CASES))
def test_reproducer_equals_numpy(name):
    assert outcome(CASES[name], arrvm) == outcome(CASES[name], numpy)


def test_view_shares_memory_with_the_array():
    a = arrvm.zeros(2)
    v = a.view(numpy.int64)
    v[0] = 1  # the bits of 5e-324
    assert float(a[0]) == 5e-324


CASTS = r'''
import json, warnings
import numpy, arrvm
warnings.simplefilter('ignore')
v = numpy.tile(numpy.array([numpy.nan, numpy.inf, -numpy.inf, 1e20, -1e20, 3e9, -3e9, 70000.7, -70000.7, 300.5,
                            -1.5, 2.0**63, 2.0**64, -0.5, 2.0**31, 65535.9]), 64)
bad = []
for src in (numpy.float64, numpy.float32):
    x = v.astype(src)
    for t in (numpy.int64, numpy.int32, numpy.int16, numpy.int8, numpy.uint64, numpy.uint32, numpy.uint16,
              numpy.uint8):
        got = arrvm.to_numpy((arrvm.array(x) * 1).astype(t))  # (* 1: the cast inside a fused kernel)
        if got.tolist() != x.astype(t).tolist():
            bad.append((src.__name__, t.__name__))
print(json.dumps(bad))
'''


@pytest.mark.parametrize('backend', ['ref', 'cpu', 'opencl'])
def test_float_to_int_casts_are_numpys(backend):
    """NaN, infinities and out-of-range floats cast to every integer dtype
    as NumPy casts them on x86-64 (INT64_MIN, the int32 conversion's low
    bits, ...: vm/cast.hpp), on every backend."""
    import json
    import os
    import subprocess
    import sys
    if backend == 'opencl' and os.environ.get('ARRVM_TEST_OPENCL', '1') == '0':
        pytest.skip('ARRVM_TEST_OPENCL=0')
    env = dict(os.environ, ARRVM_BACKEND=backend)
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    env.setdefault('PYTHONPATH', os.path.join(root, 'build', 'python'))
    p = subprocess.run([sys.executable, '-c', CASTS], env=env, capture_output=True, text=True, timeout=600)
    assert p.returncode == 0, p.stderr
    assert json.loads(p.stdout.splitlines()[-1]) == []


# Functions that ran in NumPy (a fallback) and run natively now. NumPy
# computes them with its own SIMD code on AVX-512 machines (a few ulp from
# libm, which ref calls): values within 4 ulp, NaN where NumPy's, and the dtype.
TRANSCENDENTAL = {
    'hypot past sqrt(max)': lambda xp: xp.hypot(xp.array([1e308, 3.0, -1e-200, xp.inf, 1e-320]),
                                                xp.array([1e308, 4.0, 1e-200, xp.nan, 0.0])),
    'cbrt of negatives': lambda xp: xp.cbrt(xp.array([-27.0, 8.0, -0.0, 1e300, -1e-310])),
    'arcsinh': lambda xp: xp.arcsinh(xp.array([-2.0, 0.5, 1e300, -0.0])),
    'arccosh': lambda xp: xp.arccosh(xp.array([1.0, 10.0, 0.5, xp.inf])),
    'arctanh': lambda xp: xp.arctanh(xp.array([-0.5, 0.0, 1.0, 2.0])),
    'cbrt of int64': lambda xp: xp.cbrt(xp.arange(3, dtype=xp.int64)),
    'float32 arcsinh': lambda xp: xp.arcsinh(xp.linspace(-5, 5, 7).astype(xp.float32)),
}


@pytest.mark.parametrize('name', sorted(TRANSCENDENTAL))
def test_native_function_equals_numpy(name):
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        want = TRANSCENDENTAL[name](numpy)
        got = numpy.asarray(TRANSCENDENTAL[name](arrvm))
    assert got.dtype == want.dtype
    numpy.testing.assert_array_max_ulp(got, want, maxulp=4)

