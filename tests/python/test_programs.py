"""NumPy programs written the ordinary way (tests/python/programs/) run
unmodified under `python3 -m arrvm` and print what NumPy prints (floats
within 1e-9 relative; the order of summation differs). A program that uses
what arrvm does not compute names it in a line `# arrvm falls back: f, g`;
exactly those functions may run in NumPy (each warns once)."""
import os
import re
import subprocess
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
PROGRAMS = sorted(f for f in os.listdir(os.path.join(HERE, 'programs')) if f.endswith('.py'))


def run(path, under_arrvm):
    env = dict(os.environ)
    env.setdefault('PYTHONPATH', os.path.join(ROOT, 'build', 'python'))
    env['ARRVM_BACKEND'] = os.environ.get('ARRVM_PROGRAMS_BACKEND', 'cpu')
    cmd = [sys.executable] + (['-m', 'arrvm'] if under_arrvm else []) + [path]
    p = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=600)
    assert p.returncode == 0, p.stderr
    return p.stdout.split(), p.stderr


def equal(a, b):
    try:
        x, y = float(a), float(b)
    except ValueError:
        return a == b
    return abs(x - y) <= 1e-12 + 1e-9 * abs(y)


@pytest.mark.parametrize('program', PROGRAMS)
def test_program_equals_numpy(program):
    path = os.path.join(HERE, 'programs', program)
    want, _ = run(path, False)
    got, err = run(path, True)
    assert len(got) == len(want) and all(equal(g, w) for g, w in zip(got, want)), (got, want)
    with open(path) as f:
        declared = re.search(r'^# arrvm falls back: (.*)$', f.read(), re.M)
    allowed = {n.strip() for n in declared.group(1).split(',')} if declared else set()
    fell_back = set(re.findall(r'arrvm: numpy\.(\S+) is not implemented by arrvm', err))
    assert fell_back == allowed, "fell back: %s, declared: %s" % (sorted(fell_back), sorted(allowed))
