#!/usr/bin/python3
"""How often each optional pass (rewrite/passes.def) fires on programs: the
15 programs of programs/ (their NumPy twins, bench/numpy/programs.py) and
the corpus (bench/corpus/), each run once under `python3 -m arrvm` with
ARRVM_PROFILE, whose `passes` counts are summed per group. The programs run
at their small sizes with ARRVM_EAGER=off, so their work is batched as at
full size.

Usage (from the repository root, after building arrvm_python):
  /usr/bin/python3 bench/passes.py [--size tiny|small] [--only NAME ...]

Prints, per pass: the count over the 15 programs and over the corpus, and
in how many programs of each group it fired (a pass written for one
program should fire on others, or it is a special case).
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(HERE, 'python'))
import compare  # noqa: E402 (the registry's sizes)

CORPUS_CHILD = """
import importlib.util, sys
spec = importlib.util.spec_from_file_location(sys.argv[1], sys.argv[2])
mod = importlib.util.module_from_spec(spec)
spec.loader.exec_module(mod)
mod.np.asarray(mod.main(**mod.SIZES[sys.argv[3]])).tolist()
"""


def profile_of(cmd):
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, 'profile.json')
        # (Eager off: at these small sizes the eager path would run the
        # work at once, where at full size it is batched and rewritten.)
        env = dict(os.environ, ARRVM_PROFILE=path, ARRVM_EAGER='off',
                   PYTHONPATH=os.path.join(ROOT, 'build', 'python') + os.pathsep + os.environ.get('PYTHONPATH', ''))
        p = subprocess.run([sys.executable, '-m', 'arrvm'] + cmd, env=env, capture_output=True, text=True)
        if p.returncode != 0 or not os.path.exists(path):
            print('failed: %s\n%s' % (' '.join(cmd), p.stderr[-1500:]), file=sys.stderr)
            return {}
        return json.load(open(path)).get('passes', {})


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--size', default='tiny', choices=['tiny', 'small'],
                    help='tiny: the registry\'s tiny sizes and the corpus\'s small ones')
    ap.add_argument('--only', nargs='*', default=None)
    args = ap.parse_args()
    groups = {'15 programs': [], 'corpus': []}
    for name, n, it in compare.sizes('tiny'):
        if args.only is None or name in args.only:
            groups['15 programs'].append((name, [os.path.join(HERE, 'python', 'run_program.py'), name, str(n),
                                                 str(it)]))
    corpus = os.path.join(HERE, 'corpus')
    for f in sorted(os.listdir(corpus)):
        name = f[:-3]
        if f.endswith('.py') and f != 'run.py' and (args.only is None or name in args.only):
            groups['corpus'].append((name, ['-c', CORPUS_CHILD, name, os.path.join(corpus, f), 'small']))
    totals = {g: {} for g in groups}
    fired_in = {g: {} for g in groups}
    for g, runs in groups.items():
        for name, cmd in runs:
            counts = profile_of(cmd)
            fired = sorted(k for k, v in counts.items() if v)
            print('%-12s %-22s %s' % (g.split()[0], name, ', '.join('%s %d' % (k, counts[k]) for k in fired) or '-'),
                  flush=True)
            for k, v in counts.items():
                totals[g][k] = totals[g].get(k, 0) + v
                if v:
                    fired_in[g].setdefault(k, []).append(name)
    print()
    print('%-16s %12s %10s %12s %10s' % ('pass', '15 programs', 'programs', 'corpus', 'programs'))
    names = list(totals['15 programs'] or totals['corpus'])
    for k in names:
        print('%-16s %12d %10d %12d %10d' % (k, totals['15 programs'].get(k, 0),
                                             len(fired_in['15 programs'].get(k, [])), totals['corpus'].get(k, 0),
                                             len(fired_in['corpus'].get(k, []))))
    for k in names:
        where = fired_in['15 programs'].get(k, []) + fired_in['corpus'].get(k, [])
        print('%s: %s' % (k, ' '.join(where) or '(none)'))


if __name__ == '__main__':
    main()
