"""NumPy's documented examples (numpy_docs/expressions.txt, one expression a
line, from the examples of NumPy 1.24's reference of each function arrvm
implements): evaluated with `np` = the installed NumPy and `np` = arrvm, the
outcomes must agree: the value (float64 to 1e-12 relative, float32 to 4e-7:
transcendental functions may differ in the last bits), the dtype and the shape, or the
class of the exception raised. arrvm's reductions give 0-d arrays where
NumPy gives scalars; both compare as NumPy arrays. Expressions arrvm still
answers differently are listed in numpy_docs/known_differences.txt with the
reason, and are expected to fail (strictly: one that starts to agree must
leave the list)."""
import os
import warnings

import numpy
import pytest

import arrvm

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'numpy_docs')


def read(name):
    lines = []
    with open(os.path.join(HERE, name)) as f:
        for line in f:
            line = line.rstrip('\n')
            if line.strip() and not line.startswith('#'):
                lines.append(line)
    return lines


EXPRESSIONS = read('expressions.txt')
KNOWN = {line.split('  #', 1)[0].rstrip() for line in read('known_differences.txt')}


def normalize(r):
    if isinstance(r, (tuple, list)) and not (r and all(isinstance(x, (bool, int, float)) for x in r)):
        return ('seq', type(r).__name__, [normalize(x) for x in r])
    if isinstance(r, (bool, int, float, str)) and not isinstance(r, numpy.generic):
        return ('python', type(r).__name__, r)
    if isinstance(r, (numpy.dtype, type)):
        return ('dtype', str(numpy.dtype(r)))
    a = numpy.asarray(r)
    return ('array', str(a.dtype), a.shape, a)


def outcome(expr, np):
    with warnings.catch_warnings(), numpy.errstate(all='ignore'):
        warnings.simplefilter('ignore')
        try:
            return normalize(eval(expr, {'np': np}))
        except Exception as e:  # the class is what is compared
            return ('raises', 'AxisError' if isinstance(e, numpy.AxisError) else type(e).__name__)


def same(a, b):
    if a[0] != b[0]:
        return False
    if a[0] == 'seq':
        return a[1] == b[1] and len(a[2]) == len(b[2]) and all(same(x, y) for x, y in zip(a[2], b[2]))
    if a[0] == 'python' and isinstance(a[2], float):
        return a[1] == b[1] and (a[2] == b[2] or numpy.isclose(a[2], b[2], rtol=1e-12, atol=0, equal_nan=True))
    if a[0] != 'array':
        return a == b
    x, y = a[3], b[3]
    if a[1:3] != b[1:3]:
        return False
    if x.dtype.kind in 'fc':  # float32 functions: NumPy's SIMD ones are within an ulp or two
        rtol = 1e-12 if x.dtype.itemsize >= 8 else 4e-7
        return bool(numpy.allclose(x, y, rtol=rtol, atol=1e-300, equal_nan=True))
    return bool(numpy.array_equal(x, y))


def test_enough_expressions():
    assert len(EXPRESSIONS) >= 300 and len(set(EXPRESSIONS)) == len(EXPRESSIONS)
    assert KNOWN <= set(EXPRESSIONS), KNOWN - set(EXPRESSIONS)


@pytest.mark.parametrize('expr', [pytest.param(e, marks=pytest.mark.xfail(strict=True, reason='known difference'))
                                  if e in KNOWN else e for e in EXPRESSIONS])
def test_expression_agrees_with_numpy(expr):
    want, got = outcome(expr, numpy), outcome(expr, arrvm)
    assert same(got, want), (got, want)
