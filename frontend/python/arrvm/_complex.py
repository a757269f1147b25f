"""Complex arrays' own functions and ndarray members: numpy.real, imag,
angle, iscomplexobj, isrealobj; .real and .imag (assignable), .conj, and
the methods NumPy computes for a complex array where arrvm does not (var,
std, clip, round). The package imports this module after _functions; its
functions join IMPLEMENTED (with the dtype fallback)."""
import numpy as _np

from . import _core
from ._ndarray import ndarray, asarray, dtype_code
from ._functions import IMPLEMENTED, _dtype_fallback, _fallback, conjugate, zeros_like


def real(val):
    """numpy.real: a complex array's real parts (a new array: arrvm's views
    keep one dtype), anything else as it is."""
    x = asarray(val)
    return x._astype(dtype_code(_np.float32 if x.dtype == _np.complex64 else _np.float64)) if x.dtype.kind == 'c' else x


def imag(val):
    """numpy.imag: a complex array's imaginary parts, zeros otherwise."""
    x = asarray(val)
    return _core.imag(x) if x.dtype.kind == 'c' else zeros_like(x)


def angle(z, deg=False):
    """numpy.angle: arctan2 of the imaginary and real parts (radians, or degrees)."""
    z = asarray(z)
    if z.dtype.kind == 'c':
        a = _core.ufunc('arctan2', (imag(z), real(z)), None)
    else:
        a = _core.ufunc('arctan2', (zeros_like(z, dtype=_np.float64 if z.dtype.kind != 'f' else z.dtype), z), None)
    return a * (180.0 / _np.pi) if deg else a


def iscomplexobj(x):
    return _np.dtype(getattr(x, 'dtype', _np.asarray(x).dtype)).kind == 'c'


def isrealobj(x):
    return not iscomplexobj(x)


ndarray.conj = ndarray.conjugate = lambda self: conjugate(self)


def _set_real(self, value):
    if self.dtype.kind != 'c':
        self[...] = value
        return
    self[...] = _core.make_complex(asarray(value, real(self).dtype), imag(self))


def _set_imag(self, value):
    if self.dtype.kind != 'c':
        raise TypeError("array does not have imaginary part to set")
    self[...] = _core.make_complex(real(self), asarray(value, real(self).dtype))


# .real and .imag of a complex array are new arrays (an arrvm view has its
# base's dtype), assignable: z.real = x writes z's real parts.
ndarray.real = property(lambda self: real(self) if self.dtype.kind == 'c' else self, _set_real)
ndarray.imag = property(imag, _set_imag)


def _complex_method(name, method):
    """ndarray.`name`, NumPy's on a complex array (var, std, clip, ...)."""
    np_method = getattr(_np.ndarray, name)

    def m(self, *args, **kwargs):
        if self.dtype.kind == 'c':
            return _fallback(np_method, 'ndarray.' + name, (self,) + args, kwargs)
        return method(self, *args, **kwargs)
    m.__name__ = name
    return m


for _name in ('var', 'std', 'clip', 'round'):
    setattr(ndarray, _name, _complex_method(_name, getattr(ndarray, _name)))


IMPLEMENTED.update({f.__name__: _dtype_fallback(f.__name__, f) for f in (real, imag, angle, iscomplexobj, isrealobj)})
