#!/usr/bin/python3
"""Two builds of arrvm on the corpus, cold, alternately: per program NumPy's
best of 2 calls, then ROUNDS rounds of (A, B), each the first call of a
process with an empty ARRVM_CACHE_DIR (what a user's first run sees); the
best of each build's cold calls, the whole processes ("pr": start, imports,
the call, the end of the VM, which waits up to ARRVM_BACKGROUND_GRACE for
background compiles), and the geometric means. corpus_ab.py is the warm
twin.

  bench/corpus_cold_ab.py A_PYTHONPATH B_PYTHONPATH [--rounds K] [NAME ...]
"""
import math
import os
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), 'corpus'))
import run  # noqa: E402


def main(argv):
    if len(argv) < 2:
        print(__doc__)
        return 2
    builds = {'A': argv[0], 'B': argv[1]}
    argv = argv[2:]
    rounds = 2
    if argv[:1] == ['--rounds']:
        rounds, argv = int(argv[1]), argv[2:]
    names = argv or run.programs()
    print('%-20s %9s %9s %9s %9s %9s %7s %7s' % ('program', 'numpy s', 'A cold', 'B cold', 'A pr', 'B pr',
                                                 'A x', 'B x'))
    rows = []
    for name in names:
        n = min(run.spawn(name, 'full', 2, False)['times'])
        best = {k: (math.inf, math.inf) for k in builds}
        for _ in range(rounds):
            for k, path in builds.items():
                with tempfile.TemporaryDirectory() as cache:
                    r = run.spawn(name, 'full', 1, True, {'PYTHONPATH': path, 'ARRVM_CACHE_DIR': cache})
                best[k] = (min(best[k][0], r['times'][0]), min(best[k][1], r['wall']))
        rows.append((name, n, best['A'][0], best['B'][0]))
        print('%-20s %9.4f %9.4f %9.4f %9.4f %9.4f %7.2f %7.2f' % (
            name, n, best['A'][0], best['B'][0], best['A'][1], best['B'][1], n / best['A'][0], n / best['B'][0]),
            flush=True)

    def geo(v):
        return math.exp(sum(math.log(x) for x in v) / len(v))
    print('geometric mean, cold x NumPy: A %.3f, B %.3f; B/A time %.3f' % (
        geo([r[1] / r[2] for r in rows]), geo([r[1] / r[3] for r in rows]), geo([r[3] / r[2] for r in rows])))
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
