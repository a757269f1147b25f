"""NumPy's creation and shape-manipulation functions on arrvm arrays (array,
zeros, arange, linspace, reshape, transpose, concatenate, where, ...) and
the operand helpers _functions shares. _functions imports every name back,
so `arrvm._functions.arange` and the package's names are as before; this
module needs nothing of _functions (the package imports in one direction)."""
import builtins
import operator as _operator
import warnings as _warnings

import numpy as _np

from . import _core
from ._ndarray import (ndarray, asarray, to_numpy, dtype_code, _is_scalar, _int_of, PY_NUMBERS, UnsupportedDType,
                       _proxy, _CODE_OF)
from ._fallback import _fallback

_float64 = _np.dtype(_np.float64)


def _operand(x):
    """An operand for the extension: arrvm arrays and Python numbers pass, NumPy
    arrays and lists become arrvm arrays, NumPy scalars pass (the slow path
    promotes them like NumPy)."""
    if isinstance(x, (ndarray, bool, int, float, _np.generic)):
        return x
    return asarray(x)


def _into(r, out):
    if out is None:
        return r
    out[...] = r
    return out


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
    t = type(shape)
    if t is int:
        return (shape,)
    if t is tuple:  # (an array's .shape: ints already)
        for s in shape:
            if type(s) is not int:
                break
        else:
            return shape
    n = _int_of(shape)
    return (n,) if n is not None else tuple(builtins.int(s) for s in shape)


def empty(shape, dtype=None, order='C', **kwargs):
    return _core.empty(_shape(shape), _dt(dtype))


def zeros(shape, dtype=None, order='C', **kwargs):
    # (A base never written reads as zeros on every backend, docs/architecture.md:
    # no fill to run, as NumPy's calloc.)
    return _core.empty(_shape(shape), _dt(dtype))


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
    # (Lean: a row loop concatenates small pieces, `np.concatenate([[i], best - j])`;
    # generators and dtype objects here cost microseconds a call.)
    arrays = [a if type(a) is ndarray else asarray(a) for a in arrays]
    if axis is None:
        arrays, axis = [a.reshape(-1) for a in arrays], 0
    if not arrays:
        raise ValueError("need at least one array to concatenate")
    first = arrays[0]
    shape = first.shape
    nd = len(shape)
    if nd == 0:
        raise ValueError("zero-dimensional arrays cannot be concatenated")
    axis = _norm_axis(axis, nd)
    rest = shape[:axis] + shape[axis + 1:]
    code = first._dt
    mixed = False
    total = 0
    for a in arrays:
        s = a.shape
        if len(s) != nd:
            raise ValueError("all the input array dimensions except for the concatenation axis must match "
                             "exactly, but along dimension 0, the arrays have different numbers of dimensions")
        if s[:axis] + s[axis + 1:] != rest:
            raise ValueError("all the input array dimensions except for the concatenation axis must match exactly")
        mixed = mixed or a._dt != code
        total += s[axis]
    if dtype is not None:
        code = dtype_code(dtype)
    elif mixed:  # (NumPy's result_type costs ~1 us: only for pieces of several dtypes)
        code = dtype_code(_np.result_type(*[a.dtype for a in arrays]))
    if out is None:
        r = _core.empty(shape[:axis] + (total,) + shape[axis + 1:], code)
    else:
        r = out
    at = 0
    lead = (slice(None),) * axis
    for a in arrays:
        n = a.shape[axis]
        if axis == 0:
            r[at:at + n] = a
        else:
            r[lead + (slice(at, at + n),)] = a
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


_COMPLEX_CODES = (11, 12)  # complex64, complex128 (_ndarray._NAMES)


def _m_astype(self, dtype, order='K', casting='unsafe', subok=True, copy=True):
    # (The common case first: a spelling seen before, a real array; 0.87 ->
    # ~0.6 us, most of it the C call.)
    try:
        code = _CODE_OF[dtype]
    except (KeyError, TypeError):
        code = None
    if code is not None:
        dt = self._dt
        if dt not in _COMPLEX_CODES:
            return self if not copy and code == dt else self._astype(code)
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
