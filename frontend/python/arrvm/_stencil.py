"""More of NumPy's functions that stencil and index programs use: roll
(two slice copies per axis), diff, meshgrid, indices (broadcast aranges),
tri/tril/triu (a broadcast comparison and a where), trace (with any axes),
nonzero / flatnonzero / argwhere (computed in NumPy on synced data: their
length is data-dependent). the package imports this module after _functions."""
import builtins

import numpy as _np

from ._functions import (IMPLEMENTED, _contiguous, _dtype_fallback, _into, _norm_axis, arange, broadcast_to,
                         empty, greater_equal, not_equal, subtract, where, zeros)
from ._ndarray import ndarray, asarray, to_numpy
from . import _composed


def roll(a, shift, axis=None):
    """NumPy's roll as two slice copies per axis (lazy, fusable)."""
    a = asarray(a)
    if axis is None and a.ndim != 1:
        return roll(a.reshape(-1), shift, 0).reshape(a.shape)
    if axis is None:
        axis = 0  # (a 1-D array: no reshapes, 3 us of a rule-30 step's 36)
    shifts = shift if isinstance(shift, (tuple, list)) else (shift,)
    axes = axis if isinstance(axis, (tuple, list)) else (axis,)
    if len(shifts) == 1 and len(axes) > 1:
        shifts = shifts * len(axes)
    if len(axes) == 1 and len(shifts) > 1:
        axes = axes * len(shifts)
    if len(shifts) != len(axes):
        raise ValueError("'shift' and 'axis' should be scalars or 1D sequences")
    r = a
    for s, ax in zip(shifts, axes):
        ax = _norm_axis(ax, a.ndim)
        n = a.shape[ax]
        s = builtins.int(s) % n if n else 0
        if s == 0:
            r = r.copy() if r is a else r
            continue
        r = r._roll(s, ax)  # out[..., s:] = r[..., :n-s]; out[..., :s] = r[..., n-s:]
    return r


def diff(a, n=1, axis=-1):
    a = asarray(a)
    ax = _norm_axis(axis, a.ndim)
    for _ in range(n):
        hi = (slice(None),) * ax + (slice(1, None),)
        lo = (slice(None),) * ax + (slice(None, -1),)
        a = subtract(a[hi], a[lo]) if a.dtype != _np.bool_ else not_equal(a[hi], a[lo])
    return a


def meshgrid(*xi, copy=True, sparse=False, indexing='xy'):
    xs = [asarray(x).reshape(-1) for x in xi]
    nd = len(xs)
    shapes = [x.shape[0] for x in xs]
    if indexing == 'xy' and nd > 1:
        shapes[0], shapes[1] = shapes[1], shapes[0]
    out = []
    for i, x in enumerate(xs):
        pos = i
        if indexing == 'xy' and nd > 1 and i < 2:
            pos = 1 - i
        shape = [1] * nd
        shape[pos] = x.shape[0]
        v = x.reshape(tuple(shape))
        out.append(v if sparse else (broadcast_to(v, tuple(shapes)).copy() if copy else broadcast_to(v, tuple(shapes))))
    return out


def indices(dimensions, dtype=int, sparse=False):
    """NumPy's indices: r[i] is arange(dimensions[i]) along axis i, broadcast
    (or, sparse, each arange shaped to broadcast)."""
    dimensions = tuple(builtins.int(d) for d in dimensions)
    nd = len(dimensions)
    axes = [arange(d, dtype=dtype).reshape((1,) * i + (d,) + (1,) * (nd - i - 1)) for i, d in enumerate(dimensions)]
    if sparse:
        return tuple(axes)
    r = empty((nd,) + dimensions, dtype=dtype)
    for i, ax in enumerate(axes):
        r[i] = ax
    return r


def tri(N, M=None, k=0, dtype=float, **kwargs):
    """NumPy's tri: ones at and below the k-th diagonal of an N x M array."""
    M = N if M is None else M
    m = greater_equal(arange(N).reshape(N, 1), arange(-k, M - k).reshape(1, M))
    return m if _np.dtype(dtype) == _np.bool_ else m.astype(dtype)


def tril(m, k=0):
    """NumPy's tril: m with the elements above the k-th diagonal zeroed (of
    the last two axes; a 1-D m is taken as its rows, broadcast)."""
    m = asarray(m)
    mask = tri(*m.shape[-2:], k=k, dtype=bool)
    return where(mask, m, zeros(1, m.dtype))


def triu(m, k=0):
    """NumPy's triu: m with the elements below the k-th diagonal zeroed."""
    m = asarray(m)
    mask = tri(*m.shape[-2:], k=k - 1, dtype=bool)
    return where(mask, zeros(1, m.dtype), m)


def trace(a, offset=0, axis1=0, axis2=1, dtype=None, out=None):
    """NumPy's trace: the sums along the diagonals of the 2-D subarrays of
    axes axis1 and axis2 (the diagonal of a contiguous matrix is a strided
    view; other ranks and axes gather it)."""
    a = asarray(a)
    if a.ndim == 2 and (axis1 % 2, axis2 % 2) == (0, 1) and dtype is None and out is None:
        n, m = a.shape
        k = builtins.min(n, m - offset) if offset >= 0 else builtins.min(n + offset, m)
        if k <= 0:
            return zeros((0,), a.dtype).sum()
        start = offset if offset >= 0 else -offset * m
        flat = a.copy().reshape(-1) if not _contiguous(a) else a.reshape(-1)
        return flat[start:start + (k - 1) * (m + 1) + 1:m + 1].sum()
    return _into(_composed.diagonal(a, offset, axis1, axis2).sum(axis=-1, dtype=dtype), out)


def nonzero(a):
    return tuple(asarray(i) for i in _np.nonzero(to_numpy(asarray(a))))


def flatnonzero(a):
    return asarray(_np.flatnonzero(to_numpy(asarray(a))))


def argwhere(a):
    return asarray(_np.argwhere(to_numpy(asarray(a))))


ndarray.nonzero = lambda self: nonzero(self)


ndarray.trace = lambda self, offset=0, axis1=0, axis2=1, dtype=None, out=None: trace(self, offset, axis1, axis2,
                                                                                      dtype, out)
IMPLEMENTED.update({f.__name__: _dtype_fallback(f.__name__, f)
                    for f in (roll, diff, meshgrid, indices, tri, tril, triu, trace, nonzero, flatnonzero,
                              argwhere)})
