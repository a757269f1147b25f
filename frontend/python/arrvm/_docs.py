"""Docstrings for the public API: each function, ufunc and ndarray method
that arrvm computes gets a note on what arrvm does, then NumPy's own
documentation of the same name (the arguments and results are NumPy's).
The package imports this module last."""
import types as _types

import numpy as _np

from ._functions import IMPLEMENTED, UFUNCS
from ._ndarray import ndarray

_NOTE = """arrvm's {kind}{name}: the arguments and results of NumPy's, computed by libarrvm.
It returns at once; the VM runs it when a value is read (print, float(), if, numpy.asarray)
or on arrvm.flush(), fused with the operations around it into compiled kernels. Where
arrvm differs from NumPy: dtypes it does not compute (float16, object, datetime;
complex on opencl and mpi) and arguments it does not take run in NumPy itself, on a synced copy, with
one ArrvmFallbackWarning per function; values are NumPy's within floating-point
rounding (fused kernels may sum in another order; docs/semantics.md).

NumPy's documentation of numpy.{qual}{name}:

{numpy}"""


def _numpy_doc(obj):
    doc = getattr(obj, '__doc__', None) if obj is not None else None
    return doc or '(NumPy has no documentation for it.)'


_OWN = """arrvm's {kind}{name}: {own}

NumPy's documentation of numpy.{qual}{name}:

{numpy}"""


def _document(f, kind, qual, name, numpy_obj):
    own = getattr(f, '__doc__', None)
    if own and "NumPy's documentation of" in own:
        return  # (one function under two names)
    note = _OWN if own else _NOTE
    try:
        f.__doc__ = note.format(kind=kind, name=name, qual=qual, own=own, numpy=_numpy_doc(numpy_obj))
    except (AttributeError, TypeError):
        pass  # a built-in whose __doc__ is read-only keeps its own


def document():
    for name, f in IMPLEMENTED.items():
        if isinstance(f, (_types.FunctionType, _types.MethodType)):
            _document(f, 'function ', '', name, getattr(_np, name, None))
    for name, u in UFUNCS.items():
        u.__doc__ = _NOTE.format(kind='ufunc ', name=name, qual='', numpy=_numpy_doc(getattr(_np, name, None)))
    for name, m in list(vars(ndarray).items()):
        if name.startswith('_') or not isinstance(m, _types.FunctionType):
            continue
        _document(m, 'method ndarray.', 'ndarray.', name, getattr(_np.ndarray, name, None))
