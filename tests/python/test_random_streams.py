"""arrvm.random gives NumPy's streams: after seed(s), the legacy
functions, and default_rng(s)'s methods, give NumPy's numbers for 5 seeds,
as arrvm arrays; arrvm.random.Philox stays arrvm's own generator."""
import os
import subprocess
import sys

import numpy
import pytest

import arrvm

SEEDS = [0, 1, 7, 42, 2**31 + 5]


def draws(xp):
    """Every draw after seeding, as plain lists, with the kind of array each was."""
    r = xp.random
    out, kinds = [], set()
    x = xp.arange(10)
    r.shuffle(x)
    for v in (r.rand(3), r.randn(2, 3), r.randint(0, 10, 6), r.randint(5, size=(2, 2), dtype=numpy.int32),
              r.normal(1.0, 2.0, 4), r.uniform(-1, 1, 3), r.choice(10, 5), r.choice([1.5, 2.5, 3.5], 4, replace=True),
              x, r.permutation(7), r.random(), r.random_sample((2,)), r.standard_normal(3), r.exponential(2.0, 3)):
        kinds.add(type(v).__module__)
        out.append(numpy.asarray(v).tolist())
    return out, kinds


@pytest.mark.parametrize('seed', SEEDS)
def test_legacy_functions_give_numpy_stream(seed):
    numpy.random.seed(seed)
    want, _ = draws(numpy)
    arrvm.random.seed(seed)
    got, kinds = draws(arrvm)
    assert got == want
    assert 'arrvm' in kinds  # the arrays are arrvm's (scalars stay NumPy's)


@pytest.mark.parametrize('seed', SEEDS)
def test_default_rng_gives_numpy_stream(seed):
    def run(xp):
        g = xp.random.default_rng(seed)
        return [numpy.asarray(v).tolist() for v in (g.random(4), g.normal(size=3), g.integers(0, 100, 5))]
    assert run(arrvm) == run(numpy)


def test_results_compute_in_arrvm():
    arrvm.random.seed(3)
    a = arrvm.random.rand(1000)
    numpy.random.seed(3)
    b = numpy.random.rand(1000)
    assert isinstance(a, arrvm.ndarray)
    assert float((a * 2 + 1).sum()) == pytest.approx(float((b * 2 + 1).sum()), rel=1e-14)


def test_philox_is_arrvm_own_and_reproducible():
    p, q = arrvm.random.Philox(9), arrvm.random.Philox(9)
    a, b = numpy.asarray(p.rand(1000)), numpy.asarray(q.rand(1000))
    assert a.tolist() == b.tolist() and 0.0 <= a.min() and a.max() < 1.0 and abs(a.mean() - 0.5) < 0.05
    numpy.random.seed(9)
    assert a.tolist() != numpy.random.rand(1000).tolist()


def test_arrvm_random_philox_env_selects_philox():
    code = ("import arrvm, numpy; arrvm.random.seed(4); a = numpy.asarray(arrvm.random.rand(5)).tolist();"
            "p = arrvm.random.Philox(4); print(a == numpy.asarray(p.rand(5)).tolist())")
    env = dict(os.environ, ARRVM_RANDOM='philox')
    env.setdefault('PYTHONPATH', os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(
        os.path.abspath(__file__)))), 'build', 'python'))
    p = subprocess.run([sys.executable, '-c', code], env=env, capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr
    assert p.stdout.strip() == 'True'
