"""Untrusted sizes, memory and Ctrl-C through the Python binding: a size past
the limit is NumPy's ValueError at creation (it once wrote past a 64-byte
block and died), memory that cannot be had is NumPy's MemoryError, and
SIGINT during a flush (here: a compiler that never finishes) raises
KeyboardInterrupt at once, after which the VM goes on. Each case runs in a
subprocess, so that a failure cannot disturb the other tests' VM."""
import os
import signal
import subprocess
import sys
import textwrap
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def env(tmp_path, **extra):
    e = dict(os.environ)
    e.setdefault('PYTHONPATH', os.path.join(ROOT, 'build', 'python'))
    e['ARRVM_CACHE_DIR'] = str(tmp_path / 'cache')
    e.update(extra)
    return e


def run(code, tmp_path, **extra):
    p = subprocess.run([sys.executable, '-c', textwrap.dedent(code)], env=env(tmp_path, **extra),
                       capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stdout + p.stderr
    return p.stdout


def test_a_size_past_the_limit_is_valueerror_and_memory_that_cannot_be_had_is_memoryerror(tmp_path):
    for backend in ('ref', 'cpu', 'opencl'):
        out = run('''
            import numpy, arrvm
            try:
                a = arrvm.empty(2**61)          # 2**64 bytes: wrapped to 0 and overflowed a block
                print('accepted')
            except ValueError as e:
                print('ValueError', e)
            a = arrvm.empty(2**44)              # 128 TiB: allowed, cannot be had
            a[5:1005] = 42.0
            try:
                print(float(a[5:1005].sum()))
            except MemoryError as e:
                print('MemoryError', e)
            b = arrvm.arange(4.0) * 2           # the VM goes on
            print(b.tolist())
        ''', tmp_path, ARRVM_BACKEND=backend)
        assert 'ValueError' in out and 'exceeds the limit' in out, (backend, out)
        assert 'MemoryError' in out, (backend, out)
        assert '[0.0, 2.0, 4.0, 6.0]' in out, (backend, out)


def test_ctrl_c_during_a_flush_raises_keyboardinterrupt_at_once(tmp_path):
    cc = tmp_path / 'slow-cc'
    cc.write_text('#!/bin/sh\nsleep 600\n')
    cc.chmod(0o755)
    code = textwrap.dedent('''
        import sys, time, arrvm
        a = arrvm.arange(1000.0)
        print('ready', flush=True)
        t = time.time()
        try:
            print(float((a * 3 + 1).sum()))
        except KeyboardInterrupt:
            print('KeyboardInterrupt after %.1f s' % (time.time() - t), flush=True)
        try:
            (a * 3 + 1).sum().item()     # what the interrupt stopped is poisoned, or compiles again
        except (KeyboardInterrupt, RuntimeError) as e:
            print('then', type(e).__name__, flush=True)
        print(arrvm.array([1.0, 2.0, 3.0]).tolist(), flush=True)  # needs no kernel: the VM goes on
    ''')
    p = subprocess.Popen([sys.executable, '-c', code], env=env(tmp_path, ARRVM_BACKEND='cpu', ARRVM_CC=str(cc),
                                                               ARRVM_COMPILE_TIMEOUT='5',
                                                               ARRVM_TIERED='off', ARRVM_EAGER='off'),
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert p.stdout.readline().strip() == 'ready'
    time.sleep(1.0)
    start = time.time()
    p.send_signal(signal.SIGINT)
    out, err = p.communicate(timeout=120)
    assert 'KeyboardInterrupt after' in out, out + err
    assert time.time() - start < 30, out + err
    assert '[1.0, 2.0, 3.0]' in out, out + err
    assert p.returncode == 0, out + err
