"""arrvm.ndarray: the extension's array class (arrvm._core.ndarray) completed
with what is simpler in Python: dtype objects, conversions to and from NumPy,
printing, and the slow paths of operators and indexing (operands the C++ fast
path does not take, integer-array and boolean indexing)."""
import builtins
import weakref as _weakref

import numpy as _np

from . import _core

ndarray = _core.ndarray

# dtype codes of the extension (vm/dtypes.def order) <-> NumPy dtypes.
_NAMES = ('bool', 'int8', 'int16', 'int32', 'int64', 'uint8', 'uint16', 'uint32', 'uint64', 'float32', 'float64',
          'complex64', 'complex128')
_DTYPES = tuple(_np.dtype(n) for n in _NAMES)
_CODE = {_DTYPES[i]: i for i in range(len(_NAMES))}
PY_NUMBERS = (bool, int, float, complex)  # Python numbers the VM takes


class UnsupportedDType(TypeError):
    """A dtype libarrvm does not have (complex, float16, strings, objects, ...):
    the drop-in runs the operation in NumPy instead."""


def dtype_code(dtype):
    """The extension's code of a NumPy dtype-like (np.float64, 'int32', float, ...)."""
    d = _np.dtype(dtype)
    try:
        return _CODE[d]
    except KeyError:
        raise UnsupportedDType("arrvm: dtype %s is not supported (supported: %s)" % (d, ', '.join(_NAMES))) from None


def foreign(x):
    """True for an operand only NumPy can compute with: a NumPy array or
    scalar of a dtype libarrvm does not have."""
    return isinstance(x, (_np.ndarray, _np.generic)) and not isinstance(x, ndarray) and x.dtype not in _CODE


def _is_scalar(x):
    return isinstance(x, PY_NUMBERS + (_np.generic,))


def _int_of(x):
    """x as a Python int if it is an integer NumPy accepts as a size or an
    axis: int, NumPy's integers, or a 0-d integer array (arrvm's x[i] of an
    integer array stands for NumPy's integer scalar); else None."""
    if isinstance(x, (bool, _np.bool_)):
        return None
    if isinstance(x, (int, _np.integer)):
        return int(x)
    if isinstance(x, ndarray) and x.ndim == 0 and x.dtype.kind in 'iu':
        return int(x)
    return None


def asarray(obj, dtype=None):
    """An arrvm array for `obj` (no copy if it is one already and dtype fits)."""
    if isinstance(obj, ndarray):
        if dtype is None or _np.dtype(dtype) == obj.dtype:
            return obj
        return obj._astype(dtype_code(dtype))
    if isinstance(obj, (list, tuple)) and any(isinstance(x, ndarray) for x in _flatten(obj)):
        return F.stack([asarray(x) for x in obj]) if dtype is None else \
            F.stack([asarray(x) for x in obj]).astype(dtype)
    a = _np.asarray(obj, dtype=dtype)
    if a.dtype == _np.float16:
        a = a.astype(_np.float32)
    if a.dtype.byteorder == '>':
        a = a.astype(a.dtype.newbyteorder('='))
    code = dtype_code(a.dtype)
    shape = a.shape
    a = _np.ascontiguousarray(a)  # (1-d for a 0-d array)
    return _core.from_buffer(a.reshape(-1).view(_np.uint8) if a.size else _np.empty(0, _np.uint8), code, shape)


def _wrappable(a):
    """True if NumPy array `a` can be the memory of an arrvm base as it is."""
    return (type(a) is _np.ndarray and a.size > 0 and a.flags.c_contiguous and a.flags.aligned and
            a.flags.writeable and a.dtype.byteorder != '>' and a.dtype in _CODE)


def asarray_shared(obj, dtype=None, order=None, **kwargs):
    """numpy.asarray for arrvm: an arrvm array (itself) is returned as is; a
    C-contiguous, aligned, writable, native-endian NumPy array of a supported
    dtype is wrapped without copying, so that the two share memory as
    numpy.asarray's result and its input do: what arrvm writes into the
    result is in the NumPy array after a sync (a read, numpy.asarray, or
    arrvm.flush()), and what NumPy writes is seen by arrvm operations that
    run afterwards (arrays are lazy: call arrvm.flush() before writing the
    NumPy array while arrvm work reading it may be pending). Anything else
    is copied, as arrvm.array() always does."""
    if isinstance(obj, _np.ndarray) and (dtype is None or _np.dtype(dtype) == obj.dtype) and _wrappable(obj):
        return _core.adopt(obj.reshape(-1), _CODE[obj.dtype], obj.shape)
    return asarray(obj, dtype)


def adopt(a):
    """An arrvm array on a NumPy array's memory, not copied (on the cpu and
    ref backends; opencl copies once). The NumPy array stays alive while
    arrvm uses it; what arrvm writes into the result is in it after a read or
    arrvm.flush(). Do not write the NumPy array while arrvm work on it may be
    pending (arrays are lazy). arrvm.array() and arrvm.asarray() copy."""
    if not isinstance(a, _np.ndarray) or not a.flags.c_contiguous or not a.flags.writeable or \
            a.dtype.byteorder == '>':
        raise ValueError("arrvm.adopt: needs a C-contiguous, writable, native-endian NumPy array")
    code = dtype_code(a.dtype)
    return _core.adopt(a.reshape(-1), code, a.shape)


def _flatten(x):
    for y in x:
        if isinstance(y, (list, tuple)):
            yield from _flatten(y)
        else:
            yield y


def to_numpy(a):
    """A NumPy copy of an arrvm array (runs what is pending)."""
    out = _np.empty(a.shape, dtype=a.dtype)
    if out.size:
        a._read_into(out.reshape(-1).view(_np.uint8))
    return out


# ---- properties ----

ndarray.dtype = property(lambda self: _DTYPES[self._dt])
ndarray.itemsize = property(lambda self: _DTYPES[self._dt].itemsize)
ndarray.nbytes = property(lambda self: self.size * _DTYPES[self._dt].itemsize)
def _set_strides(self, strides):
    """a.strides = (bytes, ...): `a` becomes the view of its base with those
    strides (NumPy allows it within the memory the array's base has)."""
    item = _DTYPES[self._dt].itemsize
    strides = tuple(int(x) for x in strides) if isinstance(strides, (tuple, list)) else (int(strides),)
    if len(strides) != self.ndim:
        raise ValueError("strides must be same length as shape (%d)" % self.ndim)
    if any(x % item for x in strides):
        raise ValueError("strides is not compatible with available memory")
    self._restride([x // item for x in strides])


ndarray.strides = property(lambda self: tuple(s * _DTYPES[self._dt].itemsize for s in self._strides), _set_strides)
ndarray.T = property(lambda self: self._transpose([]))
ndarray.base = property(lambda self: None)


class _FlatIter:
    """a.flat: the elements in row-major order. Reads are a.reshape(-1)[key];
    writes reach `a` whatever its layout (reshape(-1) of a transposed view is
    a copy: its positions are scattered back through their indices)."""

    def __init__(self, a):
        self.base = a

    def __len__(self):
        return self.base.size

    def __iter__(self):
        return iter(self.base.reshape(-1))

    def __getitem__(self, key):
        return self.base.reshape(-1)[key]

    def __setitem__(self, key, value):
        a = self.base
        if F._contiguous(a):
            a.reshape(-1)[key] = value
            return
        positions = _np.arange(a.size)[to_numpy(key) if isinstance(key, ndarray) else key]
        a[_np.unravel_index(positions, a.shape)] = value

    def __array__(self, dtype=None):
        return _np.asarray(to_numpy(self.base).reshape(-1), dtype=dtype)


ndarray.flat = property(_FlatIter)


class _Flags:
    """a.flags: the layout flags NumPy code checks (a.flags['C_CONTIGUOUS'],
    a.flags.c_contiguous), and `writeable`, which may be set (False: the
    array, and views taken from it afterwards, refuse writes, as NumPy's)."""

    def __init__(self, a):
        self._a = a
        shape, strides = a.shape, a._strides
        self.c_contiguous = F._contiguous(a)
        f, s = True, 1
        for n, st in zip(shape, strides):
            if n != 1 and st != s:
                f = False
            s *= n
        self.f_contiguous = f
        self.aligned = True

    @property
    def writeable(self):
        return self._a._writeable

    @writeable.setter
    def writeable(self, value):
        self._a._writeable = bool(value)

    _KEYS = {'C_CONTIGUOUS': 'c_contiguous', 'C': 'c_contiguous', 'F_CONTIGUOUS': 'f_contiguous',
             'F': 'f_contiguous', 'WRITEABLE': 'writeable', 'W': 'writeable', 'ALIGNED': 'aligned', 'A': 'aligned'}

    def __getitem__(self, key):
        return getattr(self, self._KEYS[key])

    def __setitem__(self, key, value):
        if self._KEYS.get(key) != 'writeable':
            raise KeyError("arrvm: only the WRITEABLE flag can be set")
        self.writeable = value

    def __repr__(self):
        return '\n'.join('  %s : %s' % (k, getattr(self, v)) for k, v in self._KEYS.items() if len(k) > 1)


ndarray.flags = property(_Flags)
ndarray.__array_priority__ = 100.0


def _len(self):
    if self.ndim == 0:
        raise TypeError("len() of unsized object")
    return self.shape[0]


def _item(self, *args):
    if args:
        return to_numpy(self).item(*args)
    if self.size != 1:
        raise ValueError("can only convert an array of size 1 to a Python scalar")
    return to_numpy(self).item()


def _bool(self):
    if self.size != 1:
        raise ValueError("The truth value of an array with more than one element is ambiguous. "
                         "Use a.any() or a.all()")
    return bool(to_numpy(self).reshape(()))


def _index(self):
    if self.ndim != 0 or self.dtype.kind not in 'iub':
        raise TypeError("only integer scalar arrays can be converted to a scalar index")
    return int(to_numpy(self))


def _repr(self):
    a = to_numpy(self)
    if self.ndim == 0:
        return repr(a[()])
    return repr(a)


def _str(self):
    a = to_numpy(self)
    return str(a[()]) if self.ndim == 0 else str(a)


def _format(self, spec):
    if self.ndim == 0:
        return format(to_numpy(self)[()], spec)
    return format(str(self), spec)


def shared_numpy(a):
    """numpy.asarray(a): a NumPy view of the memory of a's base, after a
    sync. The first call moves the base into NumPy-allocated memory (one
    copy); from then on the VM computes in it, so the view and later ones
    share memory with `a` (np.shares_memory): what arrvm writes into the
    base is in the view after the next sync (any read, numpy.asarray again,
    arrvm.flush()), and what is written through the view is seen by arrvm
    operations that run afterwards. On device backends (opencl) the base
    stays on the device and the result is a snapshot taken at this call."""
    buf = _core._host_base(a)
    if buf is None:
        if not _host_backend():
            return to_numpy(a)  # the device keeps the base: a snapshot of the view
        buf = _np.empty(a._base_size, a.dtype)
        _core._move_to_host(a, buf)
    if a.size == 0:
        return _np.empty(a.shape, a.dtype)
    item = buf.itemsize
    strides = tuple(s * item for s in a._strides)
    view = _np.lib.stride_tricks.as_strided(buf[a._offset:], a.shape, strides)
    if any(st == 0 and n > 1 for st, n in zip(a._strides, a.shape)) or not a._writeable:
        view.flags.writeable = False  # a broadcast view (NumPy's are read-only too), or a read-only array
    return view


_HOST = []


def _host_backend():
    """True if the VM's backend computes in host memory (cpu, ref: Backend::adopt
    shares); device backends would copy the base back up on every move."""
    if not _HOST:
        _HOST.append(_core.config()['backend'] in ('cpu', 'ref'))
    return _HOST[0]


def _array(self, dtype=None):
    a = shared_numpy(self)
    return a if dtype is None else a.astype(dtype, copy=False)


ndarray.__len__ = _len
ndarray.item = _item
ndarray.__bool__ = _bool
ndarray.__float__ = lambda self: float(_item(self))
ndarray.__int__ = lambda self: int(_item(self))
ndarray.__complex__ = lambda self: complex(_item(self))
ndarray.__index__ = _index
# round(x[i], 2) rounds the value, as NumPy's scalar does; round(array) is around.
ndarray.__round__ = lambda self, ndigits=None: (
    round(_item(self), ndigits) if self.ndim == 0 else F.around(self, ndigits or 0))
ndarray.__repr__ = _repr
ndarray.__str__ = _str
ndarray.__format__ = _format
ndarray.__array__ = _array
ndarray.tolist = lambda self: to_numpy(self).tolist()
ndarray.__pos__ = lambda self: self.copy()
ndarray.__divmod__ = lambda self, other: (self // other, self % other)
ndarray.__contains__ = lambda self, value: bool((self == value).any())  # NumPy's `value in a`
ndarray.__rdivmod__ = lambda self, other: (other // self, other % self)
ndarray.__matmul__ = lambda self, other: F.matmul(self, other)
ndarray.__rmatmul__ = lambda self, other: F.matmul(other, self)
ndarray.__copy__ = lambda self: self.copy()
ndarray.__deepcopy__ = lambda self, memo: self.copy()
ndarray.__reduce__ = lambda self: (asarray, (to_numpy(self),))


# The NumPy functions some methods call (stack, where, matmul, ...). The
# package imports in one direction, _core <- _ndarray <- _functions, so this
# module does not import _functions: _functions hands itself over here when
# it loads (before any array exists), set_functions(module).
F = None


def set_functions(module):
    global F
    F = module


# ---- the slow path of ufuncs (NumPy 1.x promotion of what the fast path declines) ----

def _proxy(x):
    """What NumPy's result_type sees for an operand: value-based for 0-d
    arrays and scalars, so a 0-d array stands in with its value (a zero in
    its place made np.uint8(200) < int8 array compare in int8, where 200 is
    -56)."""
    if isinstance(x, ndarray):
        return _np.asarray(x) if x.ndim == 0 else x.dtype
    return x


def _probe(x):
    if isinstance(x, ndarray):
        return _np.asarray(x) if x.ndim == 0 else _np.ones(1, x.dtype)
    return x


_BOOL_OUT = {'equal', 'not_equal', 'less', 'less_equal', 'greater', 'greater_equal', 'logical_and', 'logical_or',
             'logical_xor'}


def _common_dtype(name, ops):
    """The dtype NumPy computes `name` in for these operands: the installed
    NumPy's own answer (its value-based casting differs between ufuncs), from
    the ufunc run on one-element stand-ins."""
    dt = None
    if name not in _BOOL_OUT and name not in ('true_divide', 'divide', 'arctan2', 'hypot'):
        try:
            with _np.errstate(all='ignore'):
                dt = getattr(_np, name)(*[_probe(a) for a in ops]).dtype
        except (TypeError, ValueError, ArithmeticError):
            dt = None
    if dt is None or dt not in _CODE:
        dt = _np.result_type(*[_proxy(a) for a in ops])
    return dt


def _ufunc_slow(name, args, out):
    if builtins.any(foreign(a) for a in args):  # complex and the like: NumPy computes it
        return F._fallback(getattr(_np, name), name, args, {} if out is None else {'out': out})
    ops = []
    for a in args:
        if isinstance(a, ndarray) or isinstance(a, PY_NUMBERS):
            ops.append(a)
        elif isinstance(a, _np.generic):
            if a.dtype not in _CODE:
                return NotImplemented
            ops.append(a)
        elif isinstance(a, (_np.ndarray, list, tuple)):
            try:
                ops.append(asarray(a))
            except (TypeError, ValueError):
                return NotImplemented
        else:
            return NotImplemented
    if out is not None and not isinstance(out, ndarray):
        raise TypeError("arrvm: out= must be an arrvm array")
    arrays = [a for a in ops if isinstance(a, ndarray)]
    if not arrays:
        return NotImplemented
    if len(ops) == 1:
        dt = ops[0].dtype
    else:
        dt = _common_dtype(name, ops)
    final = []
    for a in ops:
        if isinstance(a, ndarray):
            final.append(a if a.dtype == dt else a._astype(dtype_code(dt)))
        elif isinstance(a, _np.generic):
            final.append(a.item())
        else:
            final.append(a)
    if all(not isinstance(a, ndarray) for a in final):
        return NotImplemented
    return _core.ufunc_direct(name, tuple(final), out)


# ---- indexing by arrays ----

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
            term = F.arange(shape[i], dtype=_np.int64) * rowstride[i]
            term = term.reshape((1,) * pos + (shape[i],) + (1,) * (rank - pos - 1))
            pos += 1
        flat = term if flat is None else flat + term
    if flat.shape != tuple(rshape):
        flat = F.broadcast_to(flat, tuple(rshape)).copy()
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
    # a[mask] with a mask of a's shape: the flat positions of its true elements.
    if isinstance(key, ndarray) and key.dtype == _np.bool_ and key.shape == self.shape:
        return self.reshape(-1)._take(_mask_positions(key))
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
        self[...] = F.where(key, value, self)
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


_core.set_hooks(_ufunc_slow, _getitem_slow, _setitem_slow, _np.AxisError,
                lambda a, b: F.matmul(a, b))
_core.set_scalar_types([_np.bool_, _np.int8, _np.int16, _np.int32, _np.int64, _np.uint8, _np.uint16,
                        _np.uint32, _np.uint64, _np.float32, _np.float64, _np.complex64, _np.complex128])
