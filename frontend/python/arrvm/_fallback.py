"""What arrvm cannot compute runs in NumPy: arguments synced to NumPy arrays,
results wrapped back (without copying where that is safe), and one
ArrvmFallbackWarning per function, pointing at the user's line."""
import builtins
import os as _os
import sys as _sys
import warnings as _warnings

import numpy as _np

from ._ndarray import ndarray, asarray, asarray_shared, to_numpy, _wrappable


class ArrvmFallbackWarning(UserWarning):
    """A NumPy function arrvm does not implement ran in NumPy on synced data."""


_warned = set()


def _to_np(x):
    if isinstance(x, ndarray):
        return to_numpy(x)
    if isinstance(x, (list, tuple)):
        t = [_to_np(y) for y in x]
        return t if isinstance(x, list) else tuple(t)
    if isinstance(x, dict):
        return {k: _to_np(v) for k, v in x.items()}
    return x


def _user_arrays(x, found):
    """The NumPy arrays the caller passed (in lists, tuples, dicts)."""
    if isinstance(x, _np.ndarray) and not isinstance(x, ndarray):
        found.append(x)
    elif isinstance(x, (list, tuple)):
        for y in x:
            _user_arrays(y, found)
    elif isinstance(x, dict):
        for y in x.values():
            _user_arrays(y, found)
    return found


def _from_np(x, theirs=()):
    """NumPy's results as arrvm arrays: wrapped without copying (arrvm.asarray)
    where the layout allows and the memory is not the caller's (NumPy arrays
    the caller passed in, which it may write later while arrvm work reading
    them is pending), else copied."""
    if isinstance(x, _np.ndarray) and not isinstance(x, ndarray):
        if x.dtype == _np.float16:
            return x  # NumPy's float16 stays NumPy's (arrvm would compute it in float32)
        try:
            if _wrappable(x) and not builtins.any(_np.may_share_memory(x, t) for t in theirs):
                return asarray_shared(x)
            return asarray(x)
        except TypeError:
            return x
    if isinstance(x, tuple):
        return tuple(_from_np(y, theirs) for y in x)
    if isinstance(x, list):
        return [_from_np(y, theirs) for y in x]
    return x


_INTERNAL = (_os.path.dirname(_np.__file__), _os.path.dirname(__file__), '<__array_function__')


def _caller_level():
    """The stacklevel of the first frame outside arrvm and NumPy: the user's
    line, however many dispatch layers (__array_function__) lie between."""
    frame, level = _sys._getframe(1), 1
    while frame is not None and frame.f_code.co_filename.startswith(_INTERNAL):
        frame, level = frame.f_back, level + 1
    return level


# NumPy functions that write into an argument (its position): they run on
# its synced copy, which is then written back, as `out=` is.
_WRITES_ARGUMENT = {'fill_diagonal': 0, 'copyto': 0, 'put': 0, 'putmask': 0, 'place': 0, 'put_along_axis': 0,
                    'random.shuffle': 0}


_NOT_COMPLEX = frozenset((int, float, bool, str, type(None), slice))


def _complex_operand(x):
    """Whether x is, or holds (in a list or tuple), a complex number or array.
    (Runs on every call of a wrapped function: plain types first.)"""
    t = type(x)
    if t in _NOT_COMPLEX:
        return False
    if t is tuple or t is list:
        for y in x:
            if type(y) not in _NOT_COMPLEX and _complex_operand(y):
                return True
        return False
    if isinstance(x, complex):
        return True
    if isinstance(x, (ndarray, _np.ndarray, _np.generic)):
        return x.dtype.kind == 'c'
    if isinstance(x, (list, tuple)):
        return builtins.any(_complex_operand(y) for y in x)
    return False


def _fallback(func, name, args, kwargs, warn=True):
    """Runs NumPy's `func` on synced copies, warning once per function name
    (unless `warn` is false: NumPy is the implementation, as for random).
    What it writes into an arrvm array (`out=`, or the array a function such
    as fill_diagonal updates) goes to a copy of that array, written back."""
    if warn and name not in _warned:
        _warned.add(name)
        _warnings.warn("arrvm: numpy.%s is not implemented by arrvm; it ran in NumPy on synced data" % name,
                       ArrvmFallbackWarning, stacklevel=_caller_level())
    written = []  # (arrvm array, the NumPy copy NumPy writes into)

    def host_of(a):
        if not isinstance(a, ndarray):
            return a
        host = to_numpy(a)
        written.append((a, host))
        return host

    args = tuple(args)
    i = _WRITES_ARGUMENT.get(name)
    if i is not None and i < len(args):
        args = args[:i] + (host_of(args[i]),) + args[i + 1:]
    out = kwargs.get('out')
    kw = {k: v for k, v in kwargs.items() if not (k == 'out' and v is None)}
    if isinstance(out, ndarray):
        kw['out'] = host_of(out)
    elif isinstance(out, tuple):
        kw['out'] = tuple(host_of(o) for o in out)
    r = func(*_to_np(args), **_to_np(kw))
    for target, host in written:
        target[...] = asarray(host)
    if 'out' in kw:
        return out
    return _from_np(r, _user_arrays((args, kwargs), []))


def wrap_numpy(name, func, warn=True):
    """NumPy's `func` for the drop-in: arrvm arguments are synced to NumPy (with
    the fallback warning, unless NumPy is the implementation: `warn` false)
    and NumPy array results come back as arrvm arrays."""
    def wrapper(*args, **kwargs):
        return _fallback(func, name, args, kwargs, warn)
    wrapper.__name__ = name
    wrapper.__doc__ = getattr(func, '__doc__', None)
    wrapper.__wrapped__ = func
    return wrapper


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


# Methods NumPy has and arrvm does not compute (argmax, argsort, sort, repeat,
# searchsorted, ...): NumPy runs them on the synced data. Raw-memory ones
# (view, resize, tofile, flags ...) are left out: they would act on a copy.
for _name in ('argpartition', 'argsort', 'choose', 'compress', 'ptp',
              'searchsorted', 'sort', 'partition', 'put', 'itemset', 'tobytes', 'tostring', 'dump', 'dumps'):
    if not hasattr(ndarray, _name) and hasattr(_np.ndarray, _name):
        setattr(ndarray, _name, _method_fallback(_name))
