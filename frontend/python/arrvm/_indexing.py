"""Indexing by arrays, the extension's slow paths of `a[key]` and
`a[key] = value` (integer-array and boolean indices, lists, NumPy arrays):
flat int64 positions computed lazily with arrvm operations, for the VM's
gather and scatter. Split from _ndarray; _functions imports this module,
which hands its two hooks (and _ndarray's ufunc slow path) to the extension."""
import weakref as _weakref

import numpy as _np

from . import _core, _ndarray
from ._ndarray import ndarray, asarray, to_numpy, PY_NUMBERS


def _normalize_key(self, key):
    """key as a list over self's axes of slices / int64 host index arrays, or None if basic."""
    if not isinstance(key, tuple):
        key = (key,)
    items = []
    for k in key:
        if not isinstance(k, (int, _np.integer, slice, ndarray, list, tuple, _np.ndarray, bool, _np.bool_)) \
                and k is not None and k is not Ellipsis:
            raise IndexError("only integers, slices (`:`), ellipsis (`...`), numpy.newaxis (`None`) and integer "
                             "or boolean arrays are valid indices")
        if isinstance(k, ndarray):
            items.append(to_numpy(k))
        elif isinstance(k, (list, _np.ndarray)) or (isinstance(k, (bool, _np.bool_))):
            items.append(_np.asarray(k))
        else:
            items.append(k)
    _check_masks(self, items)
    # Boolean arrays become the integer arrays of their nonzero elements.
    expanded = []
    for k in items:
        if isinstance(k, _np.ndarray) and k.dtype == _np.bool_:
            expanded.extend(_np.nonzero(k))
        elif isinstance(k, _np.ndarray) and k.dtype.kind not in 'iu':
            raise IndexError("arrays used as indices must be of integer (or boolean) type")
        else:
            expanded.append(k)
    if sum(1 for k in expanded if k is Ellipsis) > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    n_consuming = sum(1 for k in expanded if k is not Ellipsis and k is not None)
    if n_consuming > self.ndim:
        raise IndexError("too many indices for array: array is %d-dimensional, but %d were indexed"
                         % (self.ndim, n_consuming))
    out = []
    for k in expanded:
        if k is Ellipsis:
            out.extend([slice(None)] * (self.ndim - n_consuming))
        else:
            out.append(k)
    out.extend([slice(None)] * (self.ndim + sum(1 for k in out if k is None) - len(out)))
    # None (newaxis): an axis of length 1 inserted into the array at its place
    # in the key, then indexed by `:`. NumPy places it the same way, and it
    # separates advanced indices as a slice does (a[i, None, j] puts the
    # broadcast index dimensions first).
    base = self
    for pos, k in enumerate(out):
        if k is None:
            base = base._expand_dims(pos)
            out[pos] = slice(None)
    # Integers join the advanced index (NumPy: they broadcast as 0-d arrays).
    return base, [k if isinstance(k, slice) else _np.asarray(k, dtype=_np.int64) if not isinstance(k, _np.ndarray)
                  else k for k in out]


def _check_masks(self, items):
    """NumPy's IndexError for a boolean index whose shape differs from the
    axes it indexes (arange(5)[array([True, False])])."""
    def consumed(k):
        if k is None or k is Ellipsis:
            return 0
        return k.ndim if isinstance(k, _np.ndarray) and k.dtype == _np.bool_ else 1
    pos, total = 0, sum(consumed(k) for k in items)
    for k in items:
        if k is Ellipsis:
            pos += self.ndim - total
            continue
        if isinstance(k, _np.ndarray) and k.dtype == _np.bool_:
            for d in range(k.ndim):
                if pos + d < self.ndim and k.shape[d] != self.shape[pos + d]:
                    raise IndexError("boolean index did not match indexed array along dimension %d; dimension is "
                                     "%d but corresponding boolean dimension is %d"
                                     % (pos + d, self.shape[pos + d], k.shape[d]))
        pos += consumed(k)


def _flat_index(self, key):
    """(view, flat int64 arrvm index array) so that view.take(flat) is self[key]."""
    view = self[tuple(k if isinstance(k, slice) else slice(None) for k in key)]
    shape = view.shape
    adv = [i for i, k in enumerate(key) if not isinstance(k, slice)]
    idx = _np.broadcast_arrays(*[key[i] for i in adv])
    bshape = idx[0].shape if idx else ()
    rowstride = [1] * len(shape)
    for i in range(len(shape) - 2, -1, -1):
        rowstride[i] = rowstride[i + 1] * shape[i + 1]
    flat_adv = _np.zeros(bshape, dtype=_np.int64)
    for i, ix in zip(adv, idx):
        n = shape[i]
        if ix.size and (ix.min() < -n or ix.max() >= n):
            bad = ix[(ix < -n) | (ix >= n)].flat[0]
            raise IndexError("index %d is out of bounds for axis %d with size %d" % (bad, i, n))
        flat_adv = flat_adv + _np.where(ix < 0, ix + n, ix).astype(_np.int64) * rowstride[i]
    contiguous = adv == list(range(adv[0], adv[-1] + 1))
    rest = [i for i in range(len(shape)) if i not in adv]
    if contiguous:
        before = [i for i in rest if i < adv[0]]
        after = [i for i in rest if i > adv[-1]]
        layout = [('s', i) for i in before] + [('a', None)] + [('s', i) for i in after]
    else:
        layout = [('a', None)] + [('s', i) for i in rest]
    rshape = []
    for kind, i in layout:
        rshape.extend(bshape if kind == 'a' else [shape[i]])
    rank = len(rshape)
    pos = 0
    flat = None
    for kind, i in layout:
        if kind == 'a':
            term = asarray(flat_adv).reshape((1,) * pos + tuple(bshape) + (1,) * (rank - pos - len(bshape)))
            pos += len(bshape)
        else:
            term = _ndarray.F.arange(shape[i], dtype=_np.int64) * rowstride[i]
            term = term.reshape((1,) * pos + (shape[i],) + (1,) * (rank - pos - 1))
            pos += 1
        flat = term if flat is None else flat + term
    if flat.shape != tuple(rshape):
        flat = _ndarray.F.broadcast_to(flat, tuple(rshape)).copy()
    return view, flat


def _getitem_slow(self, key):
    if isinstance(key, (bool, _np.bool_)):  # a 0-d mask: a new axis, of length 1 or 0 (NumPy)
        v = self[None]
        return v if key else v[:0]
    if isinstance(key, list) and any(isinstance(k, (slice, type(None))) or k is Ellipsis for k in key):
        key = tuple(key)
    return _take(self, key)


def _take(self, key):
    # A 1-D array by a 1-D arrvm integer array whose indices can be read at
    # once (`x[indices[lo:hi]]` in a row loop): checked as NumPy checks them
    # (IndexError here), then a gather; negative ones wrapped.
    if self.ndim == 1 and isinstance(key, ndarray) and key.dtype.kind in 'iu':
        bounds = key._index_bounds(self.shape[0])
        if bounds == 1:  # all in [0, n): the gather alone
            return self._take_in_range(key)
        if bounds == 2:
            return self._take(key)
    # a[mask] with a mask of a's shape: the flat positions of its true elements
    # (in range by construction: no negative ones to wrap, none to check).
    if isinstance(key, ndarray) and key.dtype == _np.bool_ and key.shape == self.shape:
        return self.reshape(-1)._take_in_range(_mask_positions(key))
    base, k = _normalize_key(self, key)
    if all(isinstance(x, slice) for x in k):
        return base[tuple(k)]
    view, flat = _flat_index(base, k)
    return view._take(flat)


def _row_major(shape):
    st, n = [], 1
    for d in reversed(shape):
        st.append(n)
        n *= d
    return tuple(reversed(st))


# The last boolean mask used as an index, its version (Array::version: its
# base's writes) and the flat positions of its true elements. The NumPy
# idiom `z[m] = z[m] ** 2 + c[m]` indexes by one mask several times: the
# mask is read and its positions found once (NumPy's flatnonzero), not
# once per use. A write to the mask's base, or a new mask, recomputes them.
# (The mask is held weakly; the positions until the next mask.)
_MASK = [lambda: None, 0, None]


def _mask_positions(mask):
    version = mask._version
    if _MASK[0]() is mask and _MASK[1] == version:
        return _MASK[2]
    p = asarray(_np.flatnonzero(to_numpy(mask)))
    _MASK[0], _MASK[1], _MASK[2] = _weakref.ref(mask), version, p
    return p


def _is_basic(key):
    parts = key if isinstance(key, tuple) else (key,)
    return all(x is None or x is Ellipsis or isinstance(x, slice) or
               (isinstance(x, (int, _np.integer)) and not isinstance(x, (bool, _np.bool_))) for x in parts)


def _setitem_slow(self, key, value):
    if not isinstance(value, ndarray):
        if isinstance(value, _np.generic):
            value = value.item()
        elif not isinstance(value, PY_NUMBERS):
            value = asarray(value)
    # a[mask] = scalar, mask of a's shape: lazily, as a where (no sync).
    if isinstance(key, ndarray) and key.dtype == _np.bool_ and key.shape == self.shape and \
            (not isinstance(value, ndarray) or value.ndim == 0):
        self[...] = _ndarray.F.where(key, value, self)
        return
    # a[mask] = values (one per true element), a row-major: a scatter to the
    # mask's positions (those of the a[mask] just read, in `z[m] = f(z[m])`).
    if isinstance(key, ndarray) and key.dtype == _np.bool_ and key.shape == self.shape and \
            isinstance(value, ndarray) and value.ndim == 1 and self._strides == _row_major(self.shape):
        pos = _mask_positions(key)
        if value.shape[0] == pos.shape[0]:
            self.reshape(-1)._put(pos, value)
            return
    if _is_basic(key):
        # A basic key with a value the fast path does not take (a NumPy array
        # or scalar, a list). (With `...` an element is a view, not a value.)
        k = key if isinstance(key, tuple) else (key,)
        if not any(x is Ellipsis for x in k):
            k = k + (Ellipsis,)
        self[k]._assign(value)
        return
    if isinstance(key, list) and any(isinstance(x, (slice, type(None))) or x is Ellipsis for x in key):
        key = tuple(key)
    base, k = _normalize_key(self, key)
    if all(isinstance(x, slice) for x in k):
        base[tuple(k)]._assign(value)
        return
    view, flat = _flat_index(base, k)
    if not isinstance(value, ndarray):
        value = _core.full((), value, self._dt)
    if value.ndim > flat.ndim:
        value = value.reshape(value.shape[value.ndim - flat.ndim:]) if all(
            d == 1 for d in value.shape[:value.ndim - flat.ndim]) else value
    view._put(flat, value)


_core.set_hooks(_ndarray._ufunc_slow, _getitem_slow, _setitem_slow, _np.AxisError,
                lambda a, b: _ndarray.F.matmul(a, b))
