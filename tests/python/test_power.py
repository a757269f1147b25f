"""NumPy's fast paths for a float array to a constant power (numpy's
fast_scalar_power): x**2 is x*x, x**0.5 is sqrt(x), x**-1 is 1/x and x**1 a
copy, so the values are NumPy's bit for bit, special values included (pow
differs in the last bit, and at -0.0 and -inf for 0.5); other exponents stay
pow. On ref and cpu, float64 and float32, in place too."""
import os
import subprocess
import sys
import textwrap

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def test_power_fast_paths_equal_numpys_values_bit_for_bit(tmp_path):
    code = textwrap.dedent('''
        import numpy as np, arrvm
        rng = np.random.default_rng(7)
        specials = [0.0, -0.0, 1.0, -1.0, np.inf, -np.inf, np.nan, 1e-310, -1e-310, 1e300, -1e300, 3.0]
        for dt in (np.float64, np.float32):
            x = np.concatenate([rng.standard_normal(5000) * 10.0 ** rng.integers(-30, 30, 5000),
                                np.array(specials)]).astype(dt)
            for e in (2, 2.0, 0.5, -1, -1.0, 1, 1.0, 3, -0.5, 2.5):
                with np.errstate(all='ignore'):
                    want = x ** e
                got = np.asarray(arrvm.asarray(x) ** e)
                assert got.dtype == want.dtype, (dt, e, got.dtype, want.dtype)
                if e in (2, 0.5, -1, 1):   # NumPy's fast paths: bit for bit
                    assert np.array_equal(got.view(np.uint8), want.view(np.uint8)), (dt, e)
                else:                      # pow: libmvec may differ by a few ulp on cpu
                    np.testing.assert_allclose(got, want, rtol=1e-5 if dt == np.float32 else 1e-13)
                y = arrvm.array(x)
                y **= e
                if e in (2, 0.5, -1, 1):
                    assert np.array_equal(np.asarray(y).view(np.uint8), want.view(np.uint8)), (dt, e, 'in place')
        ints = np.arange(-5, 6)
        assert np.array_equal(np.asarray(arrvm.asarray(ints) ** 2), ints ** 2)
        assert (arrvm.asarray(ints) ** 2).dtype == (ints ** 2).dtype
        assert np.array_equal(np.asarray(arrvm.asarray(ints) ** 2.0), ints ** 2.0)
        assert (arrvm.asarray(ints) ** 0.5).dtype == np.float64
        print('ok')
    ''')
    for backend in ('ref', 'cpu'):
        e = dict(os.environ)
        e.setdefault('PYTHONPATH', os.path.join(ROOT, 'build', 'python'))
        e['ARRVM_BACKEND'] = backend
        e['ARRVM_CACHE_DIR'] = str(tmp_path / 'cache')
        p = subprocess.run([sys.executable, '-c', code], env=e, capture_output=True, text=True, timeout=600)
        assert p.returncode == 0 and 'ok' in p.stdout, (backend, p.stdout + p.stderr)


def test_cube_is_rounded_once(tmp_path):
    """x**3 (the cube opcode): the exact cube rounded to nearest even,
    checked against Fraction arithmetic, where NumPy's pow (glibc's or
    SVML's) is off by one ulp in some elements; a subnormal result (it
    rounds twice there) within one ulp. Special values and warnings as
    NumPy's (no invalid value from a NaN or an infinity). Ref and
    cpu (the compiled kernel), float64 and float32, alone and fused."""
    code = textwrap.dedent('''
        import math, warnings
        from fractions import Fraction
        import numpy as np, arrvm
        rng = np.random.default_rng(11)
        specials = [0.0, -0.0, 1.0, -1.0, 3.0, np.inf, -np.inf, np.nan, 1e-310, -1e-120, 2.0 ** -300,
                    1e100, -1e102, 1e103, 1.5e-40]
        for dt, scale in ((np.float64, 100), (np.float32, 12)):
            x = np.concatenate([rng.standard_normal(4000) * 10.0 ** rng.integers(-scale, scale, 4000),
                                rng.uniform(-10, 10, 4000), np.array(specials)]).astype(dt)
            info = np.finfo(dt)
            with warnings.catch_warnings(record=True) as w:
                warnings.simplefilter('always')
                numpy_pow = x ** 3
            numpy_says = sorted(set(str(m.message) for m in w))   # (overflow encountered in power)
            for how in ('alone', 'fused'):
                a = arrvm.asarray(x)
                with warnings.catch_warnings(record=True) as w:
                    warnings.simplefilter('always')
                    got = np.asarray(a ** 3) if how == 'alone' else np.asarray((a * 1.0) ** 3 * 1.0)
                assert sorted(set(str(m.message) for m in w)) == numpy_says, (dt, how, [str(m.message) for m in w])
                assert got.dtype == dt
                exact = 0
                for xi, g, p in zip(x.tolist(), got.tolist(), numpy_pow.tolist()):
                    if not math.isfinite(p) or p == 0.0:
                        assert (math.isnan(g) and math.isnan(p)) or (g == p and math.copysign(1, g) == math.copysign(1, p)), (xi, g, p)
                        continue
                    want = Fraction(xi) ** 3
                    # the nearest value of dt (ties to even), by Fraction arithmetic
                    near = dt(float(want)) if dt == np.float64 else dt(np.float64(float(want)))
                    if abs(float(want)) < info.tiny:   # subnormal: one ulp
                        assert abs(Fraction(float(g)) - want) <= Fraction(float(info.smallest_subnormal)), (xi, g)
                        continue
                    lo, hi = np.nextafter(near, dt(-np.inf)), np.nextafter(near, dt(np.inf))
                    err = lambda v: abs(Fraction(float(v)) - want)
                    best = min((near, lo, hi), key=lambda v: (err(v), int(np.array(v).view(np.uint64 if dt == np.float64 else np.uint32)) & 1))
                    assert g == best, (dt, how, xi, g, float(best))
                    exact += 1
                assert exact > 7000, exact
        print('ok')
    ''')
    for backend in ('ref', 'cpu'):
        e = dict(os.environ)
        e.setdefault('PYTHONPATH', os.path.join(ROOT, 'build', 'python'))
        e['ARRVM_BACKEND'] = backend
        e['ARRVM_CACHE_DIR'] = str(tmp_path / 'cache')
        e['ARRVM_TIERED'] = 'off'   # (cpu: every instruction in a batch, run by its compiled kernel)
        e['ARRVM_EAGER'] = 'off'
        p = subprocess.run([sys.executable, '-c', code], env=e, capture_output=True, text=True, timeout=600)
        assert p.returncode == 0 and 'ok' in p.stdout, (backend, p.stdout + p.stderr)
