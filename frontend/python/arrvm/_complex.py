"""Complex arrays' own functions and ndarray members: numpy.real, imag,
angle, iscomplexobj, isrealobj, reciprocal (NumPy's complex formula);
.real and .imag (assignable), .conj, and
the methods NumPy computes for a complex array where arrvm does not (var,
std, clip, round). The package imports this module after _functions; its
functions join IMPLEMENTED (with the dtype fallback)."""
import numpy as _np

from . import _core
from ._ndarray import ndarray, asarray, dtype_code
from ._functions import (IMPLEMENTED, _dtype_fallback, _fallback, _into, absolute, conjugate, reciprocal as _reciprocal,
                         where, zeros_like)


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


def reciprocal(x, out=None):
    """numpy.reciprocal; of a complex number NumPy's own formula, which
    rounds otherwise than 1 / z: with r = im / re and d = re + im r,
    (1 / d, -r / d) where |im| <= |re|, else with r = re / im and
    d = re r + im, (r / d, -1 / d). Each branch's operands are replaced by
    harmless ones (1, 0) where the other is taken, so that only NumPy's own
    operations raise floating-point flags."""
    z = asarray(x)
    if z.dtype.kind != 'c':
        return _reciprocal(z, out)
    re, im = real(z), imag(z)
    small = absolute(im) <= absolute(re)
    re1, im1 = where(small, re, 1), where(small, im, 0)
    r1 = im1 / re1
    d1 = re1 + im1 * r1
    re2, im2 = where(small, 0, re), where(small, 1, im)
    r2 = re2 / im2
    d2 = re2 * r2 + im2
    return _into(_core.make_complex(where(small, 1 / d1, r2 / d2), where(small, -r1 / d1, -1 / d2)), out)


IMPLEMENTED.update({f.__name__: _dtype_fallback(f.__name__, f)
                    for f in (real, imag, angle, iscomplexobj, isrealobj, reciprocal)})
