"""Complex arrays computed by arrvm (issue 44), compared with the installed
NumPy: value (exact for arithmetic; within a few ulp for the C library's
transcendental functions and |z|, which NumPy's AVX-512 loop computes
by scaling where arrvm calls hypot), dtype, shape and
exception class, for complex64 and complex128; a Mandelbrot set and a wave
written with complex exponentials, under the drop-in, fall back for nothing."""
import os
import subprocess
import sys
import warnings

import numpy
import pytest

import arrvm

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
Z = [1 + 2j, -3 + 0.5j, 0j, complex(numpy.inf, 1), complex(numpy.nan, 0), -0.25 - 4j, 2.5 + 0j, complex(0, -0.0)]
W = [3 - 1j, 2 + 2j, 1j, 2 + 0j, 1 + 1j, 0.5 + 0.5j, -1 - 1j, 4 + 3j]
X = [0.5, -1.0, 2.0, 0.0, 3.5, -2.25, 1e10, -0.0]

EXACT = {
    'add': lambda xp, z, w, x: z + w,
    'subtract': lambda xp, z, w, x: z - w,
    'multiply': lambda xp, z, w, x: z * w,
    'divide': lambda xp, z, w, x: z / w,
    'divide by zero': lambda xp, z, w, x: z / xp.zeros_like(z),
    'square by power': lambda xp, z, w, x: z ** 2,
    'cube': lambda xp, z, w, x: z ** 3,
    'inverse square': lambda xp, z, w, x: z ** -2,
    'int power': lambda xp, z, w, x: xp.power(z, 7),
    'negative': lambda xp, z, w, x: -z,
    'conjugate': lambda xp, z, w, x: xp.conjugate(z),
    'conj method': lambda xp, z, w, x: z.conj(),
    'real': lambda xp, z, w, x: z.real,
    'imag': lambda xp, z, w, x: z.imag,
    'np.real': lambda xp, z, w, x: xp.real(z),
    'np.imag of floats': lambda xp, z, w, x: xp.imag(x),
    'sign': lambda xp, z, w, x: xp.sign(z),
    'less': lambda xp, z, w, x: z < w,
    'greater_equal': lambda xp, z, w, x: z >= w,
    'equal': lambda xp, z, w, x: z == w,
    'not_equal': lambda xp, z, w, x: z != z,
    'maximum': lambda xp, z, w, x: xp.maximum(z, w),
    'minimum': lambda xp, z, w, x: xp.minimum(w, z),
    'isnan': lambda xp, z, w, x: xp.isnan(z),
    'isinf': lambda xp, z, w, x: xp.isinf(z),
    'isfinite': lambda xp, z, w, x: xp.isfinite(z),
    'float plus complex': lambda xp, z, w, x: x + w,
    'float times 1j': lambda xp, z, w, x: x * 1j,
    'build from parts': lambda xp, z, w, x: x + 1j * x[::-1],
    'complex scalar': lambda xp, z, w, x: w * (2 - 3j) + 0.5,
    'numpy scalar': lambda xp, z, w, x: w * numpy.complex128(1 + 1j),
    'where': lambda xp, z, w, x: xp.where(xp.abs(w) > 2, w, 0),
    'sum': lambda xp, z, w, x: w.sum(),
    'prod': lambda xp, z, w, x: w[:5].prod(),
    'mean': lambda xp, z, w, x: w.mean(),
    'cumsum': lambda xp, z, w, x: xp.cumsum(w),
    'cumprod': lambda xp, z, w, x: xp.cumprod(w[:6]),
    'max': lambda xp, z, w, x: w.max(),
    'min': lambda xp, z, w, x: xp.min(w),
    'sum of 2-d rows': lambda xp, z, w, x: (xp.outer(w, w) * 1j).sum(axis=1),
    'astype complex64': lambda xp, z, w, x: w.astype(xp.complex64) * (0.1 + 0.2j),
    'astype from int': lambda xp, z, w, x: xp.arange(5).astype(complex),
    'zeros complex': lambda xp, z, w, x: xp.zeros(3, dtype=complex),
    'indexing': lambda xp, z, w, x: w[[3, 0, 3]],
    'mask': lambda xp, z, w, x: w[xp.abs(w) > 2],
    'reshape transpose': lambda xp, z, w, x: w.reshape(2, 4).T,
    'dot': lambda xp, z, w, x: xp.dot(w, w),
    'float32 times 1j': lambda xp, z, w, x: x.astype(xp.float32) * 1j,
    'complex64 plus float': lambda xp, z, w, x: w.astype(xp.complex64) + 2.5,
    'logical_and': lambda xp, z, w, x: xp.logical_and(z, w),
    'logical_or': lambda xp, z, w, x: xp.logical_or(z, x),
    'logical_xor': lambda xp, z, w, x: xp.logical_xor(z, w),
    'logical_not': lambda xp, z, w, x: xp.logical_not(z),
    'fmax': lambda xp, z, w, x: xp.fmax(z, w),
    'fmin': lambda xp, z, w, x: xp.fmin(w, z),
    'reciprocal': lambda xp, z, w, x: xp.reciprocal(z),
    'reciprocal of tiny and huge parts': lambda xp, z, w, x: xp.reciprocal(z * 1e-300 + w * 1e300),
    'roll': lambda xp, z, w, x: xp.roll(w.reshape(2, 4), 1, 1).reshape(-1) + xp.roll(w, -3),
    'flip, repeat, tile': lambda xp, z, w, x: xp.flip(xp.tile(xp.repeat(w[:3], 2), 2)),
    'diag, trace': lambda xp, z, w, x: xp.diag(xp.outer(w[:3], z[:3])) + xp.trace(xp.outer(w[:3], w[:3])),
    'diff': lambda xp, z, w, x: xp.diff(w),
    'pad': lambda xp, z, w, x: xp.pad(w, 2),
    'nonzero': lambda xp, z, w, x: xp.flatnonzero(z),
    'max function': lambda xp, z, w, x: xp.max(w) + xp.min(w),
    'isclose': lambda xp, z, w, x: xp.isclose(w, w * (1 + 1e-9j)),
}

CLOSE = {  # the C library's complex functions, as NumPy calls them; |z| (NumPy's AVX-512 loop scales, hypot does not)
    'absolute': lambda xp, w: xp.abs(w),
    'angle': lambda xp, w: xp.angle(w),
    'angle deg': lambda xp, w: xp.angle(w, deg=True),
    'sqrt': lambda xp, w: xp.sqrt(w),
    'exp': lambda xp, w: xp.exp(w),
    'log': lambda xp, w: xp.log(w),
    'log10': lambda xp, w: xp.log10(w),
    'log2': lambda xp, w: xp.log2(w),
    'log1p': lambda xp, w: xp.log1p(w),
    'exp2': lambda xp, w: xp.exp2(w),
    'expm1': lambda xp, w: xp.expm1(w),
    'sin': lambda xp, w: xp.sin(w),
    'cos': lambda xp, w: xp.cos(w),
    'tan': lambda xp, w: xp.tan(w),
    'arcsin': lambda xp, w: xp.arcsin(w),
    'arctan': lambda xp, w: xp.arctan(w),
    'sinh': lambda xp, w: xp.sinh(w),
    'tanh': lambda xp, w: xp.tanh(w),
    'arccosh': lambda xp, w: xp.arccosh(w),
    'general power': lambda xp, w: w ** (0.5 + 0.25j),
    'float_power': lambda xp, w: xp.float_power(w, 0.5 - 1j),
}

ERRORS = {
    'floor': lambda xp, w: xp.floor(w),
    'remainder': lambda xp, w: w % w,
    'floor_divide': lambda xp, w: w // w,
    'bitwise': lambda xp, w: xp.bitwise_and(w, w),
    'arctan2': lambda xp, w: xp.arctan2(w, w),
}


def run(xp, f, dtype):
    z, w = xp.array(Z, dtype=dtype), xp.array(W, dtype=dtype)
    x = xp.array(X)
    with numpy.errstate(all='ignore'), warnings.catch_warnings():
        warnings.simplefilter('ignore')
        return f(xp, z, w, x)


def same(got, want, exact=True):
    got, want = numpy.asarray(got), numpy.asarray(want)
    assert got.dtype == want.dtype and got.shape == want.shape
    if exact:
        assert numpy.array_equal(got, want, equal_nan=True)
    else:
        assert numpy.allclose(got, want, rtol=4e-15 if got.dtype.itemsize >= 16 else 4e-7, atol=0, equal_nan=True)


@pytest.mark.parametrize('dtype', [numpy.complex128, numpy.complex64])
@pytest.mark.parametrize('name', sorted(EXACT))
def test_exact_as_numpy(name, dtype):
    got = run(arrvm, EXACT[name], dtype)
    want = run(numpy, EXACT[name], dtype)
    if isinstance(want, numpy.ndarray):
        assert isinstance(got, arrvm.ndarray)
    same(got, want)


@pytest.mark.parametrize('dtype', [numpy.complex128, numpy.complex64])
@pytest.mark.parametrize('name', sorted(CLOSE))
def test_functions_within_numpy_tolerance(name, dtype):
    w = [1 + 2j, -3 + 0.5j, 0.25j, 2 + 0j, -1 - 1j, 0.5 + 0.5j, 4 + 3j, -0.5 + 0j]
    got = CLOSE[name](arrvm, arrvm.array(w, dtype=dtype))
    want = CLOSE[name](numpy, numpy.array(w, dtype=dtype))
    assert isinstance(got, arrvm.ndarray)
    same(got, want, exact=False)


@pytest.mark.parametrize('name', sorted(ERRORS))
def test_undefined_on_complex_raises_numpys_class(name):
    with pytest.raises(Exception) as mine:
        ERRORS[name](arrvm, arrvm.array(W))
    with pytest.raises(Exception) as theirs:
        ERRORS[name](numpy, numpy.array(W))
    assert isinstance(mine.value, TypeError) and isinstance(theirs.value, TypeError)


def test_complex_to_real_warns_and_assignment_of_parts():
    z = arrvm.array(W)
    with pytest.warns(numpy.ComplexWarning):
        r = z.astype(numpy.float64)
    assert numpy.asarray(r).tolist() == numpy.real(W).tolist()
    n = numpy.array(W)
    z.real = arrvm.arange(8.0)
    n.real = numpy.arange(8.0)
    z.imag = -1.5
    n.imag = -1.5
    same(z, n)
    # functions without a complex path run in NumPy, with NumPy's answer
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        same(arrvm.var(arrvm.array(W)), numpy.var(W), exact=False)
        same(arrvm.array(W).std(), numpy.array(W).std(), exact=False)


def test_numpy_complex_arrays_in_and_out():
    n = numpy.array(W, dtype=numpy.complex64)
    a = arrvm.asarray(n)
    assert isinstance(a, arrvm.ndarray) and a.dtype == numpy.complex64
    same(numpy.asarray(a * 2), n * 2)
    assert a[1] == n[1]
    # (an element read at once is NumPy's scalar where the backend computes
    # in host memory; elsewhere a 0-d array, for every dtype: test_reads)
    assert type(a[1]) is (numpy.complex64 if arrvm._ndarray._host_backend() else arrvm.ndarray)
    assert complex(arrvm.array(W).sum()) == complex(numpy.array(W).sum())


PROGRAMS = {
    'mandelbrot': '''
import numpy as np
h, w, steps = 60, 90, 40
y, x = np.ogrid[-1.4:1.4:h * 1j, -2:0.8:w * 1j]
c = x + y * 1j
z = np.zeros_like(c)
count = np.zeros(c.shape, dtype=int)
for _ in range(steps):
    inside = np.abs(z) <= 2
    z = np.where(inside, z ** 2 + c, z)
    count += inside
print(count.sum(), repr(float(np.abs(z[np.isfinite(z)]).sum())))
''',
    'wave': '''
import numpy as np
n, steps, dt = 256, 50, 0.01
x = np.linspace(0, 2 * np.pi, n, endpoint=False)
k = np.arange(n)
psi = np.exp(1j * 3 * x) * np.exp(-((x - np.pi) ** 2))
phase = np.exp(-1j * 0.5 * dt * np.minimum(k, n - k) ** 2)
total = 0j
for _ in range(steps):
    psi = psi * phase[::-1] * np.exp(1j * dt * np.cos(x))
    total += np.vdot(psi, psi) + (psi * psi.conj()).sum()
print(repr(total.real), repr(total.imag), repr(float(np.abs(psi).max())))
''',
}


@pytest.mark.parametrize('name', sorted(PROGRAMS))
def test_programs_under_the_dropin_fall_back_for_nothing(name, tmp_path):
    script = tmp_path / (name + '.py')
    script.write_text(PROGRAMS[name])
    want = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=300)
    env = dict(os.environ)
    env.setdefault('PYTHONPATH', os.path.join(ROOT, 'build', 'python'))
    got = subprocess.run([sys.executable, '-m', 'arrvm', str(script)], capture_output=True, text=True,
                         timeout=300, env=env)
    assert want.returncode == 0, want.stderr
    assert got.returncode == 0, got.stderr
    assert 'ArrvmFallbackWarning' not in got.stderr, got.stderr
    # the iteration counts exactly; sums of |z| within rounding (NumPy's |z| and summation order)
    g, w = [float(v) for v in got.stdout.split()], [float(v) for v in want.stdout.split()]
    if name == 'mandelbrot':
        assert g[0] == w[0]
    assert numpy.allclose(g, w, rtol=1e-12)


def test_every_numpy_ufunc_with_a_complex_loop_runs_in_arrvm():
    """NumPy's ufuncs that have a complex loop: none falls back to NumPy
    (ArrvmFallbackWarning) on complex128 operands, and each gives NumPy's
    values (exactly, or within the C library's accuracy)."""
    zn = numpy.array(Z[:3] + Z[5:7])
    wn = numpy.array(W[:5])
    z, w = arrvm.asarray(zn), arrvm.asarray(wn)
    names = [n for n in dir(numpy) if isinstance(getattr(numpy, n), numpy.ufunc) and
             any('D' in t.split('->')[0] for t in getattr(numpy, n).types)]
    assert len(names) > 40
    for name in names:
        u = getattr(numpy, name)
        with warnings.catch_warnings(record=True) as rec, numpy.errstate(all='ignore'):
            warnings.simplefilter('always')
            got = numpy.asarray(getattr(arrvm, name)(z) if u.nin == 1 else getattr(arrvm, name)(z, w))
        assert not [r for r in rec if issubclass(r.category, arrvm.ArrvmFallbackWarning)], name
        with numpy.errstate(all='ignore'):
            want = u(zn) if u.nin == 1 else u(zn, wn)
        assert got.dtype == want.dtype, name
        numpy.testing.assert_allclose(got, want, rtol=1e-14, atol=0, equal_nan=True, err_msg=name)


def test_numpy_ufuncs_written_as_functions_dispatch_to_arrvm():
    """numpy.fmax(a, b) (NumPy's own ufunc, as library code calls it) on arrvm
    arrays runs arrvm's function where arrvm writes the ufunc as one
    (fmax, reciprocal, logaddexp, ...): no fallback, NumPy's values, out= kept."""
    zn, xn = numpy.array(W[:4]), numpy.array([1.0, numpy.nan, -2.0, 0.5])
    z, x = arrvm.asarray(zn), arrvm.asarray(xn)
    with warnings.catch_warnings():
        warnings.simplefilter('error', arrvm.ArrvmFallbackWarning)
        assert numpy.array_equal(numpy.asarray(numpy.reciprocal(z)), numpy.reciprocal(zn))
        assert numpy.array_equal(numpy.asarray(numpy.fmax(x, 0.0)), numpy.fmax(xn, 0.0))
        assert numpy.array_equal(numpy.asarray(numpy.fmin(z, z[::-1])), numpy.fmin(zn, zn[::-1]))
        o = arrvm.zeros(4)
        assert numpy.logaddexp(x, x, out=o) is o
        numpy.testing.assert_allclose(numpy.asarray(o), numpy.logaddexp(xn, xn), rtol=1e-15)
