#!/usr/bin/python3
"""Runs the corpus: NumPy programs written the ordinary way, not for arrvm.

Each program here (every *.py but this one) has `main(**kwargs)`, returning
its result, and SIZES {"small": kwargs, "full": kwargs}. Its check is
NumPy's own output: this script runs the program under plain python and
under `python3 -m arrvm`, each in a child process, and compares the results
(`np.allclose`, rtol 1e-6; a program that draws random numbers states a
TOLERANCE on estimates instead: arrvm gives NumPy's streams, but not under
ARRVM_RANDOM=philox).

  run.py check [--size small|full] [NAME ...]
      every program under NumPy and arrvm; exit 1 on a mismatch or failure.
  run.py bench [--size full] [--repeat 3] [--load N] [--rounds K] [NAME ...]
      per program: NumPy's time (best of --repeat; "np 1st": its first call
      in its process, which pays the first touch of its memory as arrvm's
      cold and second runs do), arrvm's first run with
      an empty kernel cache (cold), arrvm's best with that cache warm, and
      the same with OMP_NUM_THREADS=1; then the geometric means. --load N
      runs N busy processes beside the whole measurement; --rounds K
      alternates K default and K one-thread processes (best of all), so
      that both meet the same phases of a load.

  run.py threads [--size full] [--repeat 3] [--load N] [--rounds K] [NAME ...]
      default threads against OMP_NUM_THREADS=1 alone, warm: K alternating
      pairs of processes (beside N busy ones), each side's best call and
      the median of its processes' bests, and NumPy's best.

  run.py compiles [--size full] [NAME ...]
      per program, in an empty kernel cache: a first run and a second
      one on that cache, each with ARRVM_LOG=info; the number of compiler
      runs, the longest (the goal: none over 2 s) and their total; exit 1
      if a run fails.

Times are of `main()` and the conversion of its result, in the child (the
interpreter's start and imports excluded); "cold" is the first call in a
process whose ARRVM_CACHE_DIR is empty. "np proc" and "cold pr" are whole
processes (start, imports, the call, and for arrvm the end of the VM, which
waits up to ARRVM_BACKGROUND_GRACE for background compiles); for NumPy the
process less its later repetitions. "run2" is the first call of a second
process on that cache (what a user's second run sees: partitions the
background fusion improved compile then); "warm" and "1thr" run after
it, once the cache is settled: further untimed runs (at most 3) until one
compiles nothing (ARRVM_LOG=info shows no compiler run).
"""
import json
import math
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def programs():
    return sorted(f[:-3] for f in os.listdir(HERE) if f.endswith('.py') and f != 'run.py')


def child(name, size, repeat, out):
    """In the child: runs one program `repeat` times, writes times and result."""
    import importlib.util
    spec = importlib.util.spec_from_file_location(name, os.path.join(HERE, name + '.py'))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    np = mod.np
    times, result = [], None
    for _ in range(repeat):
        start = time.perf_counter()
        r = np.asarray(mod.main(**mod.SIZES[size]))
        value = r.tolist()
        times.append(time.perf_counter() - start)
        if result is None:
            result = value
    with open(out, 'w') as f:
        json.dump({'times': times, 'result': result, 'tolerance': getattr(mod, 'TOLERANCE', None),
                   'module': type(np.ones(1)).__module__}, f)  # 'arrvm' under the drop-in


def spawn(name, size, repeat, arrvm, env=None):
    """Runs one program in a child; returns its record, or raises with its stderr."""
    with tempfile.NamedTemporaryFile(suffix='.json') as out:
        cmd = [sys.executable] + (['-m', 'arrvm'] if arrvm else []) + [
            os.path.abspath(__file__), '_child', name, size, str(repeat), out.name]
        e = dict(os.environ)
        if arrvm:
            # (a PYTHONPATH given first: a build directory of one's own)
            e['PYTHONPATH'] = os.pathsep.join(p for p in [e.get('PYTHONPATH', ''),
                                                           os.path.join(ROOT, 'build', 'python')] if p)
        e.update(env or {})
        start = time.perf_counter()
        p = subprocess.run(cmd, env=e, capture_output=True, text=True)
        wall = time.perf_counter() - start
        if p.returncode != 0:
            raise RuntimeError('%s (%s) exited %d:\n%s' % (name, 'arrvm' if arrvm else 'numpy', p.returncode,
                                                           p.stderr[-3000:]))
        with open(out.name) as f:
            record = json.load(f)
        record['wall'] = wall
        record['stderr'] = p.stderr
        if (record['module'] == 'arrvm') != arrvm:
            raise RuntimeError('%s ran on %s, not %s' % (name, record['module'], 'arrvm' if arrvm else 'numpy'))
        return record


def agree(ref, got, tolerance):
    import numpy
    a = numpy.asarray(ref, dtype=float)
    b = numpy.asarray(got, dtype=float)
    if a.shape != b.shape:
        return False
    if tolerance:
        return bool(numpy.all(numpy.abs(a - b) <= numpy.asarray(tolerance['atol']) + tolerance['rtol'] * numpy.abs(a)))
    return bool(numpy.allclose(a, b, rtol=1e-6, atol=1e-9, equal_nan=True))


def check(names, size):
    bad = 0
    for name in names:
        try:
            ref = spawn(name, size, 1, False)
            got = spawn(name, size, 1, True)
        except RuntimeError as e:
            print('FAIL', e)
            bad += 1
            continue
        ok = agree(ref['result'], got['result'], ref['tolerance'])
        print('%-4s %-22s numpy %s\n%27s arrvm %s' % ('ok' if ok else 'FAIL', name, ref['result'], '',
                                                     got['result']) if not ok else 'ok   %s' % name)
        bad += not ok
    print('%d of %d programs agree with NumPy' % (len(names) - bad, len(names)))
    return 1 if bad else 0




# A compiler run in ARRVM_LOG=info's output: its kernels and seconds.
COMPILED = re.compile(r'compiled (\d+) kernels? in ([0-9.]+) s')


def geo(xs):
    return math.exp(sum(math.log(x) for x in xs) / len(xs))


def busy(load):
    """`load` busy processes (kill them when done)."""
    return [subprocess.Popen([sys.executable, '-c', 'while True: pass']) for _ in range(load)]


def settle(name, size, env, most=3):
    """Runs the program under arrvm until a run compiles nothing (at most
    `most` runs): the anytime fusion's better partitions and the parallel
    forms of kernels that a team pays for compile in a program's second and
    third runs, and "warm" means a cache with nothing left to compile.
    Returns the runs taken."""
    for k in range(1, most + 1):
        r = spawn(name, size, 1, True, dict(env, ARRVM_LOG='info'))
        if not any(int(k) > 0 for k, _ in COMPILED.findall(r['stderr'])):
            return k
    return most


def bench(names, size, repeat, load, rounds=1):
    loaders = busy(load)
    rows = []
    try:
        print('# corpus, size %s, best of %d, %d round(s), %d busy processes beside, %d cores' %
              (size, repeat, rounds, load, len(os.sched_getaffinity(0))))
        print('%-20s %8s %8s %8s %8s %8s %8s %8s %8s %6s %6s %6s' % (
            'program', 'numpy s', 'np 1st', 'np proc', 'cold s', 'cold pr', 'run2 s', 'warm s', '1thr s', 'warm x', 'cold x',
            'def/1t'))
        for name in names:
            with tempfile.TemporaryDirectory() as cache:
                env = {'ARRVM_CACHE_DIR': cache}
                try:
                    ref = spawn(name, size, repeat, False)
                    cold = spawn(name, size, 1, True, env)
                    # The user's second run: the cache has the cold run's kernels, but partitions
                    # the anytime fusion improved in the background compile now. Measured, then
                    # the warm runs below see the settled cache.
                    second = spawn(name, size, 1, True, env)
                    settle(name, size, env)
                    # Default and one thread alternate over `rounds` pairs of processes, so
                    # that under a load each meets the same phases of it; the best of each.
                    warm, one = None, None
                    for _ in range(rounds):
                        w_ = spawn(name, size, repeat, True, env)
                        o_ = spawn(name, size, repeat, True, dict(env, OMP_NUM_THREADS='1'))
                        if warm is None or min(w_['times']) < min(warm['times']):
                            warm = w_
                        if one is None or min(o_['times']) < min(one['times']):
                            one = o_
                except RuntimeError as e:
                    print('%-20s failed: %s' % (name, str(e).splitlines()[-1]))
                    continue
            n, c, w, o = min(ref['times']), cold['times'][0], min(warm['times']), min(one['times'])
            r2 = second['times'][0]
            ok = agree(ref['result'], warm['result'], ref['tolerance'])
            rows.append(dict(name=name, numpy=n, first=ref['times'][0], cold=c, warm=w, one=o, second=r2, ok=ok))
            print('%-20s %8.4f %8.4f %8.3f %8.4f %8.3f %8.4f %8.4f %8.4f %6.2f %6.2f %6.2f%s' % (
                name, n, ref['times'][0], ref['wall'] - sum(ref['times'][1:]), c, cold['wall'], r2, w, o, n / w, n / c, w / o,
                '' if ok else '  MISMATCH'),
                  flush=True)
    finally:
        for p in loaders:
            p.kill()
    if rows:
        print('geometric mean: warm %.2fx NumPy, cold %.2fx NumPy (%.2fx NumPy\'s first call), second run %.2fx '
              'NumPy, default/1-thread %.2f; %d of %d slower than NumPy warm' % (
                                                    geo([r['numpy'] / r['warm'] for r in rows]),
                                                    geo([r['numpy'] / r['cold'] for r in rows]),
                                                    geo([r['first'] / r['cold'] for r in rows]),
                                                    geo([r['numpy'] / r['second'] for r in rows]),
                                                    geo([r['warm'] / r['one'] for r in rows]),
                                                    sum(r['warm'] > r['numpy'] for r in rows), len(rows)))
    return 0 if rows and all(r['ok'] for r in rows) and len(rows) == len(names) else 1


def threads(names, size, repeat, load, rounds):
    """Item 1's measurement alone: per program, its kernel cache settled
    (settle), then `rounds` alternating pairs of processes, default threads and
    OMP_NUM_THREADS=1 (each `repeat` calls), beside `load` busy processes;
    NumPy's best beside the same load. Prints each side's best call and the
    median of its processes' best calls (a load's phases move one process's
    calls together: the median of processes is the steadier number)."""
    loaders = busy(load)
    rows = []
    try:
        print('# corpus threads, size %s, best of %d, %d round(s), %d busy processes beside, %d cores' %
              (size, repeat, rounds, load, len(os.sched_getaffinity(0))))
        print('%-20s %8s %8s %8s %8s %8s %7s %7s %7s' % ('program', 'numpy s', 'def s', '1thr s', 'def med', '1thr med',
                                                     'def/1t', 'med d/1', 'np/def'))
        for name in names:
            with tempfile.TemporaryDirectory() as cache:
                env = {'ARRVM_CACHE_DIR': cache}
                try:
                    ref = spawn(name, size, repeat, False)
                    settle(name, size, env, most=4)
                    d, o = [], []
                    for _ in range(rounds):
                        d.append(min(spawn(name, size, repeat, True, env)['times']))
                        o.append(min(spawn(name, size, repeat, True, dict(env, OMP_NUM_THREADS='1'))['times']))
                except RuntimeError as e:
                    print('%-20s failed: %s' % (name, str(e).splitlines()[-1]))
                    continue
            n = min(ref['times'])
            row = dict(name=name, numpy=n, d=min(d), o=min(o), dm=statistics.median(d), om=statistics.median(o))
            rows.append(row)
            print('%-20s %8.4f %8.4f %8.4f %8.4f %8.4f %7.2f %7.2f %7.2f' % (
                name, n, row['d'], row['o'], row['dm'], row['om'], row['d'] / row['o'], row['dm'] / row['om'],
                n / row['d']), flush=True)
    finally:
        for p in loaders:
            p.kill()
    if rows:
        print('geometric mean: default/1-thread %.2f (best), %.2f (medians); %.2fx NumPy; over 1.2 (best): %s; '
              'slower than NumPy: %s' % (
                  geo([r['d'] / r['o'] for r in rows]), geo([r['dm'] / r['om'] for r in rows]),
                  geo([r['numpy'] / r['d'] for r in rows]),
                  ', '.join('%s %.2f' % (r['name'], r['d'] / r['o']) for r in rows if r['d'] > 1.2 * r['o']) or 'none',
                  ', '.join('%s %.2f' % (r['name'], r['numpy'] / r['d']) for r in rows if r['d'] > r['numpy'])
                  or 'none'))
    return 0 if len(rows) == len(names) else 1


def compiles(names, size):
    """The compiler runs of a first and a second run of each program (ARRVM_LOG=info's lines)."""
    print('%-20s %-6s %5s %8s %10s %9s' % ('program', 'run', 'runs', 'kernels', 'longest s', 'total s'))
    longest, bad = (0.0, ''), 0
    for name in names:
        with tempfile.TemporaryDirectory() as cache:
            for run in ('first', 'second'):
                try:
                    r = spawn(name, size, 1, True, {'ARRVM_CACHE_DIR': cache, 'ARRVM_LOG': 'info'})
                except RuntimeError as e:
                    print('%-20s failed: %s' % (name, str(e).splitlines()[-1]))
                    bad += 1
                    break
                found = [(int(k), float(s)) for k, s in COMPILED.findall(r['stderr'])]
                top = max((s for _, s in found), default=0.0)
                longest = max(longest, (top, '%s (%s run)' % (name, run)))
                print('%-20s %-6s %5d %8d %10.3f %9.3f' % (name, run, len(found), sum(k for k, _ in found), top,
                                                          sum(s for _, s in found)), flush=True)
    print('longest compiler run: %.3f s, %s' % longest)
    return 1 if bad else 0


def main(argv):
    if argv[:1] == ['_child']:
        child(argv[1], argv[2], int(argv[3]), argv[4])
        return 0
    if not argv or argv[0] not in ('check', 'bench', 'threads', 'compiles'):
        print(__doc__)
        return 2
    mode, argv = argv[0], argv[1:]
    opts = {'--size': 'small' if mode == 'check' else 'full', '--repeat': '3', '--load': '0', '--rounds': '1'}
    names = []
    while argv:
        if argv[0] in opts:
            opts[argv[0]] = argv[1]
            argv = argv[2:]
        else:
            names.append(argv.pop(0))
    names = names or programs()
    unknown = [n for n in names if n not in programs()]
    if unknown:
        print('no such program: %s' % ', '.join(unknown))
        return 2
    if mode == 'check':
        return check(names, opts['--size'])
    if mode == 'compiles':
        return compiles(names, opts['--size'])
    if mode == 'threads':
        return threads(names, opts['--size'], int(opts['--repeat']), int(opts['--load']), int(opts['--rounds']))
    return bench(names, opts['--size'], int(opts['--repeat']), int(opts['--load']), int(opts['--rounds']))


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
