#!/usr/bin/python3
"""Runs one NumPy script under NumPy and under `python3 -m arrvm` (twice: the
first run fills the kernel cache) and prints both outputs, wall-clock times
and the speed-up. Usage: speedup.py SCRIPT [ARGS...]"""
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def run(cmd, env):
    start = time.perf_counter()
    p = subprocess.run(cmd, env=env, capture_output=True, text=True)
    seconds = time.perf_counter() - start
    if p.returncode != 0:
        sys.stderr.write(p.stderr)
        raise SystemExit("speedup: %s failed" % ' '.join(cmd))
    return p.stdout.strip(), seconds


def main(argv):
    if not argv:
        sys.stderr.write(__doc__)
        return 2
    env = dict(os.environ)
    env.setdefault('PYTHONPATH', os.path.join(ROOT, 'build', 'python'))
    py = sys.executable
    out_np, t_np = run([py] + argv, env)
    run([py, '-m', 'arrvm'] + argv, env)  # warm the kernel and merge caches
    out_av, t_av = run([py, '-m', 'arrvm'] + argv, env)
    print("numpy:              %s  [%.2f s]" % (out_np, t_np))
    print("python3 -m arrvm:   %s  [%.2f s, backend %s]" % (out_av, t_av, env.get('ARRVM_BACKEND', 'cpu')))
    print("speed-up over NumPy (whole process): %.2fx" % (t_np / t_av))
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
