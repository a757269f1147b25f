"""`python3 -m arrvm script.py` runs unmodified NumPy scripts: the 15 NumPy
twins of bench/numpy/programs.py (at small sizes, on the cpu backend) give
NumPy's checksums, (a*b + c).sum() allocates no temporary, and names alive at a
sync (rosenbrock's t, u) are not stored."""
import json
import os
import subprocess
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
PROGRAMS = os.environ.get('ARRVM_NUMPY_PROGRAMS', os.path.join(ROOT, 'bench', 'numpy', 'programs.py'))

# name, n, iterations: small enough for a test, big enough to exercise each program.
SMALL = [('black_scholes', 2000, 3), ('game_of_life', 40, 5), ('heat_equation', 40, 20), ('leibnitz_pi', 5000, 2),
         ('gauss', 30, 10), ('lu', 30, 10), ('monte_carlo_pi', 5000, 2), ('stencil27', 16, 3),
         ('shallow_water', 40, 5), ('rosenbrock', 5000, 2), ('sor', 40, 10), ('nbody', 40, 3),
         ('nbody_nice', 50, 2), ('lattice_boltzmann', 8, 2), ('water_ice', 10, 3)]


def env(**extra):
    e = dict(os.environ)
    e.setdefault('PYTHONPATH', os.path.join(ROOT, 'build', 'python'))
    e['ARRVM_BACKEND'] = extra.pop('backend', 'cpu')
    e.update(extra)
    return e


def run_programs(args, under_arrvm, **extra):
    cmd = [sys.executable] + (['-m', 'arrvm'] if under_arrvm else []) + [PROGRAMS] + args
    p = subprocess.run(cmd, env=env(**extra), capture_output=True, text=True, timeout=600)
    assert p.returncode == 0, p.stderr
    return [json.loads(line) for line in p.stdout.splitlines() if line.startswith('{')], p.stderr


def close(a, b):
    a, b = float(a), float(b)
    return abs(a - b) <= 1e-9 + 1e-9 * abs(b)


@pytest.mark.parametrize('backend', ['cpu', 'opencl'])
def test_numpy_twins_under_dropin_equal_numpy(backend):
    if backend == 'opencl' and os.environ.get('ARRVM_TEST_OPENCL', '1') == '0':
        pytest.skip('ARRVM_TEST_OPENCL=0')
    args = [str(x) for row in SMALL for x in row]
    want, _ = run_programs(args, False)
    got, err = run_programs(args, True, backend=backend)
    assert [r['name'] for r in got] == [r['name'] for r in want]
    bad = [(g['name'], g['checksum'], w['checksum']) for g, w in zip(got, want) if not close(g['checksum'], w['checksum'])]
    assert not bad, bad
    assert 'fell back' not in err and 'ran in NumPy' not in err, err


def test_dropin_runs_from_numpy_imports(tmp_path):
    script = tmp_path / 'script.py'
    script.write_text("import sys\nimport numpy as np\nfrom numpy import sqrt, zeros\n"
                      "a = zeros(5) + np.arange(5)\nprint(type(a).__module__, float(sqrt(a).sum()), sys.argv[1:])\n")
    p = subprocess.run([sys.executable, '-m', 'arrvm', str(script), 'x', 'y'], env=env(), capture_output=True,
                       text=True, timeout=300)
    assert p.returncode == 0, p.stderr
    mod, total, argv = p.stdout.split(' ', 2)
    assert mod == 'arrvm' and abs(float(total) - 6.146264369941973) < 1e-12 and argv.strip() == "['x', 'y']"


def test_temporaries_are_contracted(tmp_path):
    """(a*b + c).sum() over 10^7 float64: a, b and c are allocated, a*b and a*b+c never are."""
    prof = tmp_path / 'profile.json'
    script = tmp_path / 't.py'
    script.write_text(
        "import arrvm\n"
        "n = 10**7\n"
        "a = arrvm.random.random(n); b = arrvm.random.random(n); c = arrvm.random.random(n)\n"
        "arrvm.flush()\n"
        "p0 = arrvm.profile()\n"
        "s = float((a*b + c).sum())\n"
        "p1 = arrvm.profile()\n"
        "import json; print(json.dumps({'s': s, 'peak0': p0['memory']['bytes_allocated_peak'] if 'memory' in p0 else None}))\n")
    # (Compiled before it runs: while a kernel compiles, its block runs
    # interpreted, which stores every temporary.)
    p = subprocess.run([sys.executable, str(script)], env=env(ARRVM_PROFILE=str(prof), ARRVM_TIERED='off'),
                       capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr
    data = json.loads(prof.read_text())
    flat = {}

    def walk(d, prefix=''):
        for k, v in d.items():
            if isinstance(v, dict):
                walk(v, prefix + k + '.')
            else:
                flat[k] = v
    walk(data)
    n_bytes = 10**7 * 8
    # a, b, c and the few bytes of reduction results; a temporary would add 80 MB.
    assert flat['bytes_allocated_peak'] < 3 * n_bytes + n_bytes // 2, flat
    assert flat['arrays_contracted'] >= 2, flat


def test_trace_recorded_from_python_replays(tmp_path):
    cli = os.environ.get('ARRVM_CLI', os.path.join(ROOT, 'build', 'arrvm'))
    if not os.path.exists(cli):
        pytest.skip('the arrvm program is not built')
    trace = tmp_path / 'heat.trace'
    p = subprocess.run([sys.executable, '-m', 'arrvm', os.path.join(HERE, 'programs', 'heat.py')],
                       env=env(ARRVM_TRACE=str(trace)), capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr
    r = subprocess.run([cli, 'replay', str(trace), '--backend', 'ref'], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    assert 'verified' in r.stdout


ROSENBROCK = """
import json, sys
sys.path.insert(0, %r)
import numpy as np
import programs  # bench/numpy/programs.py: its `import numpy` is arrvm under -m arrvm
out = {'total': programs.rosenbrock(10**6, 6)}
if hasattr(np, '__arrvm_version__'):  # the drop-in's numpy is arrvm
    p = np.profile()
    out.update(held=p['memory']['bytes_allocated'], peak=p['memory']['bytes_allocated_peak'], deferred=p['passes']['defer'], dead=p['passes']['dead-writes'])
print(json.dumps(out))
""" % os.path.dirname(PROGRAMS)


@pytest.mark.parametrize('defer', ['on', 'off'])
def test_names_alive_at_a_sync_are_not_stored(tmp_path, defer):
    """rosenbrock's loop keeps t and u in names across float(np.sum(...)): with
    deferral they are contracted and never allocated (only x is held after the
    loop), and the result is NumPy's."""
    script = tmp_path / 'rosenbrock.py'
    script.write_text(ROSENBROCK)
    want = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=300)
    assert want.returncode == 0, want.stderr
    p = subprocess.run([sys.executable, '-m', 'arrvm', str(script)], env=env(ARRVM_PASSES='default' if defer == 'on' else '-defer,-dead-writes'),
                       capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr
    got = json.loads(p.stdout)
    assert close(got['total'], json.loads(want.stdout)['total'])
    n_bytes = 10**6 * 8
    if defer == 'on':
        assert got['deferred'] == 2 * 5, got  # t and u from the second iteration on
        assert got['dead'] >= 3 * 4, got      # t, u and a*a of iterations 2..5 dropped unread
        assert got['held'] < n_bytes + 1024, got
    else:
        assert got['deferred'] == 0 and got['dead'] == 0, got
        # x, t and u were held at once (their frees may have run by now)
        assert got['peak'] >= 3 * n_bytes - 64, got
