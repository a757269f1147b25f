"""NumPy's floating-point errors (np.seterr / np.errstate): the RuntimeWarning
each expression gives (its words and the operation named), or the
FloatingPointError under `raise`, equal to the installed NumPy's; on ref and
cpu, for small arrays (the eager path) and large ones (fused kernels, one
thread and two), and none where NumPy gives none (NaN compared, summed,
maxed)."""
import json
import os
import subprocess
import sys

import numpy
import pytest

import arrvm

# Expressions of `xp` (numpy or arrvm) and `n` (the array length).
EXPRESSIONS = [
    'xp.log(xp.zeros(n)).sum()',
    'xp.log(-xp.ones(n)).sum()',
    '(1.0 / xp.zeros(n)).sum()',
    '(xp.zeros(n) / xp.zeros(n)).sum()',
    'xp.sqrt(xp.full(n, -1.0)).sum()',
    'xp.exp(xp.ones(n) * 1000).sum()',
    '(xp.full(n, 1e308) * 10).sum()',
    '(xp.ones(n, xp.float32) * xp.float32(3e38) * xp.float32(10)).sum()',
    'xp.sin(xp.full(n, xp.inf)).sum()',
    'xp.arcsin(xp.full(n, 2.0)).sum()',
    '(xp.full(n, xp.inf) - xp.full(n, xp.inf)).sum()',
    '(xp.arange(n) // xp.zeros(n, xp.int64)).sum()',
    '(xp.arange(n) % xp.zeros(n, xp.int64)).sum()',
    '(xp.arange(n) % 0.0).sum()',
    'xp.full(n, 1e300).astype(xp.float32).sum()',
    'xp.full(n, xp.nan).astype(xp.int64).sum()',
    # NumPy says nothing for these
    'xp.full(n, xp.inf).sum()',
    'xp.full(n, xp.nan).sum()',
    'xp.full(n, xp.nan).max()',
    'xp.full(n, xp.nan).min()',
    '(xp.full(n, xp.nan) > 1).sum()',
    '(xp.full(n, xp.nan) <= 1).sum()',
    'xp.maximum(xp.full(n, xp.nan), 1.0).sum()',
    'xp.where(xp.full(n, xp.nan) < 0, 1.0, 2.0).sum()',
    'xp.clip(xp.full(n, xp.nan), 0, 1).sum()',
    'xp.isnan(xp.full(n, xp.nan)).sum()',
    'xp.isfinite(xp.full(n, xp.nan)).sum()',
    'xp.sign(xp.full(n, xp.nan)).sum()',
    'xp.abs(xp.full(n, -xp.inf)).sum()',
    '(xp.full(n, 1e-300) * 1e-300).sum()',
    'xp.arctan2(xp.zeros(n), xp.zeros(n)).sum()',
    '(xp.arange(n) * 0.5).sum()',
]

CHILD = r'''
import json, sys, warnings
import numpy
import arrvm
exprs, sizes = json.loads(sys.argv[1]), json.loads(sys.argv[2])
def outcome(xp, expr, n):
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter('always')
        try:
            numpy.asarray(eval(expr, {'xp': xp, 'n': n}))
            err = None
        except Exception as e:
            err = type(e).__name__
    return [sorted(set(str(x.message) for x in w if x.category is RuntimeWarning)), err]
out = {}
for n in sizes:
    for e in exprs:
        out['%s @ %d' % (e, n)] = [outcome(numpy, e, n), outcome(arrvm, e, n)]
print(json.dumps(out))
'''


def run_child(env_extra, sizes):
    env = dict(os.environ, **env_extra)
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    env.setdefault('PYTHONPATH', os.path.join(root, 'build', 'python'))
    p = subprocess.run([sys.executable, '-c', CHILD, json.dumps(EXPRESSIONS), json.dumps(sizes)], env=env,
                       capture_output=True, text=True, timeout=900)
    assert p.returncode == 0, p.stderr
    return json.loads(p.stdout.splitlines()[-1])


@pytest.mark.parametrize('config', [
    {'ARRVM_BACKEND': 'ref'},
    {'ARRVM_BACKEND': 'cpu', 'OMP_NUM_THREADS': '1'},
    {'ARRVM_BACKEND': 'cpu', 'OMP_NUM_THREADS': '2'},
    {'ARRVM_BACKEND': 'cpu', 'ARRVM_EAGER': 'off', 'ARRVM_TIERED': 'off'},
], ids=['ref', 'cpu-1', 'cpu-2', 'cpu-compiled'])
def test_warnings_equal_numpys(config):
    # 7: the eager path; 100 000: batched, fused and (cpu) parallel.
    results = run_child(config, [7, 100000])
    differ = {k: v for k, v in results.items() if v[0] != v[1]}
    assert differ == {}


def test_errstate_modes():
    a = arrvm.zeros(5)
    with arrvm.errstate(divide='ignore'):
        with numpy.testing.assert_no_warnings():
            arrvm.asarray(arrvm.log(a))
    with arrvm.errstate(divide='raise'):
        with pytest.raises(FloatingPointError, match='divide by zero encountered in log'):
            arrvm.asarray(arrvm.log(a))
    with pytest.warns(RuntimeWarning, match='divide by zero encountered in log'):
        arrvm.asarray(arrvm.log(a))
    calls = []
    with arrvm.errstate(invalid='call', call=lambda message, flag: calls.append((message, flag))):
        arrvm.asarray(arrvm.sqrt(-arrvm.ones(3)))
    assert calls == [('invalid value encountered in sqrt', 8)]


def test_errstate_judges_lazy_work_by_the_modes_it_was_written_under():
    # Large work is pending until it is read: issued inside `ignore`, read
    # outside, it still warns nothing (errstate runs it on exit); issued
    # outside, read inside `ignore`, it warns (errstate runs it on entry).
    x = arrvm.zeros(200000)
    with arrvm.errstate(divide='ignore'):
        y = arrvm.log(x)
    with numpy.testing.assert_no_warnings():
        arrvm.asarray(y)
    z = arrvm.log(x) * 2
    with pytest.warns(RuntimeWarning, match='divide by zero'):
        with arrvm.errstate(divide='ignore'):
            arrvm.asarray(z)


def test_seterr_returns_the_old_modes():
    old = arrvm.seterr(all='raise')
    try:
        assert arrvm.geterr()['divide'] == 'raise'
        with pytest.raises(FloatingPointError):
            float(arrvm.array([1.0]) / 0.0)
    finally:
        arrvm.seterr(**old)
    assert arrvm.geterr() == old
