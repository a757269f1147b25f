#!/usr/bin/python3
"""Two builds of arrvm on the corpus, warm, alternately: for each program a
kernel cache of each build's own is filled (two runs), then ROUNDS rounds
of (A, B), each the best of 2 calls; the best of each build, NumPy's best
of 2, and the geometric means. Alternating in one session is what makes two
builds comparable on a shared machine.

  bench/corpus_ab.py A_PYTHONPATH B_PYTHONPATH [--rounds K] [NAME ...]

A build's PYTHONPATH is a build/python directory (or a copy of it: the
extension finds the libarrvm copied beside it)."""
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
    rows = []
    for name in argv or run.programs():
        best = {}
        with tempfile.TemporaryDirectory() as ca, tempfile.TemporaryDirectory() as cb:
            env = {b: {'PYTHONPATH': p, 'ARRVM_CACHE_DIR': c} for (b, p), c in zip(builds.items(), (ca, cb))}
            try:
                numpy_s = min(run.spawn(name, 'full', 2, False)['times'])
                for b in builds:
                    run.spawn(name, 'full', 1, True, env[b])
                    run.spawn(name, 'full', 1, True, env[b])
                for _ in range(rounds):
                    for b in builds:
                        t = min(run.spawn(name, 'full', 2, True, env[b])['times'])
                        best[b] = min(best.get(b, t), t)
            except RuntimeError as e:
                print('%-20s failed: %s' % (name, str(e).splitlines()[-1]), flush=True)
                continue
        rows.append((numpy_s, best['A'], best['B']))
        print('%-20s numpy %.4f A %.4f B %.4f B/A %.2f' % (name, numpy_s, best['A'], best['B'], best['B'] / best['A']),
              flush=True)
    if rows:
        geo = lambda xs: math.exp(sum(math.log(x) for x in xs) / len(xs))
        print('geometric mean: NumPy/A %.2f, NumPy/B %.2f, B/A %.3f' % (
            geo([n / a for n, a, _ in rows]), geo([n / b for n, _, b in rows]), geo([b / a for _, a, b in rows])))
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
