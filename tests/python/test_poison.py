"""Run-time failures through the Python binding: an index out of
range raises NumPy's IndexError at the indexing expression, and a kernel
that fails to compile poisons what it computes: reading it raises, never
silent zeros, and arrays that need no kernel stay readable. Each case runs
in a subprocess, so a failure cannot disturb the other tests' VM."""
import os
import subprocess
import sys
import textwrap

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def run(code, tmp_path, **extra):
    e = dict(os.environ)
    e.setdefault('PYTHONPATH', os.path.join(ROOT, 'build', 'python'))
    e['ARRVM_CACHE_DIR'] = str(tmp_path / 'cache')
    e.update(extra)
    p = subprocess.run([sys.executable, '-c', textwrap.dedent(code)], env=e, capture_output=True, text=True,
                       timeout=300)
    assert p.returncode == 0, p.stdout + p.stderr
    return p.stdout


def test_index_out_of_range_is_numpys_indexerror_and_the_vm_goes_on(tmp_path):
    out = run('''
        import numpy, arrvm
        a = arrvm.arange(5.0) * 2
        b = a + 1
        for key in ([0, 7], [-6]):
            try:
                a[arrvm.array(key)]
            except IndexError as e:
                print('IndexError', e)
        numpy.testing.assert_array_equal(numpy.asarray(b), numpy.arange(5.0) * 2 + 1)
        print('b ok')
    ''', tmp_path, ARRVM_BACKEND='cpu')
    assert out.count('IndexError') == 2, out
    assert 'index 7' in out and 'index -6' in out, out
    assert 'b ok' in out


def test_a_failed_compile_poisons_what_it_computes(tmp_path):
    out = run('''
        import numpy, arrvm
        host = arrvm.array(numpy.array([1.0, 2.0, 3.0]))  # from the host: no kernel
        x = host * 2 + 1                                    # needs a kernel: poisoned
        for attempt in range(2):                            # every read raises, never zeros
            try:
                print('value', float(x.sum()))
            except RuntimeError as e:
                print('RuntimeError', str(e).splitlines()[0])
        print('host', numpy.asarray(host).tolist())
    ''', tmp_path, ARRVM_BACKEND='cpu', ARRVM_CC='false', ARRVM_LOG='off', ARRVM_TIERED='off',
    ARRVM_EAGER='off')  # (small arrays: eager, they would compile nothing)
    assert out.count('RuntimeError') == 2, out
    assert 'value' not in out, out
    assert 'host [1.0, 2.0, 3.0]' in out, out


def test_tiered_a_failed_compile_runs_interpreted_with_a_warning(tmp_path):
    # Tiered execution (the default): the block runs interpreted while its
    # kernel compiles; a compile that fails leaves it interpreted for good,
    # with NumPy's values and one warning that names the failure.
    e = dict(os.environ)
    e.setdefault('PYTHONPATH', os.path.join(ROOT, 'build', 'python'))
    e.update(ARRVM_CACHE_DIR=str(tmp_path / 'cache'), ARRVM_BACKEND='cpu', ARRVM_CC='false', ARRVM_EAGER='off')
    e.pop('ARRVM_TIERED', None)
    code = textwrap.dedent('''
        import numpy, arrvm, time
        host = arrvm.array(numpy.array([1.0, 2.0, 3.0]))
        for step in range(40):                  # long enough for the compile to fail
            x = host * 2 + 1
            print('value', float(x.sum()))
            time.sleep(0.02)
        p = arrvm.profile()
        print('interpreted', p['kernels']['blocks_interpreted'], 'launched', p['kernels']['launched'])
    ''')
    p = subprocess.run([sys.executable, '-c', code], env=e, capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stdout + p.stderr
    assert p.stdout.count('value 15.0') == 40, p.stdout
    assert 'interpreted 40 launched 0' in p.stdout, p.stdout
    assert p.stderr.count('its blocks run interpreted') == 1, p.stderr
