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


def large_draws(xp, rs=None):
    """Draws of the sizes arrvm generates itself (>= 4096), between NumPy's
    own draws, from positions of the 624-word state that are odd, even and
    one short of a regeneration: every value equal to NumPy's, and the
    state after them too."""
    r = rs if rs is not None else xp.random
    out = []
    for v in (r.rand(4097), r.randn(1), r.random_sample((64, 65)), r.rand(3), r.uniform(-2.5, 7, 5000),
              r.random(10**5 + 1), r.randint(0, 2**40, 311), r.uniform(numpy.float32(1), 3, size=(70, 70)),
              r.rand(623, 7), r.uniform(5, -5, 4096), r.random_sample(4100)):
        out.append(numpy.asarray(v).tolist())
    return out, r.random_sample(5).tolist()


@pytest.mark.parametrize('seed', SEEDS)
def test_large_draws_made_by_arrvm_are_numpy_stream(seed):
    numpy.random.seed(seed)
    want = large_draws(numpy)
    arrvm.random.seed(seed)
    assert large_draws(arrvm) == want
    assert isinstance(arrvm.random.rand(5000), arrvm.ndarray)
    assert isinstance(arrvm.random.uniform(0, 1, (100, 50)), arrvm.ndarray)


@pytest.mark.parametrize('seed', SEEDS)
def test_random_state_large_draws_are_numpy_stream(seed):
    mine, theirs = arrvm.random.RandomState(seed), numpy.random.RandomState(seed)
    assert isinstance(mine, numpy.random.RandomState)
    assert large_draws(arrvm, mine) == large_draws(numpy, theirs)
    assert isinstance(mine.random_sample(10**4), arrvm.ndarray)
    theirs.random_sample(10**4)
    assert mine.get_state()[2] == theirs.get_state()[2]
    assert (mine.get_state()[1] == theirs.get_state()[1]).all()


def test_large_draws_keep_numpy_errors_and_fallbacks():
    for bad in (lambda r: r.uniform(0, numpy.inf, 5000), lambda r: r.random_sample(size='x'),
                lambda r: r.rand(5000, -1), lambda r: r.uniform(0, 1, 5000, 7)):
        errors = []
        for r in (numpy.random.RandomState(1), arrvm.random.RandomState(1)):
            with pytest.raises(Exception) as e:
                bad(r)
            errors.append(type(e.value))
        assert errors[0] is errors[1]
    # array bounds: NumPy's broadcasting draw, same numbers
    a, b = numpy.random.RandomState(2), arrvm.random.RandomState(2)
    lo = numpy.arange(5000.0)
    assert numpy.asarray(b.uniform(lo, lo + 1)).tolist() == a.uniform(lo, lo + 1).tolist()
    assert arrvm.random._layout_ok('MT19937') and arrvm.random._layout_ok('PCG64')


@pytest.mark.parametrize('seed', SEEDS)
def test_generator_large_draws_are_numpy_stream(seed):
    def run(xp):
        g = xp.random.default_rng(seed)
        out = []
        for v in (g.random(4097), g.normal(size=3), g.random((65, 64)), g.integers(0, 100, 5), g.random(3),
                  g.uniform(-1.5, 2, 5001), g.random(10**5 + 3, dtype='f8'), g.random(5000, dtype=numpy.float32),
                  g.uniform(size=(70, 70)), g.uniform(numpy.arange(4096.0), 5000.0)):
            out.append(numpy.asarray(v).tolist())
        return out, g.bit_generator.state
    mine, theirs = run(arrvm), run(numpy)
    assert mine == theirs
    g = arrvm.random.default_rng(seed)
    assert isinstance(g, numpy.random.Generator) and isinstance(g.random(5000), arrvm.ndarray)
    assert isinstance(arrvm.random.Generator(numpy.random.PCG64(seed)).uniform(0, 2, 5000), arrvm.ndarray)
    n = numpy.random.default_rng(seed)
    assert arrvm.random.default_rng(n) is n
    with pytest.raises(OverflowError):
        g.uniform(0, numpy.inf, 5000)


def test_generators_give_libraries_numpy_arrays():
    """A generator handed to SciPy gives it NumPy's arrays (the same
    numbers); the user's own calls get arrvm arrays."""
    from scipy import stats
    for make in (arrvm.random.default_rng, arrvm.random.RandomState):
        mine, theirs = make(5), (numpy.random.default_rng if make is arrvm.random.default_rng
                                 else numpy.random.RandomState)(5)
        got = stats.uniform.rvs(loc=1.0, scale=2.0, size=5000, random_state=mine)
        assert type(got) is numpy.ndarray
        assert got.tolist() == stats.uniform.rvs(loc=1.0, scale=2.0, size=5000, random_state=theirs).tolist()
        assert isinstance(mine.uniform(0, 1, 5000), arrvm.ndarray)
