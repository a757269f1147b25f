"""NumPy's functions on arrvm arrays: ufunc objects, reductions, dot/matmul,
the NumPy fallback hooks and ndarray's methods (creation and shape
manipulation: _shapes.py). Each is a thin layer over the
extension, whose C++ frontend holds NumPy's rules (promotion, broadcasting,
indexing arithmetic, reduction dtypes)."""
import builtins
import math as _math
import operator as _operator
import sys as _sys

import numpy as _np

from . import _core, _ndarray
from . import _indexing  # noqa: F401 (hands the indexing slow paths to the extension)
from ._ndarray import ndarray, asarray, asarray_shared, dtype_code, _is_scalar, foreign, UnsupportedDType
from ._fallback import ArrvmFallbackWarning, _complex_operand, _fallback, _warned, wrap_numpy  # noqa: F401 (re-exported)
# Creation and shape manipulation, and the operand helpers: _shapes.py.
from ._shapes import (_float64, _operand, _into, _dt, array, asanyarray, ascontiguousarray, _shape, empty, zeros,
                      ones, full, _like, empty_like, zeros_like, ones_like, full_like, _num, _INT_CODE,
                      _FLOAT64_CODE, arange, linspace, eye, identity, _shape_args, _m_reshape, reshape, _in_order,
                      ravel, _m_flatten, _m_transpose, transpose, swapaxes, moveaxis, _norm_axis, squeeze,
                      expand_dims, broadcast_to, broadcast_arrays, atleast_1d, atleast_2d, concatenate, stack,
                      hstack, vstack, column_stack, copy, _m_astype, where)  # noqa: F401


class ufunc:
    """A NumPy ufunc computed by libarrvm: __call__ (with out=), reduce, accumulate, outer; at and
    reduceat run in NumPy (with the fallback warning)."""

    _REDUCTIONS = {'add': 'sum', 'multiply': 'prod', 'minimum': 'min', 'maximum': 'max',
                   'logical_and': 'all', 'logical_or': 'any'}

    def __init__(self, name, core_name=None):
        self.__name__ = name
        self._core_name = core_name or name
        self.nin = _core.ufunc_arity(self._core_name)
        self.nout = 1
        self.nargs = self.nin + 1
        self._np = getattr(_np, name, None)

    def __repr__(self):
        return "<arrvm ufunc '%s'>" % self.__name__

    def _call(self, *args, out=None, dtype=None, **kwargs):
        if out is None and dtype is None and not kwargs and len(args) == self.nin:
            r = _core.ufunc_fast(self._core_name, args)  # arrvm arrays and numbers
            if r is not None:
                return r
        if len(args) == self.nin + 1 and out is None:
            out, args = args[-1], args[:-1]
        if isinstance(out, tuple):
            out = out[0]
        if len(args) != self.nin:
            raise TypeError("%s() takes %d positional arguments, got %d" % (self.__name__, self.nin, len(args)))
        if kwargs.get('where', True) is not True or builtins.any(foreign(a) for a in args):
            return _fallback(self._np, self.__name__, args, dict(kwargs, out=out, dtype=dtype))
        if out is None and not builtins.any(isinstance(a, ndarray) for a in args) and builtins.all(_is_scalar(a) for a in args):
            return self._np(*args, dtype=dtype) if dtype is not None else self._np(*args)
        args = tuple(_operand(a) for a in args)
        if dtype is not None:
            args = tuple(a.astype(dtype) if isinstance(a, ndarray) else a for a in args)
        if out is not None and not isinstance(out, ndarray):
            return _fallback(self._np, self.__name__, args, {'out': out})
        return _core.ufunc(self._core_name, args, out)

    __call__ = _call

    def reduce(self, a, axis=0, dtype=None, out=None, keepdims=False, **kwargs):
        name = self._REDUCTIONS.get(self._core_name)
        if self._core_name == 'logical_xor' and not kwargs and not foreign(a):  # an odd count of trues
            return _into(_reduce('sum', asarray(a).astype(_np.bool_), axis, None, None, keepdims) % 2 == 1, out)
        if name is None or kwargs or foreign(a):
            return _fallback(self._np.reduce, self.__name__ + '.reduce', (a,),
                             dict(kwargs, axis=axis, dtype=dtype, out=out, keepdims=keepdims))
        try:
            return _reduce(name, a, axis, dtype, out, keepdims)
        except UnsupportedDType:  # a list of complex numbers, dtype=complex, ...
            return _fallback(self._np.reduce, self.__name__ + '.reduce', (a,),
                             dict(kwargs, axis=axis, dtype=dtype, out=out, keepdims=keepdims))

    def accumulate(self, a, axis=0, dtype=None, out=None):
        a = asarray(a)
        if self._core_name == 'add':
            r = a._cumsum(axis)
        elif self._core_name == 'multiply':
            r = a._cumprod(axis)
        elif self._core_name in ('minimum', 'maximum') and a.dtype.kind in 'iuf':
            r = a._cummin(axis) if self._core_name == 'minimum' else a._cummax(axis)
        else:
            return _fallback(self._np.accumulate, self.__name__ + '.accumulate', (a,), {'axis': axis})
        if dtype is not None:
            r = r.astype(dtype)
        return _into(r, out)

    def outer(self, a, b, **kwargs):
        a, b = asarray(a), asarray(b)
        return self(a.reshape(a.shape + (1,) * b.ndim), b, **kwargs)

    def at(self, a, indices, b=None):
        """NumPy's unbuffered in-place ufunc.at (np.add.at(counts, idx, 1)):
        on a synced copy in NumPy, written back into `a` (with the fallback
        warning); a NumPy array is NumPy's to update."""
        if not isinstance(a, ndarray):
            return self._np.at(a, indices) if b is None else self._np.at(a, indices, b)

        def updated(host, indices, b):
            host = _np.array(host)
            self._np.at(host, indices) if b is None else self._np.at(host, indices, b)
            return host
        a[...] = _fallback(updated, self.__name__ + '.at', (a, indices, b), {})

    def reduceat(self, a, indices, axis=0, dtype=None, out=None):
        return _fallback(self._np.reduceat, self.__name__ + '.reduceat', (a, indices),
                         {'axis': axis, 'dtype': dtype, 'out': out})

    def __getattr__(self, name):
        """NumPy's plain attributes (identity, types, signature, ...)."""
        if name.startswith('_') or self._np is None:
            raise AttributeError(name)
        value = getattr(self._np, name)
        if callable(value):
            raise AttributeError("arrvm ufunc '%s' has no method '%s'" % (self.__name__, name))
        return value


_UFUNC_NAMES = ['add', 'subtract', 'multiply', 'divide', 'true_divide', 'floor_divide', 'power', 'remainder',
                'mod', 'maximum', 'minimum', 'equal', 'not_equal', 'less', 'less_equal', 'greater',
                'greater_equal', 'logical_and', 'logical_or', 'logical_xor', 'bitwise_and', 'bitwise_or',
                'bitwise_xor', 'left_shift', 'right_shift', 'arctan2', 'logical_not', 'invert', 'bitwise_not',
                'negative', 'absolute', 'fabs', 'sign', 'sqrt', 'exp', 'exp2', 'expm1', 'log', 'log2', 'log10',
                'log1p', 'sin', 'cos', 'tan', 'arcsin', 'arccos', 'arctan', 'sinh', 'cosh', 'tanh', 'cbrt', 'arcsinh',
                'arccosh', 'arctanh', 'hypot', 'floor', 'ceil',
                'trunc', 'rint', 'isnan', 'isinf', 'isfinite']
UFUNCS = {n: ufunc(n) for n in _UFUNC_NAMES}
UFUNCS['abs'] = UFUNCS['absolute']
for _u in UFUNCS.values():
    if type(_u) is ufunc:  # (abs is absolute)
        # Its own class, whose __call__ is _core's C function (its fast path
        # in C, the rest in _call): `np.exp(x)` costs what `x + 1` costs.
        _u.__class__ = type('ufunc', (ufunc,), {'__call__': _core.ufunc_caller(_u._core_name, _u.nin, _u._call),
                                                '__module__': ufunc.__module__, '__doc__': ufunc.__doc__})
globals().update(UFUNCS)


def square(x, out=None):
    x = asarray(x)
    return _core.ufunc('multiply', (x, x), out)


def reciprocal(x, out=None):
    x = asarray(x)
    return _core.ufunc('true_divide' if x.dtype.kind == 'f' else 'floor_divide', (1, x), out)


def positive(x, out=None):
    return _into(asarray(x).copy(), out)


def conjugate(x, out=None):
    x = asarray(x)
    if x.dtype.kind != 'c':
        return _into(x.copy(), out)
    return _core.ufunc('conjugate', (x,), out)


conj = conjugate


def _array_operand(x):
    x = _operand(x)
    return x if isinstance(x, ndarray) else asarray(x)


def deg2rad(x, out=None):
    return _core.ufunc('multiply', (_array_operand(x), _math.pi / 180.0), out)


def rad2deg(x, out=None):
    return _core.ufunc('multiply', (_array_operand(x), 180.0 / _math.pi), out)


radians, degrees = deg2rad, rad2deg


def around(a, decimals=0, out=None):
    a = asarray(a)
    if a.dtype.kind in 'biu':  # integers stay integers (NumPy): only negative decimals round
        if decimals >= 0:
            return _into(a.copy(), out)
        f = 10 ** -decimals
        return _into(rint(a / f) * f, out) if out is not None else (rint(a / f) * f).astype(a.dtype)
    if decimals == 0:
        return rint(a, out=out)
    f = 10.0 ** decimals
    return _into(rint(a * f) / f, out)


round_ = around


def clip(a, a_min=None, a_max=None, out=None, **kwargs):
    r = asarray(a)
    if a_min is not None:
        r = maximum(r, a_min)
    if a_max is not None:
        r = minimum(r, a_max)
    if r is a:
        r = r.copy()
    return _into(r, out)


def _m_fill(self, value):
    self[...] = value


_TAKE_MODES = {'raise': 0, 'clip': 1, 'wrap': 2}  # (Array::TakeMode)


def take(a, indices, axis=None, out=None, mode='raise'):
    a = asarray(a)
    try:
        m = _TAKE_MODES[mode]
    except (KeyError, TypeError):
        raise ValueError("clipmode must be one of 'clip', 'raise', or 'wrap' (got %r)" % (mode,)) from None
    idx = asarray(indices)
    if idx.dtype.kind == 'b':  # (take reads bools as the integers 0 and 1, not as a mask)
        idx = idx.astype(_np.int64)
    elif idx.dtype.kind not in 'iu':
        raise TypeError("Cannot cast array data from dtype('%s') to dtype('int64') according to the rule "
                        "'safe'" % idx.dtype)
    ax = None if axis is None else _norm_axis(axis, a.ndim)
    if m:  # clip: clamped into range (no negative counting); wrap: modulo the length
        n = a.size if ax is None else a.shape[ax]
        if n == 0 and idx.size:
            raise IndexError("cannot do a non-empty take from an empty axes.")
        if ax is None:
            return _into(a.reshape(-1)._take(idx, m), out)
        if n:
            idx = clip(idx, 0, n - 1) if m == 1 else idx % n
    if ax is None:
        return _into(a.reshape(-1)[idx], out)
    return _into(a[(slice(None),) * ax + (idx,)], out)


def count_nonzero(a, axis=None, keepdims=False):
    r = _reduce('sum', asarray(a) != 0, axis, None, None, keepdims)
    return builtins.int(r) if axis is None and not keepdims else r  # NumPy: a Python int


def isclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    a, b = _operand(a), _operand(b)
    r = absolute(a - b) <= atol + rtol * absolute(b)
    r = logical_or(r, equal(a, b))
    if equal_nan:
        r = logical_or(r, logical_and(isnan(a), isnan(b)))
    return r


def allclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    return bool(isclose(a, b, rtol, atol, equal_nan).all())


def array_equal(a1, a2, equal_nan=False):
    a1, a2 = asarray(a1), asarray(a2)
    if a1.shape != a2.shape:
        return False
    if equal_nan and a1.dtype.kind == 'f' and a2.dtype.kind == 'f':
        return bool(((a1 == a2) | (isnan(a1) & isnan(a2))).all())
    return bool((a1 == a2).all())


# ---- reductions ----

def _axes(axis):
    if axis is None:
        return None
    if isinstance(axis, (tuple, list)):
        return [_operator.index(a) for a in axis]
    return [_operator.index(axis)]


def _reduce(name, a, axis=None, dtype=None, out=None, keepdims=False):
    a = asarray(a)
    if a.size == 0 and name in ('min', 'max'):
        reduced = a.shape if axis is None else [a.shape[x] for x in _axes(axis)]
        if 0 in reduced or not reduced:
            raise ValueError("zero-size array to reduction operation %s which has no identity"
                             % ('minimum' if name == 'min' else 'maximum'))
    r = _core.reduce(name, a, _axes(axis), builtins.bool(keepdims), -1 if dtype is None else dtype_code(dtype))
    return _into(r, out)


def _value(r, out=None):
    """What a public reduction returns: a full reduction's result as NumPy's
    scalar when it ran at once (eager work), else the (lazy) 0-d array; the
    functions above keep arrays (a NumPy scalar in their arithmetic would
    promote as NumPy 1.x scalars do: float32 / int -> float64)."""
    if out is None and isinstance(r, ndarray) and r.ndim == 0:
        return _core.scalar_if_ready(r)
    return r


def _masked(a, where, identity):
    """a where `where` holds, else the reduction's identity (NumPy's where=)."""
    if where is True:
        return a
    return globals()['where'](asarray(where), a, identity)


def sum(a, axis=None, dtype=None, out=None, keepdims=False, initial=None, where=True):
    r = _reduce('sum', _masked(asarray(a), where, 0), axis, dtype, None, keepdims)
    if initial is not None:
        r = r + initial
    return _value(_into(r, out), out)


def prod(a, axis=None, dtype=None, out=None, keepdims=False, initial=None, where=True):
    r = _reduce('prod', _masked(asarray(a), where, 1), axis, dtype, None, keepdims)
    if initial is not None:
        r = r * initial
    return _value(_into(r, out), out)


def amin(a, axis=None, out=None, keepdims=False, **kwargs):
    return _value(_reduce('min', a, axis, None, out, keepdims), out)


def amax(a, axis=None, out=None, keepdims=False, **kwargs):
    return _value(_reduce('max', a, axis, None, out, keepdims), out)


min, max = amin, amax


def all(a, axis=None, out=None, keepdims=False, **kwargs):
    return _reduce('all', a, axis, None, out, keepdims)


def any(a, axis=None, out=None, keepdims=False, **kwargs):
    return _reduce('any', a, axis, None, out, keepdims)


alltrue, sometrue = all, any


def mean(a, axis=None, dtype=None, out=None, keepdims=False, **kwargs):
    return _value(_reduce('mean', a, axis, dtype, out, keepdims), out)


def var(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, **kwargs):
    a = asarray(a)
    m = _reduce('mean', a, axis, dtype, None, True)
    d = a - m
    n = a.size if axis is None else _math.prod(a.shape[x] for x in _axes(axis))
    r = _reduce('sum', d * d, axis, dtype if dtype is not None else m.dtype, None, keepdims)
    return _value(_into(r / builtins.max(n - ddof, 0), out), out)


def std(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, **kwargs):
    return _value(_into(sqrt(asarray(var(a, axis, dtype, None, ddof, keepdims))), out), out)


def cumsum(a, axis=None, dtype=None, out=None):
    r = asarray(a)._cumsum(None if axis is None else builtins.int(axis))
    return _into(r if dtype is None else r.astype(dtype), out)


def cumprod(a, axis=None, dtype=None, out=None):
    r = asarray(a)._cumprod(None if axis is None else builtins.int(axis))
    return _into(r if dtype is None else r.astype(dtype), out)


def _m_reduction(name):
    minmax = name in ('min', 'max')  # (an empty one raises NumPy's error in _reduce)
    whole = _core.reduce_value

    def method(self, axis=None, dtype=None, out=None, keepdims=False, **kwargs):
        if axis is None and dtype is None and out is None and keepdims is False and not kwargs and (
                not minmax or self.size):
            return whole(name, self)  # (`x.sum()`: one call into C)
        if name in ('sum', 'prod', 'mean'):
            return _value(_reduce(name, self, axis, dtype, out, keepdims), out)
        return _value(_reduce(name, self, axis, None, out, keepdims), out)
    method.__name__ = name
    return method


# ---- linear algebra (broadcast multiply + add reduce, fused) ----

def matmul(a, b, out=None, **kwargs):
    """NumPy's matmul as a broadcast multiply and an add reduction (fused):
    a 1-D operand gets an axis of length 1 (prepended for a, appended for b)
    that the result drops; the stacks (all axes but the last two) broadcast."""
    a, b = asarray(a), asarray(b)
    if a.ndim == 1 and b.ndim == 1 and a.shape == b.shape and out is None:
        da, db = a.dtype, b.dtype
        if da.kind != 'b' and db.kind != 'b':  # two vectors (a row loop's `values[lo:hi] @ x[cols]`)
            return _value(_reduce('sum', a * b, 0, da if da == db else _np.result_type(da, db), None, False))
    if a.ndim == 0 or b.ndim == 0:
        raise ValueError("matmul: Input operand %d does not have enough dimensions (has 0, gufunc core with "
                         "signature (n?,k),(k,m?)->(n?,m?) requires 1)" % (0 if a.ndim == 0 else 1))
    if a.shape[-1] != b.shape[-2 if b.ndim > 1 else 0]:
        raise ValueError("matmul: Input operand 1 has a mismatch in its core dimension 0, with gufunc signature "
                         "(n?,k),(k,m?)->(n?,m?) (size %d is different from %d)"
                         % (b.shape[-2 if b.ndim > 1 else 0], a.shape[-1]))
    a_vec, b_vec = a.ndim == 1, b.ndim == 1
    if a.ndim == 2 and b_vec and a.shape[0] > 1 and a.shape[1] > 1 and \
            builtins.abs(a._strides[1]) > builtins.abs(a._strides[0]):
        # A matrix whose rows are strided (a transposed one: the gradient's
        # `X.T @ err`): the same sums over k, in the same order, computed
        # along a's memory: a.T's axis 0 swept outside its contiguous rows.
        dt = _np.result_type(a.dtype, b.dtype)
        prod = a.T * b._expand_dims(1)
        return _value(_into(_reduce('any' if dt == _np.bool_ else 'sum', prod, 0,
                                    None if dt == _np.bool_ else dt, None, False), out), out)
    if a_vec:
        a = a.reshape((1,) + a.shape)
    if b_vec:
        b = b.reshape(b.shape + (1,))
    stack = _np.broadcast_shapes(a.shape[:-2], b.shape[:-2])  # ValueError if they do not broadcast
    dt = _np.result_type(a.dtype, b.dtype)
    # (..., n, k, 1) * (..., 1, k, m) summed over k.
    prod = a._expand_dims(a.ndim) * b._expand_dims(b.ndim - 2)
    if dt == _np.bool_:
        r = _reduce('any', prod, -2, None, None, False)
    else:
        r = _reduce('sum', prod, -2, dt, None, False)
    if a_vec and b_vec:
        r = r.reshape(stack)
    elif a_vec:
        r = r._squeeze([r.ndim - 2])
    elif b_vec:
        r = r._squeeze([r.ndim - 1])
    return _value(_into(r, out), out)


def dot(a, b, out=None):
    if out is None and type(a) is ndarray and type(b) is ndarray and a.ndim == 1 and b.ndim == 1:
        return a @ b  # (two vectors, the common case first: the type's slot in C++)
    a, b = _operand(a), _operand(b)
    if not isinstance(a, ndarray) and not isinstance(b, ndarray):
        return _np.dot(a, b, out)  # two numbers: NumPy's scalar
    if not isinstance(a, ndarray) or not isinstance(b, ndarray) or a.ndim == 0 or b.ndim == 0:
        return _into(a * b, out)
    if out is None and a.ndim == 1 and b.ndim == 1:
        return a @ b  # (the type's slot: two vectors in C++)
    return matmul(a, b, out=out)


def inner(a, b):
    return dot(a, b)


def vdot(a, b):
    """numpy.vdot: the dot product of the flattened arrays, the first conjugated."""
    return (conjugate(asarray(a).reshape(-1)) * asarray(b).reshape(-1)).sum()


def outer(a, b, out=None):
    a, b = asarray(a).reshape(-1), asarray(b).reshape(-1)
    return _into(a[:, None] * b[None, :], out)


def flush():
    """Runs every pending operation."""
    _core.flush()


# ---- fallback to NumPy (_fallback.py) ----

def _array_ufunc(self, uf, method, *inputs, **kwargs):
    if uf is _np.matmul and method == '__call__':  # a gufunc in NumPy
        return matmul(*inputs, **kwargs)
    mine = UFUNCS.get(uf.__name__)
    if mine is not None and method in ('__call__', 'reduce', 'accumulate', 'outer', 'at', 'reduceat'):
        if method == '__call__':
            return mine(*inputs, **kwargs)
        return getattr(mine, method)(*inputs, **kwargs)
    # NumPy ufuncs arrvm writes as functions (fmax, reciprocal, logaddexp,
    # ...: _elementwise, _complex), called with what those take.
    f = IMPLEMENTED.get(uf.__name__)
    out = kwargs.get('out')
    if isinstance(out, tuple) and len(out) == 1:  # (NumPy hands out= as a tuple)
        out = out[0]
    if f is not None and method == '__call__' and set(kwargs) <= {'out'} and (out is None or isinstance(out, ndarray)):
        return f(*inputs, out=out) if out is not None else f(*inputs)
    return _fallback(getattr(uf, method), uf.__name__ if method == '__call__' else uf.__name__ + '.' + method,
                     inputs, kwargs)


def _linalg_norm(x, ord=None, axis=None, keepdims=False):
    """numpy.linalg.norm's default (2-norm of a vector, Frobenius of a
    matrix: the square root of the sum of squares) over real arrays, fused;
    NotImplemented for the other orders and complex input."""
    x = asarray(x)
    if ord is not None or x.dtype.kind not in 'biuf':
        return NotImplemented
    if x.dtype.kind != 'f':
        x = x.astype(_np.float64)
    return _value(sqrt(_reduce('sum', x * x, axis, None, None, keepdims)))


def _array_function(self, func, types, args, kwargs):
    if func is _np.linalg.norm:  # (Gram-Schmidt and friends call it per column)
        r = _linalg_norm(*args, **kwargs)
        if r is not NotImplemented:
            return r
    name = func.__name__
    mine = IMPLEMENTED.get(name)
    if mine is not None and getattr(_np, name, None) is func:
        return mine(*args, **kwargs)
    # Named as the user spells it (numpy.linalg.norm, not numpy.norm).
    module = getattr(func, '__module__', None) or 'numpy'
    if module.startswith('numpy.'):
        name = module[len('numpy.'):] + '.' + name
    return _fallback(func, name, args, kwargs)


# ---- ndarray methods ----

ndarray.reshape = _m_reshape
ndarray.ravel = lambda self, order='C': ravel(self, order)
ndarray.flatten = _m_flatten
ndarray.transpose = _m_transpose
ndarray.swapaxes = lambda self, a1, a2: swapaxes(self, a1, a2)
ndarray.squeeze = lambda self, axis=None: squeeze(self, axis)
ndarray.astype = _m_astype
ndarray.fill = _m_fill
ndarray.clip = lambda self, a_min=None, a_max=None, out=None: clip(self, a_min, a_max, out)
ndarray.dot = lambda self, b, out=None: dot(self, b, out)
ndarray.take = lambda self, indices, axis=None, out=None, mode='raise': take(self, indices, axis, out, mode)
ndarray.cumsum = lambda self, axis=None, dtype=None, out=None: cumsum(self, axis, dtype, out)
ndarray.cumprod = lambda self, axis=None, dtype=None, out=None: cumprod(self, axis, dtype, out)
ndarray.var = lambda self, axis=None, dtype=None, out=None, ddof=0, keepdims=False: var(
    self, axis, dtype, out, ddof, keepdims)
ndarray.std = lambda self, axis=None, dtype=None, out=None, ddof=0, keepdims=False: std(
    self, axis, dtype, out, ddof, keepdims)
for _name in ('sum', 'prod', 'min', 'max', 'all', 'any', 'mean'):
    setattr(ndarray, _name, _m_reduction(_name))
ndarray.__array_ufunc__ = _array_ufunc
ndarray.__array_function__ = _array_function

IMPLEMENTED = {n: f for n, f in globals().items() if not n.startswith('_') and callable(f) and n not in (
    'ufunc', 'ndarray', 'ArrvmFallbackWarning', 'wrap_numpy', 'flush', 'builtins')}
# numpy.asarray / asanyarray share a NumPy array's memory where the layout allows.
IMPLEMENTED['asarray'] = IMPLEMENTED['asanyarray'] = asarray_shared


def _contiguous(a):
    s = 1
    for n, st in zip(reversed(a.shape), reversed(a._strides)):
        if n != 1 and st != s:
            return False
        s *= n
    return True



# ---- what arrvm cannot compute runs in NumPy ----

# The functions that compute complex arrays natively (data movement, and
# the arithmetic the VM defines on complex dtypes); the others run in NumPy
# when an operand (or dtype=) is complex.
COMPLEX_NATIVE = {
    'array', 'asarray', 'asanyarray', 'ascontiguousarray', 'empty', 'zeros', 'ones', 'full', 'empty_like',
    'zeros_like', 'ones_like', 'full_like', 'reshape', 'ravel', 'transpose', 'swapaxes', 'moveaxis', 'squeeze',
    'expand_dims', 'broadcast_to', 'broadcast_arrays', 'atleast_1d', 'atleast_2d', 'atleast_3d', 'concatenate',
    'stack', 'hstack', 'vstack', 'column_stack', 'copy', 'where', 'take', 'sum', 'prod', 'mean', 'cumsum',
    'cumprod', 'conjugate', 'conj', 'real', 'imag', 'angle', 'square', 'positive', 'count_nonzero',
    'array_equal', 'amin', 'amax', 'all', 'any', 'matmul', 'dot', 'vdot', 'inner', 'outer', 'eye', 'identity',
    'iscomplexobj', 'isrealobj', 'reciprocal', 'fmax', 'fmin', 'float_power', 'logical_and', 'logical_or', 'logical_xor',
    'logical_not', 'roll', 'flip', 'fliplr', 'flipud', 'diag', 'diagonal', 'repeat', 'tile', 'trace', 'diff',
    'meshgrid', 'nonzero', 'flatnonzero', 'argwhere', 'pad', 'max', 'min', 'alltrue', 'sometrue', 'isclose',
    'allclose'}


_COMPLEX_DTYPE = {}


def _complex_dtype(d):
    """Whether dtype-like `d` is complex (np.dtype() of a spelling costs ~0.3 us: remembered)."""
    try:
        return _COMPLEX_DTYPE[d]
    except (KeyError, TypeError):
        pass
    c = _np.dtype(d).kind == 'c'
    if isinstance(d, (type, str, _np.dtype)):
        _COMPLEX_DTYPE[d] = c
    return c


def _dtype_fallback(name, f):
    """`f`, running NumPy's function of the same name (with the fallback
    warning) when an operand or dtype= is a dtype libarrvm does not have,
    or complex where `name` is not in COMPLEX_NATIVE."""
    np_f = getattr(_np, name, None)
    if np_f is None or not callable(np_f) or isinstance(f, ufunc):
        return f
    native = name in COMPLEX_NATIVE

    def g(*args, **kwargs):
        if not native and (_complex_operand(args) or
                           ('dtype' in kwargs and kwargs['dtype'] is not None and
                            _complex_dtype(kwargs['dtype']))):
            return _fallback(np_f, name, args, kwargs)
        try:
            return f(*args, **kwargs)
        except UnsupportedDType:
            return _fallback(np_f, name, args, kwargs)
    g.__name__ = getattr(f, '__name__', name)
    g.__doc__ = getattr(f, '__doc__', None)
    g.__wrapped__ = f
    return g


IMPLEMENTED['round'] = around
# Only the entry points are wrapped (the package namespace and
# __array_function__): calls inside this module keep raising, so that the
# outermost function is the one that runs in NumPy.
IMPLEMENTED.update({n: _dtype_fallback(n, f) for n, f in IMPLEMENTED.items()})


ndarray.round = lambda self, decimals=0, out=None: round_(self, decimals, out)


# NumPy functions built from the ones above (argmax, flip, diag, repeat, tile,
# pad: _composed, _views, _stencil, _elementwise; complex: _complex) import this module and add
# themselves to IMPLEMENTED and to ndarray's methods; the package's
# __init__ imports them after this one. The methods of ndarray that call
# functions of this module find it through _ndarray.F.
_ndarray.set_functions(_sys.modules[__name__])

