"""arrvm.ndarray: the extension's array class (arrvm._core.ndarray) completed
with what is simpler in Python: dtype objects, conversions to and from NumPy,
printing, and the slow path of operators (operands the C++ fast path does
not take). Indexing by arrays is _indexing.py's."""
import builtins

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


_CODE_OF = {}  # dtype-likes as programs spell them (np.uint8, 'f8', float, a dtype) -> code


def dtype_code(dtype):
    """The extension's code of a NumPy dtype-like (np.float64, 'int32', float, ...)."""
    try:
        return _CODE_OF[dtype]  # (np.dtype() of a spelling costs ~0.3 us a call)
    except (KeyError, TypeError):
        pass
    d = _np.dtype(dtype)
    try:
        code = _CODE[d]
    except KeyError:
        raise UnsupportedDType("arrvm: dtype %s is not supported (supported: %s)" % (d, ', '.join(_NAMES))) from None
    if isinstance(dtype, (type, str, _np.dtype)):
        _CODE_OF[dtype] = code
    return code


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
    if dtype is None and (type(obj) is list or type(obj) is tuple):
        r = _core.list_array(obj)  # Python numbers, 1-D or 2-D: built at once
        if r is not None:
            return r
    if isinstance(obj, (list, tuple)) and _core.holds_array(obj):
        return F.stack([asarray(x) for x in obj]) if dtype is None else \
            F.stack([asarray(x) for x in obj]).astype(dtype)
    a = _np.asarray(obj, dtype=dtype)
    code = _CODE.get(a.dtype)  # (not float16, a big-endian or an unsupported dtype)
    if code is None:
        if a.dtype == _np.float16:
            a = a.astype(_np.float32)
        if a.dtype.byteorder == '>':
            a = a.astype(a.dtype.newbyteorder('='))
        code = dtype_code(a.dtype)
    r = _core.from_numpy(a, code)
    return r if r is not None else _core.from_numpy(_np.ascontiguousarray(a).reshape(a.shape), code)


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
    if type(obj) is ndarray and dtype is None:  # (the common call: one test, ~70 ns less)
        return obj
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


def to_numpy(a):
    """A NumPy copy of an arrvm array (runs what is pending)."""
    out = _np.empty(a.shape, dtype=a.dtype)
    if out.size:
        a._read_into(out.reshape(-1).view(_np.uint8))
    return out


# ---- properties ----

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


def _item(self, *args):
    # (The type's C method reads the element at once where nothing pending
    # writes the array, and calls this for the rest: NumPy's item of a copy,
    # after running what is pending; NumPy's errors.)
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


ndarray.item = _item
ndarray.__bool__ = _bool


def _number(kind, what='size'):
    def convert(self):
        if self.size != 1:  # (NumPy's error: a TypeError, where item() raises ValueError)
            raise TypeError("only %s-1 arrays can be converted to Python scalars" % what)
        return kind(_item(self))
    return convert


ndarray.__float__ = _number(float)
ndarray.__int__ = _number(int)
ndarray.__complex__ = _number(complex, 'length')
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


_core.set_scalar_types([_np.bool_, _np.int8, _np.int16, _np.int32, _np.int64, _np.uint8, _np.uint16,
                        _np.uint32, _np.uint64, _np.float32, _np.float64, _np.complex64, _np.complex128])
