"""arrvm.random: NumPy's random streams, and arrvm's own Philox generator.

By default the legacy functions (`seed`, `rand`, `randn`, `randint`,
`random`, `normal`, `uniform`, `choice`, `shuffle`, `permutation`, every
distribution) and `RandomState` / `default_rng` are NumPy's own, so a seeded
program prints what it prints under NumPy: the numbers come from NumPy's
generator (MT19937, PCG64) and become arrvm arrays without a copy (arrvm
adopts the fresh NumPy memory); `shuffle` of an arrvm array shuffles it.

`arrvm.random.Philox(seed)` is arrvm's generator: the VM's `random` opcode
(Philox-4x32-10 under a 64-bit seed, a block per two elements of the flat
index, identical on every backend), computed inside fused kernels, so the
numbers are never stored when only their use is. Its streams are not
NumPy's. `ARRVM_RANDOM=philox` makes the module-level functions above use
one Philox instance instead of NumPy's global generator."""
import math as _math
import os as _os

import numpy as _np

from . import _core
from ._ndarray import _int_of
from . import _functions as _f

_MASK = (1 << 64) - 1


def _shape(size):
    if size is None:
        return None
    n = _int_of(size)
    return (n,) if n is not None else tuple(int(s) for s in size)


class Philox:
    """arrvm's Philox-4x32-10 generator: each call draws from its own key
    (splitmix64 of the seed and a counter), in the VM (fused, any backend)."""

    def __init__(self, seed=None):
        self.seed(seed)

    def seed(self, s=None):
        """Seeds the generator (None: from the OS)."""
        self._seed = int.from_bytes(_os.urandom(8), 'little') if s is None else int(s) & _MASK
        self._counter = 0

    def _next_seed(self):
        self._counter += 1
        z = (self._seed + self._counter * 0x9E3779B97F4A7C15) & _MASK
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
        return z ^ (z >> 31)

    def _uniform01(self, size):
        shape = _shape(size)
        r = _core.random_uniform(() if shape is None else shape, self._next_seed())
        return r if shape is not None else float(r)

    def random(self, size=None):
        """float64 uniform in [0, 1)."""
        return self._uniform01(size)

    random_sample = ranf = sample = random

    def rand(self, *shape):
        return self._uniform01(shape if shape else None)

    def uniform(self, low=0.0, high=1.0, size=None):
        return low + (high - low) * self._uniform01(size)

    def normal(self, loc=0.0, scale=1.0, size=None):
        """Box-Muller on two uniform streams."""
        shape = _shape(size)
        s = () if shape is None else shape
        u1 = _core.random_uniform(s, self._next_seed())
        u2 = _core.random_uniform(s, self._next_seed())
        z = _f.sqrt(-2.0 * _f.log1p(-u1)) * _f.cos((2.0 * _math.pi) * u2)
        r = loc + scale * z
        return r if shape is not None else float(r)

    def standard_normal(self, size=None):
        return self.normal(0.0, 1.0, size)

    def randn(self, *shape):
        return self.normal(0.0, 1.0, shape if shape else None)

    def randint(self, low, high=None, size=None, dtype=int):
        if high is None:
            low, high = 0, low
        shape = _shape(size)
        u = _core.random_uniform(() if shape is None else shape, self._next_seed())
        r = _f.floor(u * float(high - low)).astype(_np.int64) + int(low)
        r = _f.minimum(r, int(high) - 1)
        if dtype is not int and _np.dtype(dtype) != _np.int64:
            r = r.astype(dtype)
        return r if shape is not None else int(r)


def _numpy_stream(name, func):
    """NumPy's `func` (of numpy.random), its arrays as arrvm arrays, no warning."""
    return _f.wrap_numpy('random.' + name, func, warn=False)


_PHILOX_NAMES = ('seed', 'random', 'random_sample', 'ranf', 'sample', 'rand', 'uniform', 'normal',
                 'standard_normal', 'randn', 'randint')
if _os.environ.get('ARRVM_RANDOM', 'numpy').lower() == 'philox':
    _philox = Philox()
    globals().update({n: getattr(_philox, n) for n in _PHILOX_NAMES})
else:
    globals().update({n: _numpy_stream(n, getattr(_np.random, n)) for n in _PHILOX_NAMES})


def __getattr__(name):
    # The rest of numpy.random: its functions draw from NumPy's global
    # generator (the one seed() seeds); classes (RandomState, Generator,
    # default_rng's result) are NumPy's.
    attr = getattr(_np.random, name)
    if callable(attr) and not isinstance(attr, type) and name != 'default_rng':
        return _numpy_stream(name, attr)
    return attr
