"""Memory overlap (shares_memory, may_share_memory), a.view(dtype) and the
ndarray constructor. the package imports this module after _functions."""
import builtins

import numpy as _np

from . import _core
from ._functions import IMPLEMENTED, empty
from ._ndarray import ndarray, asarray, shared_numpy, to_numpy, _host_backend


def _extent(a):
    """[lo, hi) of the elements of a's base that a reaches; None when empty."""
    lo = hi = a._offset
    for n, st in zip(a.shape, a._strides):
        if n == 0:
            return None
        if st > 0:
            hi += (n - 1) * st
        else:
            lo += (n - 1) * st
    return lo, hi + 1


def _host_view(x):
    """A NumPy array on the memory of arrvm array x, if its base lives in
    NumPy memory (numpy.asarray(x) moved it there); else None."""
    if isinstance(x, ndarray):
        return shared_numpy(x) if _core._host_base(x) is not None else None
    return x if isinstance(x, _np.ndarray) else None


def may_share_memory(a, b, max_work=None):
    """NumPy's bounds check: arrvm arrays of one base whose element ranges
    meet (an arrvm array shares no memory with a NumPy array unless
    numpy.asarray moved its base into NumPy memory)."""
    if isinstance(a, ndarray) and isinstance(b, ndarray):
        if a._base_id != b._base_id:
            return False
        ea, eb = _extent(a), _extent(b)
        return ea is not None and eb is not None and ea[0] < eb[1] and eb[0] < ea[1]
    ha, hb = _host_view(a), _host_view(b)
    return ha is not None and hb is not None and _np.may_share_memory(ha, hb)


def _offsets(a):
    off = _np.full((), a._offset, _np.int64)
    for d, (n, st) in enumerate(zip(a.shape, a._strides)):
        off = _np.add.outer(off, _np.arange(n, dtype=_np.int64) * st)
    return off.reshape(-1)


def shares_memory(a, b, max_work=None):
    """Exact, as NumPy's: whether an element of a's base is in both views."""
    if not may_share_memory(a, b):
        return False
    if isinstance(a, ndarray) and isinstance(b, ndarray):
        if a.size * b.size == 0:
            return False
        if builtins.max(a.size, b.size) > 1 << 24:  # (NumPy bounds its work too)
            return True
        return _np.intersect1d(_offsets(a), _offsets(b), assume_unique=False).size > 0
    return _np.shares_memory(_host_view(a), _host_view(b))


def _m_view(self, dtype=None, type=None):
    """a.view(): a new view of the same elements; a.view(other dtype) or
    a.view(numpy.ndarray) is NumPy's view of the memory numpy.asarray(a)
    shares with `a` (a NumPy array: arrvm has no reinterpreting views)."""
    if isinstance(dtype, builtins.type) and issubclass(dtype, _np.ndarray) and type is None:
        dtype, type = None, dtype
    if type is None and (dtype is None or _np.dtype(dtype) == self.dtype):
        return self[...]
    if not _host_backend():
        raise TypeError("arrvm: a.view(%s) needs an array in host memory (the cpu or ref backend)"
                        % (dtype if type is None else type.__name__))
    r = shared_numpy(self)
    if dtype is not None:
        r = r.view(dtype)
    return r if type is None else r.view(type)


def _new(cls, shape, dtype=float, buffer=None, offset=0, strides=None, order=None):
    """numpy.ndarray(shape, dtype): an uninitialized array; with a buffer,
    NumPy's array on it."""
    if buffer is not None or strides is not None:
        return _np.ndarray(shape, dtype, buffer, offset, strides, order)
    return empty(shape, dtype)


ndarray.view = _m_view
ndarray.__new__ = staticmethod(_new)
ndarray.__init__ = lambda self, *args, **kwargs: None
IMPLEMENTED.update({'may_share_memory': may_share_memory, 'shares_memory': shares_memory})


def put(a, ind, v, mode='raise'):
    """NumPy's put: a.flat[ind] = v (v repeated to the indices' count; mode
    'raise' checks the indices, 'wrap' and 'clip' bring them in range), as
    the VM's scatter into `a`; of repeated indices the last one's value
    stays, as in NumPy."""
    if not isinstance(a, ndarray):
        return _np.put(a, to_numpy(ind) if isinstance(ind, ndarray) else ind,
                       to_numpy(v) if isinstance(v, ndarray) else v, mode)
    n = a.size
    idx = _np.asarray(to_numpy(ind) if isinstance(ind, ndarray) else ind).reshape(-1)
    idx = idx.astype(_np.int64)  # (NumPy 1.24 truncates float indices here)
    if idx.size == 0:
        return None
    if n == 0:
        raise IndexError("cannot replace elements of an empty array")
    if mode == 'raise':
        bad = (idx < -n) | (idx >= n)
        if bad.any():
            raise IndexError("index %d is out of bounds for axis 0 with size %d" % (idx[bad][0], n))
        idx = _np.where(idx < 0, idx + n, idx)
    elif mode == 'wrap':
        idx = idx % n
    elif mode == 'clip':
        idx = _np.clip(idx, 0, n - 1)
    else:
        raise ValueError("clipmode must be one of 'clip', 'raise', or 'wrap'")
    vals = asarray(v).reshape(-1)
    if vals.size == 0:
        return None
    pos = _np.arange(idx.size)
    if vals.size != idx.size:
        vals = vals[asarray(pos % vals.size)]
    _, last = _np.unique(idx[::-1], return_index=True)  # repeated indices: the last occurrence
    if last.size != idx.size:
        keep = _np.sort(idx.size - 1 - last)
        idx, vals = idx[keep], vals[asarray(keep)]
    a._put(asarray(idx), vals.astype(a.dtype) if vals.dtype != a.dtype else vals)
    return None


ndarray.put = lambda self, indices, values, mode='raise': put(self, indices, values, mode)
IMPLEMENTED['put'] = put
