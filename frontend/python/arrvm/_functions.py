"""NumPy's functions on arrvm arrays: ufunc objects, creation, shape
manipulation, reductions, dot/matmul. Each is a thin layer over the
extension, whose C++ frontend holds NumPy's rules (promotion, broadcasting,
indexing arithmetic, reduction dtypes)."""
import builtins
import math as _math
import operator as _operator
import sys as _sys
import warnings as _warnings

import numpy as _np

from . import _core, _ndarray
from ._ndarray import (ndarray, asarray, asarray_shared, to_numpy, dtype_code, _is_scalar, _int_of, _wrappable, PY_NUMBERS,
                       foreign, UnsupportedDType, _proxy)
from ._fallback import ArrvmFallbackWarning, _fallback, _warned, wrap_numpy  # noqa: F401 (re-exported)

_float64 = _np.dtype(_np.float64)


def _operand(x):
    """An operand for the extension: arrvm arrays and Python numbers pass, NumPy
    arrays and lists become arrvm arrays, NumPy scalars pass (the slow path
    promotes them like NumPy)."""
    if isinstance(x, (ndarray, bool, int, float, _np.generic)):
        return x
    return asarray(x)


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


def _into(r, out):
    if out is None:
        return r
    out[...] = r
    return out


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


def real(val):
    """numpy.real: a complex array's real parts (a new array: arrvm's views
    keep one dtype), anything else as it is."""
    x = asarray(val)
    return x._astype(dtype_code(_np.float32 if x.dtype == _np.complex64 else _np.float64)) if x.dtype.kind == 'c' else x


def imag(val):
    """numpy.imag: a complex array's imaginary parts, zeros otherwise."""
    x = asarray(val)
    return _core.imag(x) if x.dtype.kind == 'c' else zeros_like(x)


def angle(z, deg=False):
    """numpy.angle: arctan2 of the imaginary and real parts (radians, or degrees)."""
    z = asarray(z)
    if z.dtype.kind == 'c':
        a = _core.ufunc('arctan2', (imag(z), real(z)), None)
    else:
        a = _core.ufunc('arctan2', (zeros_like(z, dtype=_np.float64 if z.dtype.kind != 'f' else z.dtype), z), None)
    return a * (180.0 / _np.pi) if deg else a


def iscomplexobj(x):
    return _np.dtype(getattr(x, 'dtype', _np.asarray(x).dtype)).kind == 'c'


def isrealobj(x):
    return not iscomplexobj(x)


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


# ---- creation ----

def _dt(dtype, default=_float64):
    return dtype_code(default if dtype is None else dtype)


def array(obj, dtype=None, copy=True, order=None, ndmin=0, **kwargs):
    if isinstance(obj, ndarray):
        r = obj.astype(dtype) if dtype is not None else (obj.copy() if copy else obj)
    else:
        r = asarray(obj, dtype=dtype)
    while r.ndim < ndmin:
        r = r._expand_dims(0)
    return r


def asanyarray(obj, dtype=None, **kwargs):
    return asarray(obj, dtype)


def ascontiguousarray(obj, dtype=None, **kwargs):
    return asarray(obj, dtype)


def _shape(shape):
    n = _int_of(shape)
    return (n,) if n is not None else tuple(builtins.int(s) for s in shape)


def empty(shape, dtype=None, order='C', **kwargs):
    return _core.empty(_shape(shape), _dt(dtype))


def zeros(shape, dtype=None, order='C', **kwargs):
    return _core.full(_shape(shape), 0, _dt(dtype))


def ones(shape, dtype=None, order='C', **kwargs):
    return _core.full(_shape(shape), 1, _dt(dtype))


def full(shape, fill_value, dtype=None, order='C', **kwargs):
    if isinstance(fill_value, ndarray) or not _is_scalar(fill_value):
        fv = asarray(fill_value)
        r = empty(shape, dtype if dtype is not None else fv.dtype)
        r[...] = fv
        return r
    if dtype is None:
        dtype = _np.array(fill_value).dtype
    if isinstance(fill_value, _np.generic):
        fill_value = fill_value.item()
    return _core.full(_shape(shape), fill_value, _dt(dtype))


def _like(a, dtype, shape):
    a = _operand(a)
    return (a.dtype if dtype is None else dtype), (a.shape if shape is None else shape)


def empty_like(a, dtype=None, order='K', subok=True, shape=None):
    d, s = _like(a, dtype, shape)
    return empty(s, d)


def zeros_like(a, dtype=None, order='K', subok=True, shape=None):
    d, s = _like(a, dtype, shape)
    return zeros(s, d)


def ones_like(a, dtype=None, order='K', subok=True, shape=None):
    d, s = _like(a, dtype, shape)
    return ones(s, d)


def full_like(a, fill_value, dtype=None, order='K', subok=True, shape=None):
    d, s = _like(a, dtype, shape)
    return full(s, fill_value, d)


def _num(x):
    if isinstance(x, ndarray):
        return x.item()
    if isinstance(x, _np.generic):
        return x.item()
    return x


_INT_CODE = dtype_code(_np.arange(0, 1, 1).dtype)  # NumPy's default integer
_FLOAT64_CODE = dtype_code(_float64)


def arange(start, stop=None, step=None, dtype=None, **kwargs):
    # Python ints and floats, no dtype (the usual call, often in a loop):
    # straight to the extension.
    if dtype is None and not kwargs:
        a, b = (0, start) if stop is None else (start, stop)
        c = 1 if step is None else step
        ta, tb, tc = type(a), type(b), type(c)
        if ta is int and tb is int and tc is int:
            return _core.arange(a, b, c, _INT_CODE)
        if ta in (int, float) and tb in (int, float) and tc in (int, float):
            return _core.arange(builtins.float(a), builtins.float(b), builtins.float(c), _FLOAT64_CODE)
    if dtype is not None:
        dtype_code(dtype)  # UnsupportedDType (datetime64, ...): NumPy's arange
    start, stop, step = _num(start), _num(stop), _num(step)
    if stop is None:
        start, stop = 0, start
    if step is None:
        step = 1
    if dtype is None:
        dtype = _np.arange(0, 1, 1, dtype=None).dtype if builtins.all(
            isinstance(x, (int, bool)) for x in (start, stop, step)) else _float64
    d = _np.dtype(dtype)
    if d.kind == 'f' or builtins.any(isinstance(x, float) for x in (start, stop, step)):
        return _core.arange(builtins.float(start), builtins.float(stop), builtins.float(step), dtype_code(d))
    return _core.arange(builtins.int(start), builtins.int(stop), builtins.int(step), dtype_code(d))


def linspace(start, stop, num=50, endpoint=True, retstep=False, dtype=None, axis=0):
    start, stop, num = builtins.float(_num(start)), builtins.float(_num(stop)), builtins.int(num)
    div = (num - 1) if endpoint else num
    step = (stop - start) / div if div > 0 else _np.nan
    y = _core.arange(0, num, 1, dtype_code(_np.float64))
    if div > 0:
        y = y * step + start
    else:
        y = y * (stop - start) + start
    if endpoint and num > 1:
        y[-1] = stop
    if dtype is not None:
        y = y.astype(dtype)
    return (y, _np.float64(step)) if retstep else y  # (NumPy: a float64 step)


def eye(N, M=None, k=0, dtype=float, order='C', **kwargs):
    M = N if M is None else M
    r = zeros((N, M), dtype)
    n = builtins.min(N, M - k) if k >= 0 else builtins.min(N + k, M)
    if n > 0:
        start = k if k >= 0 else -k * M
        r.reshape(-1)[start:start + (n - 1) * (M + 1) + 1:M + 1] = 1
    return r


def identity(n, dtype=None, **kwargs):
    return eye(n, dtype=float if dtype is None else dtype)


# ---- shape manipulation ----

def _shape_args(shape):
    if len(shape) == 1 and not isinstance(shape[0], (int, _np.integer)):
        return tuple(shape[0])
    return shape


def _m_reshape(self, *shape, order='C'):
    if order != 'C':
        raise NotImplementedError("arrvm: reshape supports order='C' only")
    return self._reshape(_shape_args(shape))


def reshape(a, newshape, order='C'):
    return _m_reshape(asarray(a), newshape, order=order)


def _in_order(a, order):
    """`a`, or its transpose when NumPy's `order` reads it in Fortran order."""
    if order == 'F' or (order in ('A', 'K') and a.ndim > 1 and a.flags.f_contiguous and not a.flags.c_contiguous):
        return a._transpose([])
    if order not in ('C', 'A', 'K', None):
        raise ValueError("order must be one of 'C', 'F', 'A', or 'K' (got %r)" % (order,))
    return a


def ravel(a, order='C'):
    return _in_order(asarray(a), order)._reshape((-1,))


def _m_flatten(self, order='C'):
    return _in_order(self, order).copy()._reshape((-1,))


def _m_transpose(self, *axes):
    axes = _shape_args(axes) if axes else ()
    if axes == (None,):
        axes = ()
    return self._transpose([builtins.int(a) for a in axes])


def transpose(a, axes=None):
    return asarray(a)._transpose([] if axes is None else [builtins.int(x) for x in axes])


def swapaxes(a, axis1, axis2):
    a = asarray(a)
    axes = list(range(a.ndim))
    i, j = _norm_axis(axis1, a.ndim), _norm_axis(axis2, a.ndim)
    axes[i], axes[j] = axes[j], axes[i]
    return a._transpose(axes)


def moveaxis(a, source, destination):
    a = asarray(a)
    src = [_norm_axis(x, a.ndim) for x in (source if isinstance(source, (list, tuple)) else [source])]
    dst = [_norm_axis(x, a.ndim) for x in (destination if isinstance(destination, (list, tuple)) else [destination])]
    if len(src) != len(dst):
        raise ValueError("`source` and `destination` arguments must have the same number of elements")
    order = [i for i in range(a.ndim) if i not in src]
    for d, s_ in sorted(zip(dst, src)):
        order.insert(d, s_)
    return a._transpose(order)


def _norm_axis(axis, ndim):
    axis = _operator.index(axis)
    if axis < -ndim or axis >= ndim:
        raise _np.AxisError(axis, ndim)
    return axis % ndim if ndim else 0


def squeeze(a, axis=None):
    a = asarray(a)
    if axis is None:
        return a._squeeze([])
    return a._squeeze([_int_of(axis)] if _int_of(axis) is not None else list(axis))


def expand_dims(a, axis):
    a = asarray(a)
    axes = [_int_of(axis)] if _int_of(axis) is not None else list(axis)
    nd = a.ndim + len(axes)
    for ax in sorted(x % nd for x in axes):
        a = a._expand_dims(ax)
    return a


def broadcast_to(a, shape, subok=False):
    return asarray(a)._broadcast_to(_shape(shape))


def broadcast_arrays(*args, subok=False):
    arrays = [asarray(a) for a in args]
    shape = _np.broadcast_shapes(*[a.shape for a in arrays])
    return [a._broadcast_to(shape) for a in arrays]


def atleast_1d(*arys):
    res = [asarray(a) if asarray(a).ndim >= 1 else asarray(a).reshape(1) for a in arys]
    return res[0] if len(res) == 1 else res


def atleast_2d(*arys):
    res = []
    for a in arys:
        a = asarray(a)
        res.append(a.reshape(1, 1) if a.ndim == 0 else a[None, :] if a.ndim == 1 else a)
    return res[0] if len(res) == 1 else res


def concatenate(arrays, axis=0, out=None, dtype=None, **kwargs):
    arrays = [asarray(a) for a in arrays]
    if axis is None:
        arrays, axis = [a.reshape(-1) for a in arrays], 0
    if not arrays:
        raise ValueError("need at least one array to concatenate")
    nd = arrays[0].ndim
    if nd == 0:
        raise ValueError("zero-dimensional arrays cannot be concatenated")
    axis = _norm_axis(axis, nd)
    for a in arrays:
        if a.ndim != nd:
            raise ValueError("all the input array dimensions except for the concatenation axis must match "
                             "exactly, but along dimension 0, the arrays have different numbers of dimensions")
        if a.shape[:axis] + a.shape[axis + 1:] != arrays[0].shape[:axis] + arrays[0].shape[axis + 1:]:
            raise ValueError("all the input array dimensions except for the concatenation axis must match exactly")
    dt = dtype if dtype is not None else _np.result_type(*[a.dtype for a in arrays])
    shape = list(arrays[0].shape)
    shape[axis] = builtins.sum(a.shape[axis] for a in arrays)
    r = empty(tuple(shape), dt) if out is None else out
    at = 0
    for a in arrays:
        n = a.shape[axis]
        r[(slice(None),) * axis + (slice(at, at + n),)] = a
        at += n
    return r


def stack(arrays, axis=0, out=None, **kwargs):
    arrays = [asarray(a) for a in arrays]
    if not arrays:
        raise ValueError("need at least one array to stack")
    if builtins.any(a.shape != arrays[0].shape for a in arrays):
        raise ValueError("all input arrays must have the same shape")
    ax = axis % (arrays[0].ndim + 1)
    return concatenate([a._expand_dims(ax) for a in arrays], axis=ax, out=out)


def hstack(tup, **kwargs):
    arrs = [atleast_1d(a) for a in tup]
    return concatenate(arrs, axis=0 if arrs[0].ndim == 1 else 1)


def vstack(tup, **kwargs):
    return concatenate([atleast_2d(a) for a in tup], axis=0)


def column_stack(tup):
    arrs = [asarray(a) for a in tup]
    return concatenate([a.reshape(-1, 1) if a.ndim < 2 else a for a in arrs], axis=1)


def copy(a, order='K', subok=False):
    return asarray(a).copy()


def _m_astype(self, dtype, order='K', casting='unsafe', subok=True, copy=True):
    if self.dtype.kind == 'c' and _np.dtype(dtype).kind != 'c' and _np.dtype(dtype).kind != 'b':
        _warnings.warn("Casting complex values to real discards the imaginary part", _np.ComplexWarning,
                       stacklevel=2)
    try:
        code = dtype_code(dtype)
    except UnsupportedDType:  # complex64, float16, ...: the NumPy array NumPy gives
        return _fallback(_np.ndarray.astype, 'ndarray.astype', (self, dtype), {'casting': casting})
    if not copy and code == self._dt:
        return self
    return self._astype(code)


def where(condition, x=None, y=None):
    if x is None and y is None:
        return tuple(asarray(i) for i in _np.nonzero(to_numpy(asarray(condition))))
    if x is None or y is None:
        raise ValueError("either both or neither of x and y should be given")
    cond = asarray(condition)
    ops = []
    for v in (x, y):
        if isinstance(v, ndarray) or isinstance(v, PY_NUMBERS):
            ops.append(v)
        elif isinstance(v, _np.generic):
            ops.append(v)
        else:
            ops.append(asarray(v))
    if builtins.any(isinstance(v, _np.generic) for v in ops) or builtins.sum(isinstance(v, ndarray) for v in ops) == 2 and \
            ops[0].dtype != ops[1].dtype and (ops[0].ndim == 0) != (ops[1].ndim == 0):
        dt = _np.result_type(*[_proxy(v) for v in ops])
        ops = [v.astype(dt) if isinstance(v, ndarray) else (v.item() if isinstance(v, _np.generic) else v)
               for v in ops]
        if not builtins.any(isinstance(v, ndarray) for v in ops):
            ops[0] = full((), ops[0], dt)
    return _core.where(cond, ops[0], ops[1])


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


def take(a, indices, axis=None, out=None, mode='raise'):
    a = asarray(a)
    if axis is None:
        return _into(a.reshape(-1)[asarray(indices)], out)
    return _into(a[(slice(None),) * _norm_axis(axis, a.ndim) + (asarray(indices),)], out)


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
    def method(self, axis=None, dtype=None, out=None, keepdims=False, **kwargs):
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
ndarray.take = lambda self, indices, axis=None, out=None, mode='raise': take(self, indices, axis, out)
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
    'iscomplexobj', 'isrealobj'}


def _complex_operand(x):
    if isinstance(x, complex):
        return True
    if isinstance(x, (ndarray, _np.ndarray, _np.generic)):
        return x.dtype.kind == 'c'
    if isinstance(x, (list, tuple)):
        return builtins.any(_complex_operand(y) for y in x)
    return False


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
                            _np.dtype(kwargs['dtype']).kind == 'c')):
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


def _method_fallback(name):
    """numpy.ndarray's method `name` on the synced data, results back as arrvm
    arrays; methods that sort or write in place write the result back."""
    np_method = getattr(_np.ndarray, name)
    in_place = name in ('sort', 'partition', 'put', 'itemset')

    def method(self, *args, **kwargs):
        if not in_place:
            return _fallback(np_method, 'ndarray.' + name, (self,) + args, kwargs)
        host = _np.array(to_numpy(self))
        _fallback(np_method, 'ndarray.' + name, (host,) + args, kwargs)
        self[...] = host
        return None
    method.__name__ = name
    return method


ndarray.conj = ndarray.conjugate = lambda self: conjugate(self)
ndarray.round = lambda self, decimals=0, out=None: round_(self, decimals, out)


def _set_real(self, value):
    if self.dtype.kind != 'c':
        self[...] = value
        return
    self[...] = _core.make_complex(asarray(value, real(self).dtype), imag(self))


def _set_imag(self, value):
    if self.dtype.kind != 'c':
        raise TypeError("array does not have imaginary part to set")
    self[...] = _core.make_complex(real(self), asarray(value, real(self).dtype))


# .real and .imag of a complex array are new arrays (an arrvm view has its
# base's dtype), assignable: z.real = x writes z's real parts.
ndarray.real = property(lambda self: real(self) if self.dtype.kind == 'c' else self, _set_real)
ndarray.imag = property(imag, _set_imag)


def _complex_method(name, method):
    """ndarray.`name`, NumPy's on a complex array (var, std, clip, ...)."""
    np_method = getattr(_np.ndarray, name)

    def m(self, *args, **kwargs):
        if self.dtype.kind == 'c':
            return _fallback(np_method, 'ndarray.' + name, (self,) + args, kwargs)
        return method(self, *args, **kwargs)
    m.__name__ = name
    return m


for _name in ('var', 'std', 'clip', 'round'):
    setattr(ndarray, _name, _complex_method(_name, getattr(ndarray, _name)))
# Methods NumPy has and arrvm does not compute (argmax, argsort, sort, repeat,
# searchsorted, ...): NumPy runs them on the synced data. Raw-memory ones
# (view, resize, tofile, flags ...) are left out: they would act on a copy.
for _name in ('argpartition', 'argsort', 'choose', 'compress', 'ptp',
              'searchsorted', 'sort', 'partition', 'put', 'itemset', 'tobytes', 'tostring', 'dump', 'dumps'):
    if not hasattr(ndarray, _name) and hasattr(_np.ndarray, _name):
        setattr(ndarray, _name, _method_fallback(_name))

# NumPy functions built from the ones above (argmax, flip, diag, repeat, tile,
# pad: _composed, _views, _stencil, _elementwise) import this module and add
# themselves to IMPLEMENTED and to ndarray's methods; the package's
# __init__ imports them after this one. The methods of ndarray that call
# functions of this module find it through _ndarray.F.
_ndarray.set_functions(_sys.modules[__name__])

