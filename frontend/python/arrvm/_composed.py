"""NumPy functions that arrvm builds from its other operations, so the VM
fuses them and nothing syncs: argmax/argmin (max, ==, where, min), flip
(views), diag/diagonal (strided views), repeat/tile (broadcasts), pad
(constant mode), convolve/correlate (shifted slices). the package imports this module after _functions; each function
is added to IMPLEMENTED (with the dtype fallback) and to ndarray's methods."""
import builtins
import operator as _operator

import numpy as _np

from ._functions import (IMPLEMENTED, _contiguous, _dtype_fallback, _fallback, _into, arange, broadcast_to,
                         expand_dims, full, isnan, where, zeros)
from ._ndarray import ndarray, asarray, _is_scalar, _int_of


# ---- argmax / argmin as fused reductions (no sync) ----

def _arg_extreme(name, a, axis=None, out=None, keepdims=False):
    """NumPy's argmax/argmin from opcodes the VM fuses: the first index whose
    element equals the max (min) along the axis, or the first NaN (NumPy's
    rule: a NaN is the extreme): min over where((a == m) | isnan(a), i, n)."""
    a = asarray(a)
    if axis is None and out is None and not keepdims:
        r = a._arg_extreme_now(name == 'argmax')  # a small array nothing pending writes: read at once
        if r is not None:
            return r
    if a.dtype == _np.bool_:
        a = a.astype(_np.int8)
    if axis is None:
        flat = a.reshape(-1) if a.ndim != 1 else a
        r = _arg_extreme(name, flat, 0)
        if keepdims:
            r = r.reshape((1,) * a.ndim)
        return _into(r, out)
    if not -a.ndim <= axis < a.ndim:
        raise _np.AxisError("axis %d is out of bounds for array of dimension %d" % (axis, a.ndim))
    axis %= a.ndim
    n = a.shape[axis]
    if n == 0:
        raise ValueError("attempt to get %s of an empty sequence" % name)
    m = a.max(axis=axis, keepdims=True) if name == 'argmax' else a.min(axis=axis, keepdims=True)
    hit = a == m
    if a.dtype.kind == 'f':
        hit = hit | isnan(a)
    index = arange(n, dtype=_np.int64).reshape((n,) + (1,) * (a.ndim - axis - 1))
    r = where(hit, index, n).min(axis=axis, keepdims=keepdims)
    return _into(r, out)


def argmax(a, axis=None, out=None, keepdims=False):
    return _arg_extreme('argmax', a, axis, out, keepdims)


def argmin(a, axis=None, out=None, keepdims=False):
    return _arg_extreme('argmin', a, axis, out, keepdims)


def flip(m, axis=None):
    """A view with the axes reversed (all axes, or those in `axis`)."""
    m = asarray(m)
    axes = range(m.ndim) if axis is None else [_int_of(axis)] if _int_of(axis) is not None else axis
    key = [slice(None)] * m.ndim
    for ax in axes:
        if not -m.ndim <= ax < m.ndim:
            raise _np.AxisError("axis %d is out of bounds for array of dimension %d" % (ax, m.ndim))
        key[ax % m.ndim] = slice(None, None, -1)
    return m[tuple(key)]


def fliplr(m):
    return flip(m, 1)


def flipud(m):
    return flip(m, 0)




def diagonal(a, offset=0, axis1=0, axis2=1):
    """The k-th diagonals of the 2-D subarrays of axes axis1 and axis2, on a
    last axis (NumPy's order): a strided view of a contiguous matrix
    (NumPy's is a read-only view), else gathered."""
    a = asarray(a)
    if a.ndim < 2:
        raise ValueError("diag requires an array of at least two dimensions")
    ax1, ax2 = _normalize_axis(axis1, a.ndim), _normalize_axis(axis2, a.ndim)
    if ax1 == ax2:
        raise ValueError("axis1 and axis2 cannot be the same")
    n, m = a.shape[ax1], a.shape[ax2]
    length = builtins.max(0, builtins.min(n, m - offset) if offset >= 0 else builtins.min(n + offset, m))
    if a.ndim == 2 and (ax1, ax2) == (0, 1):
        if length == 0:
            return zeros((0,), a.dtype)
        start = offset if offset >= 0 else -offset * m
        flat = a.reshape(-1) if _contiguous(a) else a.copy().reshape(-1)
        return flat[start:start + (length - 1) * (m + 1) + 1:m + 1]
    rest = [d for d in range(a.ndim) if d not in (ax1, ax2)]
    b = a._transpose(rest + [ax1, ax2])
    if length == 0:
        return zeros(b.shape[:-2] + (0,), a.dtype)
    i = _np.arange(length)
    return b[(Ellipsis, i + builtins.max(-offset, 0), i + builtins.max(offset, 0))]


def _normalize_axis(axis, ndim):
    axis = _operator.index(axis)
    if not -ndim <= axis < ndim:
        raise _np.AxisError(axis, ndim)
    return axis % ndim


def fill_diagonal(a, val, wrap=False):
    """NumPy's fill_diagonal on an arrvm array, as a strided view of its flat
    memory written in place (lazy): a scalar `val` on a C-contiguous array;
    anything else runs in NumPy (written back)."""
    if not isinstance(a, ndarray) or not _is_scalar(val) or not _contiguous(a):
        return _fallback(_np.fill_diagonal, 'fill_diagonal', (a, val, wrap), {})
    if a.ndim < 2:
        raise ValueError("array must be at least 2-d")
    if a.ndim == 2:
        step = a.shape[1] + 1
        end = None if wrap else a.shape[1] * a.shape[1]
    else:
        if builtins.any(n != a.shape[0] for n in a.shape):
            raise ValueError("All dimensions of input must be of equal length")
        step, prod = 1, 1
        for n in a.shape[:-1]:
            prod *= n
            step += prod
        end = None
    if a.size:
        a.reshape(-1)[:end:step] = val


def diag(v, k=0):
    """NumPy's diag: the k-th diagonal of a 2-D array, or a 2-D array with
    the 1-D `v` on its k-th diagonal."""
    v = asarray(v)
    if v.ndim == 2:
        return diagonal(v, k)
    if v.ndim != 1:
        raise ValueError("Input must be 1- or 2-d.")
    n = v.shape[0] + builtins.abs(k)
    r = zeros((n, n), v.dtype)
    diagonal(r, k)[...] = v
    return r




# ---- repeat, tile, pad: broadcasts and copies the VM fuses ----

def repeat(a, repeats, axis=None):
    """Each element `repeats` times along `axis` (flattened if None). An array
    of repeat counts runs in NumPy."""
    if _int_of(repeats) is None:
        return _fallback(_np.repeat, 'repeat', (a, repeats, axis), {})
    repeats = _int_of(repeats)
    a = asarray(a)
    if axis is None:
        a, axis = a.reshape(-1), 0
    if not -a.ndim <= axis < a.ndim:
        raise _np.AxisError("axis %d is out of bounds for array of dimension %d" % (axis, a.ndim))
    axis %= a.ndim
    if repeats < 0:
        raise ValueError("repeats may not contain negative values.")
    shape = a.shape
    wide = broadcast_to(expand_dims(a, axis + 1), shape[:axis + 1] + (int(repeats),) + shape[axis + 1:])
    return wide.reshape(shape[:axis] + (shape[axis] * int(repeats),) + shape[axis + 1:])


def tile(A, reps):
    """A repeated reps[i] times along axis i (NumPy's rules for the ranks)."""
    A = asarray(A)
    reps = (_int_of(reps),) if _int_of(reps) is not None else tuple(int(r) for r in reps)
    d = builtins.max(len(reps), A.ndim)
    shape = (1,) * (d - A.ndim) + A.shape
    reps = (1,) * (d - len(reps)) + reps
    inter = []
    for r, s in zip(reps, shape):
        inter += [1, s]
    wide = broadcast_to(A.reshape(tuple(inter)), tuple(x for r, s in zip(reps, shape) for x in (r, s)))
    return wide.reshape(tuple(r * s for r, s in zip(reps, shape)))


def pad(array, pad_width, mode='constant', **kwargs):
    """NumPy's pad in mode 'constant' with one scalar constant_values; other
    modes and per-axis constants run in NumPy."""
    c = kwargs.get('constant_values', 0)
    if mode != 'constant' or builtins.any(k != 'constant_values' for k in kwargs) or not _is_scalar(c):
        return _fallback(_np.pad, 'pad', (array, pad_width), dict(kwargs, mode=mode))
    a = asarray(array)
    widths = _np.broadcast_to(_np.asarray(pad_width, dtype=_np.int64), (a.ndim, 2))
    if (widths < 0).any():
        raise ValueError("index can't contain negative values")
    out = full(tuple(int(s + lo + hi) for s, (lo, hi) in zip(a.shape, widths)), c, dtype=a.dtype)
    out[tuple(slice(int(lo), int(lo) + s) for s, (lo, hi) in zip(a.shape, widths))] = a
    return out


# Kernels longer than this run in NumPy: each of its elements is one
# instruction over the signal (a moving average's window fuses into one
# kernel; a long filter would be a batch of thousands).
_CONVOLVE_TAPS = 256


def _shifted_sum(a, v, mode, name):
    """NumPy's convolve/correlate of 1-D a and v as a sum of shifted slices:
    out[k + j] += a[j] * w[k] for each tap k (w: v reversed for convolve),
    the taps as 0-d views (no sync), in NumPy's order of the taps."""
    n, m = a.shape[0], v.shape[0]
    if n == 0 or m == 0:
        raise ValueError('%s cannot be empty' % ('a' if n == 0 else 'v'))
    if mode not in ('full', 'same', 'valid'):
        raise ValueError("mode must be one of 'full', 'same' or 'valid' (got %r)" % (mode,))
    dtype = _np.result_type(a.dtype, v.dtype)  # (bool runs in NumPy: convolve, correlate)
    a, w = a.astype(dtype), v.astype(dtype)
    if name == 'convolve':
        w = w[::-1]
    out = zeros(n + m - 1, dtype=dtype)
    for k in range(m):
        # full output index i = j + (m - 1 - k) for a[j] and tap w[k]
        s = m - 1 - k
        out[s:s + n] += a * w[k]
    if mode == 'full':
        return out
    if mode == 'same':
        start = (builtins.min(n, m) - 1) // 2
        return out[start:start + builtins.max(n, m)]
    return out[builtins.min(n, m) - 1:builtins.max(n, m)]


def convolve(a, v, mode='full'):
    """NumPy's convolve of two 1-D arrays, fused: one multiply-add per tap
    over the signal (taps beyond a limit, and 0-d or n-d inputs, in NumPy)."""
    a, v = asarray(a), asarray(v)
    if a.ndim != 1 or v.ndim != 1 or builtins.min(a.shape[0], v.shape[0]) > _CONVOLVE_TAPS or \
            _np.result_type(a.dtype, v.dtype) == _np.bool_:
        return _fallback(_np.convolve, 'convolve', (a, v), {'mode': mode})
    if v.shape[0] > a.shape[0]:
        a, v = v, a  # (convolution commutes)
    return _shifted_sum(a, v, mode, 'convolve')


def correlate(a, v, mode='valid'):
    """NumPy's correlate of two 1-D arrays (real data), fused like convolve."""
    a, v = asarray(a), asarray(v)
    if a.ndim != 1 or v.ndim != 1 or v.shape[0] > _CONVOLVE_TAPS or v.shape[0] > a.shape[0] or \
            _np.result_type(a.dtype, v.dtype) == _np.bool_:
        return _fallback(_np.correlate, 'correlate', (a, v), {'mode': mode})
    return _shifted_sum(a, v, mode, 'correlate')


def ndim(a):
    """The number of axes (no sync: the shape is known without the data)."""
    return a.ndim if isinstance(a, ndarray) else _np.ndim(a)


def isscalar(element):
    """A 0-d arrvm array stands for NumPy's scalar (x[i], a.sum())."""
    return (isinstance(element, ndarray) and element.ndim == 0) or _np.isscalar(element)


def shape(a):
    return a.shape if isinstance(a, ndarray) else _np.shape(a)


def size(a, axis=None):
    if not isinstance(a, ndarray):
        return _np.size(a, axis)
    return a.size if axis is None else a.shape[axis]


ndarray.argmax = lambda self, axis=None, out=None, keepdims=False: argmax(self, axis, out, keepdims)
ndarray.argmin = lambda self, axis=None, out=None, keepdims=False: argmin(self, axis, out, keepdims)
ndarray.diagonal = lambda self, offset=0, axis1=0, axis2=1: diagonal(self, offset, axis1, axis2)
ndarray.repeat = lambda self, repeats, axis=None: repeat(self, repeats, axis)
IMPLEMENTED.update({f.__name__: _dtype_fallback(f.__name__, f)
                    for f in (argmax, argmin, flip, fliplr, flipud, diagonal, diag, repeat, tile, pad, fill_diagonal,
                              convolve, correlate)})
IMPLEMENTED.update({f.__name__: f for f in (ndim, shape, size, isscalar)})
