"""The corpus (bench/corpus: NumPy programs written the ordinary way) at its
small size: every program under python3 -m arrvm gives NumPy's output
(run.py check compares each with the same program under plain python)."""
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def test_corpus_programs_equal_numpy(tmp_path):
    e = dict(os.environ)
    e['ARRVM_CACHE_DIR'] = str(tmp_path / 'cache')
    p = subprocess.run([sys.executable, os.path.join(ROOT, 'bench', 'corpus', 'run.py'), 'check'], env=e,
                       capture_output=True, text=True, timeout=1800)
    n = len([f for f in os.listdir(os.path.join(ROOT, 'bench', 'corpus')) if f.endswith('.py') and f != 'run.py'])
    assert n >= 30
    assert p.returncode == 0 and '%d of %d programs agree with NumPy' % (n, n) in p.stdout, p.stdout + p.stderr
