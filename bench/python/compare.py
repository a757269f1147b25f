#!/usr/bin/python3
"""The Python benchmark: per program, in one run, NumPy's time, arrvm's time
from Python (`python3 -m arrvm` on the unmodified NumPy twin) and arrvm's time
from C++ (`arrvm bench`, greedy fuser), with the checksums checked against
NumPy and the ratio Python / C++ (target: at most 1.2).

Usage (from the repository root, after building arrvm_cli and arrvm_python):
  /usr/bin/python3 bench/python/compare.py [--size tiny|default] [--backend cpu|opencl]
      [--arrvm build/arrvm] [--repeat R] [--rounds K] [NAME...]
Sizes are the C++ registry's (programs/registry.cpp).

--rounds K: per program, K alternating Python and C++ measurements, each
side's median reported. On a shared host the same binary's time can jump
between two levels from one process to the next (gauss: 0.075 or 0.11 s), so
one measurement per side compares whichever levels each side drew.
"""
import argparse
import json
import os
import re
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
PY = sys.executable


def sizes(size_class):
    text = open(os.path.join(ROOT, 'programs', 'registry.cpp')).read()
    # Entries may span lines (clang-format wraps the long ones).
    rows = re.findall(r'\{"(\w+)",\s*"[^"]*",\s*\w+,\s*"[^"]*",\s*\{(\d+), (\d+)\},\s*\{(\d+), (\d+)\},'
                      r'\s*\{(\d+), (\d+)\}', text)
    col = {'tiny': 1, 'default': 3, 'paper': 5}[size_class]
    return [(r[0], int(r[col]), int(r[col + 1])) for r in rows]


def run_python(args, under_arrvm, env, repeat, warmup=0):
    cmd = [PY] + (['-m', 'arrvm'] if under_arrvm else []) + [os.path.join(HERE, 'run_program.py'),
                                                             '--warmup', str(warmup), '--repeat', str(repeat)] + args
    p = subprocess.run(cmd, env=env, capture_output=True, text=True)
    if p.returncode != 0:
        raise RuntimeError('%s failed:\n%s' % (' '.join(cmd), p.stderr[-3000:]))
    return json.loads(p.stdout.strip().splitlines()[-1])


def run_cpp(arrvm, name, size_class, backend, env, repeat):
    cmd = [arrvm, 'bench', name, '--fusers', 'greedy', '--backends', backend, '--size', size_class,
           '--repeat', str(repeat)]
    p = subprocess.run(cmd, env=env, capture_output=True, text=True)
    for line in p.stdout.splitlines():
        cells = line.split()
        # program, "N x I", backend, fuser, time[s], ... (frontend/cli/bench.cpp print_row)
        if len(cells) > 6 and cells[0] == name and cells[2] == 'x':
            return float(cells[6])
    raise RuntimeError('could not read the time of %s from:\n%s\n%s' % (name, p.stdout[-2000:], p.stderr[-2000:]))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('names', nargs='*')
    ap.add_argument('--size', default='default', choices=['tiny', 'default', 'paper'])
    ap.add_argument('--backend', default='cpu')
    ap.add_argument('--arrvm', default=os.path.join(ROOT, 'build', 'arrvm'))
    ap.add_argument('--repeat', type=int, default=2,
                    help='timed runs per measurement after one warm-up, the mean reported (both sides)')
    ap.add_argument('--rounds', type=int, default=1,
                    help='alternating Python / C++ measurements per program; the medians are reported')
    ap.add_argument('--json', action='store_true', help='one JSON object per program instead of a table')
    a = ap.parse_args()
    env = dict(os.environ, ARRVM_BACKEND=a.backend)
    env.setdefault('PYTHONPATH', os.path.join(ROOT, 'build', 'python'))
    rows = [r for r in sizes(a.size) if not a.names or r[0] in a.names]
    if not a.json:
        print('%-18s %9s %5s %10s %12s %12s %9s %9s %s' % ('program', 'n', 'iter', 'numpy s', 'arrvm-py s',
                                                          'arrvm-c++ s', 'py/c++', 'np/py', 'checksum'))
    status = 0
    for name, n, it in rows:
        args = [name, str(n), str(it)]
        want = run_python(args, False, env, 1)
        py_times, cpp_times = [], []
        for _ in range(max(1, a.rounds)):
            got = run_python(args, True, env, a.repeat, warmup=1)
            py_times.append(got['time'])
            cpp_times.append(run_cpp(a.arrvm, name, a.size, a.backend, env, a.repeat)
                             if os.path.exists(a.arrvm) else float('nan'))
        got['time'], cpp = statistics.median(py_times), statistics.median(cpp_times)
        ok = abs(float(got['checksum']) - float(want['checksum'])) <= 1e-9 * max(1.0, abs(float(want['checksum'])))
        status |= 0 if ok else 1
        row = {'name': name, 'n': n, 'iterations': it, 'numpy_s': want['time'], 'arrvm_python_s': got['time'],
               'arrvm_cpp_s': cpp, 'python_over_cpp': got['time'] / cpp if cpp > 0 else float('nan'),
               'speedup_over_numpy': want['time'] / got['time'] if got['time'] > 0 else float('nan'),
               'checksum_ok': ok}
        if a.json:
            print(json.dumps(row), flush=True)
        else:
            print('%-18s %9d %5d %10.3f %12.3f %12.3f %9.2f %9.2f %s' % (
                name, n, it, want['time'], got['time'], cpp, row['python_over_cpp'], row['speedup_over_numpy'],
                'ok' if ok else 'MISMATCH %s vs %s' % (got['checksum'], want['checksum'])), flush=True)
    return status


if __name__ == '__main__':
    sys.exit(main())
