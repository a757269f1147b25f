"""NumPy elementwise functions arrvm composes from its opcodes, each with
NumPy's values (the same formula NumPy's C loop evaluates, select by select),
so they fuse instead of falling back: fmax, fmin, heaviside, logaddexp,
logaddexp2, float_power, copysign, signbit, isposinf, isneginf, nan_to_num,
fmod of integers.
Their dtype is the installed NumPy's answer for the operands (computed on
one-element stand-ins, as the ufuncs' slow path does). _functions imports
this module at its end."""
import math as _math

import numpy as _np

from ._functions import IMPLEMENTED, _dtype_fallback, _into, where, isnan, isinf, maximum, minimum, log1p, exp, \
    power, absolute
from ._ndarray import ndarray, asarray, _common_dtype, UnsupportedDType


def _operands(name, *args):
    """The operands as arrvm arrays of the dtype NumPy computes `name` in."""
    dt = _common_dtype(name, [a if isinstance(a, (ndarray, bool, int, float)) else asarray(a) for a in args])
    return [asarray(a).astype(dt) if not isinstance(a, ndarray) or a.dtype != dt else a for a in args]


def fmax(x1, x2, out=None):
    """The maximum, ignoring a NaN (NumPy: the other operand)."""
    a, b = _operands('fmax', x1, x2)
    if a.dtype.kind not in 'fc':  # (complex: a NaN in either part; maximum's order, NumPy's loop)
        return _into(maximum(a, b), out)
    return _into(where(isnan(a), b, where(isnan(b), a, maximum(a, b))), out)


def fmin(x1, x2, out=None):
    """The minimum, ignoring a NaN (NumPy: the other operand)."""
    a, b = _operands('fmin', x1, x2)
    if a.dtype.kind not in 'fc':
        return _into(minimum(a, b), out)
    return _into(where(isnan(a), b, where(isnan(b), a, minimum(a, b))), out)


def heaviside(x1, x2, out=None):
    """0 where x1 < 0, x2 where x1 == 0, 1 where x1 > 0, NaN where x1 is."""
    a, b = _operands('heaviside', x1, x2)
    return _into(where(isnan(a), a, where(a < 0, 0, where(a > 0, 1, b))).astype(a.dtype), out)


def logaddexp(x1, x2, out=None):
    """log(exp(x1) + exp(x2)) as NumPy's npy_logaddexp: x + log(2) when
    equal (infinities too), else the larger plus log1p(exp(-|x1 - x2|))."""
    a, b = _operands('logaddexp', x1, x2)
    d = a - b
    r = where(a == b, a + _math.log(2.0),
              where(d > 0, a + log1p(exp(-d)), where(d <= 0, b + log1p(exp(d)), d)))
    return _into(r.astype(a.dtype), out)


def logaddexp2(x1, x2, out=None):
    """log2(2**x1 + 2**x2) as NumPy's npy_logaddexp2 (log2(1 + y) as
    log1p(y) / log(2))."""
    a, b = _operands('logaddexp2', x1, x2)
    d = a - b
    inv_ln2 = 1.0 / _math.log(2.0)
    r = where(a == b, a + 1.0,
              where(d > 0, a + log1p(power(2.0, -d)) * inv_ln2,
                    where(d <= 0, b + log1p(power(2.0, d)) * inv_ln2, d)))
    return _into(r.astype(a.dtype), out)


def fmod(x1, x2, out=None):
    """C's remainder (the sign of the dividend) for integers, from NumPy's
    remainder (the divisor's sign): the two differ by the divisor where the
    signs differ and the remainder is not 0; a zero divisor gives 0, as
    NumPy's. Floats run in NumPy (C's fmod is exact; no composition is)."""
    a, b = _operands('fmod', x1, x2)
    if a.dtype.kind == 'f':
        raise UnsupportedDType("arrvm: fmod of floats runs in NumPy")
    r = a % b
    if a.dtype.kind == 'u':
        return _into(r, out)
    return _into(where((r != 0) & ((a < 0) != (b < 0)), r - b, r), out)


def float_power(x1, x2, out=None):
    """power in float64, or complex128 (NumPy casts both operands first)."""
    a, b = asarray(x1), asarray(x2)
    dt = _np.complex128 if a.dtype.kind == 'c' or b.dtype.kind == 'c' else _np.float64
    return _into(power(a.astype(dt), b.astype(dt)), out)


def signbit(x, out=None):
    """True where the sign bit is set: negatives and -0.0 (a NaN's sign is
    not read: NumPy's signbit(-nan) is True, arrvm's False)."""
    a = asarray(x)
    if a.dtype.kind != 'f':
        return _into(a < 0, out)
    return _into((a < 0) | ((a == 0) & (1.0 / where(a == 0, a, 1.0) < 0)), out)


def copysign(x1, x2, out=None):
    """|x1| with the sign of x2 (sign bits as signbit reads them)."""
    a, b = _operands('copysign', x1, x2)
    return _into(where(signbit(b), -absolute(a), absolute(a)), out)


def isposinf(x, out=None):
    a = asarray(x)
    return _into(isinf(a) & (a > 0), out)


def isneginf(x, out=None):
    a = asarray(x)
    return _into(isinf(a) & (a < 0), out)


def nan_to_num(x, copy=True, nan=0.0, posinf=None, neginf=None):
    """NaN to `nan`, infinities to the largest finite numbers of the dtype
    (or posinf/neginf)."""
    a = asarray(x)
    if a.dtype.kind != 'f':
        return a.copy() if copy else a
    info = _np.finfo(a.dtype)
    hi = info.max if posinf is None else posinf
    lo = info.min if neginf is None else neginf
    r = where(isnan(a), nan, where(a == _np.inf, hi, where(a == -_np.inf, lo, a))).astype(a.dtype)
    if not copy:
        a[...] = r
        return a
    return r


IMPLEMENTED.update({f.__name__: _dtype_fallback(f.__name__, f)
                    for f in (fmax, fmin, fmod, heaviside, logaddexp, logaddexp2, float_power, signbit, copysign,
                              isposinf, isneginf, nan_to_num)})
