"""arrvm.random: NumPy's legacy random functions from the VM's `random`
opcode (Philox-4x32-10 under a 64-bit seed, a block per two elements of the
flat index, identical on every backend). The streams differ from NumPy's
Mersenne Twister: a seeded program is reproducible under arrvm, not equal to
its NumPy run."""
import math as _math
import os as _os

import numpy as _np

from . import _core
from ._ndarray import ndarray, dtype_code, _int_of
from . import _functions as _f

_MASK = (1 << 64) - 1
_state = {'seed': int.from_bytes(_os.urandom(8), 'little'), 'counter': 0}


def seed(s=None):
    """Seeds the generator (None: from the OS)."""
    _state['seed'] = int.from_bytes(_os.urandom(8), 'little') if s is None else int(s) & _MASK
    _state['counter'] = 0


def _next_seed():
    _state['counter'] += 1
    # splitmix64 of (seed, counter): each call gets an independent Philox key.
    z = (_state['seed'] + _state['counter'] * 0x9E3779B97F4A7C15) & _MASK
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
    return z ^ (z >> 31)


def _shape(size):
    if size is None:
        return None
    n = _int_of(size)
    return (n,) if n is not None else tuple(int(s) for s in size)


def _uniform01(size):
    shape = _shape(size)
    r = _core.random_uniform(() if shape is None else shape, _next_seed())
    return r if shape is not None else float(r)


def random(size=None):
    """float64 uniform in [0, 1)."""
    return _uniform01(size)


random_sample = ranf = sample = random


def rand(*shape):
    return _uniform01(shape if shape else None)


def uniform(low=0.0, high=1.0, size=None):
    u = _uniform01(size)
    return low + (high - low) * u


def normal(loc=0.0, scale=1.0, size=None):
    """Box-Muller on two uniform streams."""
    shape = _shape(size)
    s = () if shape is None else shape
    u1 = _core.random_uniform(s, _next_seed())
    u2 = _core.random_uniform(s, _next_seed())
    z = _f.sqrt(-2.0 * _f.log1p(-u1)) * _f.cos((2.0 * _math.pi) * u2)
    r = loc + scale * z
    return r if shape is not None else float(r)


def standard_normal(size=None):
    return normal(0.0, 1.0, size)


def randn(*shape):
    return normal(0.0, 1.0, shape if shape else None)


def randint(low, high=None, size=None, dtype=int):
    if high is None:
        low, high = 0, low
    shape = _shape(size)
    u = _core.random_uniform(() if shape is None else shape, _next_seed())
    r = _f.floor(u * float(high - low)).astype(_np.int64) + int(low)
    r = _f.minimum(r, int(high) - 1)
    if dtype is not int and _np.dtype(dtype) != _np.int64:
        r = r.astype(dtype)
    return r if shape is not None else int(r)


def __getattr__(name):
    attr = getattr(_np.random, name)
    if callable(attr) and not isinstance(attr, type):
        return _f.wrap_numpy('random.' + name, attr)
    return attr
