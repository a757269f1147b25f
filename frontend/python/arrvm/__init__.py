"""arrvm: NumPy on libarrvm. Every operation becomes bytecode that the VM
batches, fuses and runs when data is read (float(), repr, numpy.asarray ...)
or on arrvm.flush(). `python3 -m arrvm script.py` runs a NumPy script with
`import numpy` resolving to this package. Names arrvm does not implement come
from NumPy itself (with one warning per function that ran in NumPy)."""
import atexit as _atexit
import json as _json
import types as _types

import numpy as _np

from . import _core
from ._fallback import _to_np
from ._ndarray import ndarray, asarray, to_numpy, adopt
from ._functions import *  # noqa: F401,F403
from ._functions import (UFUNCS as _UFUNCS, IMPLEMENTED as _IMPLEMENTED, ufunc, flush, wrap_numpy as _wrap,
                         ArrvmFallbackWarning, sum, min, max, all, any, round_, abs)  # noqa: F401
# Functions built from _functions' (they add themselves to IMPLEMENTED and
# to ndarray's methods); _stencil uses _composed.
from . import _composed, _views, _elementwise, _stencil, _complex  # noqa: F401
from . import random  # noqa: F401
from . import _docs
from ._fp import errstate, seterr, geterr, seterrcall, geterrcall  # noqa: F401

__version__ = _core.__version__

# NumPy's dtype objects and constants are NumPy's own (arrvm.float64 is numpy.float64).
from numpy import (bool_, int8, int16, int32, int64, uint8, uint16, uint32, uint64, float32, float64,  # noqa: F401
                   dtype, pi, e, inf, nan, newaxis, finfo, iinfo, integer, floating,
                   number, generic, signedinteger, unsignedinteger, AxisError)
float_, int_, intp, uint, double, single = float64, int64, int64, uint64, float64, float32
Inf = PINF = infty = inf
NaN = NAN = nan
NINF = -inf
little_endian = _np.little_endian

class _IndexTrick:
    """NumPy's ogrid, mgrid, r_ and c_: NumPy builds the arrays (once, from
    the key) and they come back as arrvm arrays, so that the arithmetic on
    them (`c = x + 1j * y` of an ogrid) runs in arrvm instead of copying the
    NumPy arrays into arrvm again at every use."""

    def __init__(self, name):
        self._np = getattr(_np, name)
        self.__name__ = name

    def __getitem__(self, key):
        r = self._np[_to_np(key)]
        if isinstance(r, (list, tuple)):
            return type(r)(asarray(a) if isinstance(a, _np.ndarray) else a for a in r)
        return asarray(r) if isinstance(r, _np.ndarray) else r

    def __repr__(self):
        return 'arrvm.' + self.__name__


ogrid, mgrid, r_, c_ = (_IndexTrick(n) for n in ('ogrid', 'mgrid', 'r_', 'c_'))

globals().update(_IMPLEMENTED)  # (asarray: _ndarray.asarray_shared)
for _n, _u in _UFUNCS.items():
    globals()[_n] = _u
ndarray.__module__ = 'arrvm'
_docs.document()


def config():
    """The VM's configuration (backend, fuser, cost, trace, profile, cache)."""
    return _core.config()


def profile():
    """The VM's profile counters so far, as a dict."""
    return _json.loads(_core.profile_json())


def __getattr__(name):
    # Anything else comes from NumPy: functions run there (with a warning, on
    # synced data, results back as arrvm arrays); modules, classes and
    # constants as they are.
    attr = getattr(_np, name)
    if isinstance(attr, (_types.FunctionType, _types.BuiltinFunctionType, _np.ufunc)) or (
            callable(attr) and type(attr).__name__ == '_ArrayFunctionDispatcher'):
        return _wrap(name, attr)
    return attr


_atexit.register(_core.write_profile)
