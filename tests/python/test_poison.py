"""Run-time failures through the Python binding (issue 18): an index out of
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
    ''', tmp_path, ARRVM_BACKEND='cpu', ARRVM_CC='false', ARRVM_LOG='off')
    assert out.count('RuntimeError') == 2, out
    assert 'value' not in out, out
    assert 'host [1.0, 2.0, 3.0]' in out, out
