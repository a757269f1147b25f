"""The scoped drop-in: under `python3 -m arrvm`, the user's code
gets arrvm for `numpy` while SciPy and matplotlib import the real NumPy, take
arrvm arrays and give back NumPy arrays that arrvm code keeps using. The
script's results equal those of the same script under plain python."""
import json
import os
import subprocess
import sys

import numpy

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def env():
    e = dict(os.environ)
    e.setdefault('PYTHONPATH', os.path.join(ROOT, 'build', 'python'))
    e.setdefault('ARRVM_BACKEND', 'cpu')
    return e


def run(args, cwd, stdin=None):
    p = subprocess.run([sys.executable] + args, env=env(), cwd=cwd, input=stdin, capture_output=True, text=True,
                       timeout=600)
    assert p.returncode == 0, p.stderr
    return p


SCRIPT = r'''
import json, sys
import numpy as np
import scipy.linalg
import scipy.ndimage
import scipy.signal
import matplotlib
matplotlib.use('Agg')
import matplotlib.pyplot as plt
import helper  # a module of the user's, next to the script: arrvm too

n = 60
A = np.eye(n) * 4 + np.ones((n, n)) * 0.1
b = np.sin(np.arange(n) * 0.3)
x = scipy.linalg.solve(A, b)              # NumPy's result ...
y = np.cos(x) * 2 + x                     # ... used by arrvm code
img = np.outer(np.linspace(0, 1, 48), np.linspace(1, 2, 48)) ** 2
g = scipy.ndimage.gaussian_filter(img, 1.5)
h = helper.residual(g, img)
s = scipy.signal.convolve(b, np.ones(5) / 5, mode='same')
fig, ax = plt.subplots()
ax.plot(y)
ax.imshow(h)
fig.savefig(sys.argv[1])
print(json.dumps({
    'y': np.asarray(y).tolist(), 'h': float(abs(h).sum()), 's': np.asarray(s).tolist(),
    'version': np.__version__, 'numpy_module': type(np.ones(1)).__module__,
    'helper_module': helper.kind(), 'library_numpy': type(sys.modules['numpy'].ones(1)).__module__,
    'pyplot_numpy': type(plt.np.ones(1)).__module__}))
'''

HELPER = '''
import numpy as np
def residual(a, b):
    return a - np.asarray(b)
def kind():
    return type(np.zeros(2)).__module__
'''


def test_scipy_and_matplotlib_in_an_arrvm_script(tmp_path):
    (tmp_path / 'script.py').write_text(SCRIPT)
    (tmp_path / 'helper.py').write_text(HELPER)
    want = json.loads(run(['script.py', str(tmp_path / 'numpy.png')], tmp_path).stdout)
    p = run(['-m', 'arrvm', 'script.py', str(tmp_path / 'arrvm.png')], tmp_path)
    got = json.loads(p.stdout)
    assert 'ArrvmFallbackWarning' not in p.stderr, p.stderr
    assert got['numpy_module'] == 'arrvm' and got['helper_module'] == 'arrvm', got
    assert want['numpy_module'] == 'numpy'
    # (the facade is named numpy too: what its arrays are tells them apart)
    assert got['library_numpy'] == 'numpy' and got['pyplot_numpy'] == 'numpy', got
    assert got['version'] == numpy.__version__ == want['version']
    # arrvm's sin/cos may differ from NumPy's libm by an ulp, which solve amplifies a little.
    numpy.testing.assert_allclose(got['y'], want['y'], rtol=1e-12, atol=1e-14)
    numpy.testing.assert_allclose(got['s'], want['s'], rtol=1e-12, atol=1e-14)
    assert abs(got['h'] - want['h']) <= 1e-9 * want['h']
    png = (tmp_path / 'arrvm.png').read_bytes()
    assert png[:8] == b'\x89PNG\r\n\x1a\n' and len(png) > 1000


def test_c_option_stdin_and_console(tmp_path):
    code = "import sys, numpy as np; print(type(np.ones(2)).__module__, float(np.arange(5).sum()), sys.argv)"
    out = run(['-m', 'arrvm', '-c', code, 'a', 'b'], tmp_path).stdout.split()
    assert out[:2] == ['arrvm', '10.0'] and "['-c', 'a', 'b']" in ' '.join(out[2:])
    out = run(['-m', 'arrvm', '-'], tmp_path, stdin=code.replace('sys.argv', '0')).stdout.split()
    assert out == ['arrvm', '10.0', '0']
    p = run(['-m', 'arrvm'], tmp_path, stdin="import numpy as np\nx = np.arange(4) * 2\nx.sum()\n")
    assert '12' in p.stdout, p.stdout + p.stderr


def test_numpy_submodules_and_from_imports(tmp_path):
    (tmp_path / 's.py').write_text(
        "import numpy.linalg as la\nimport numpy.random\nfrom numpy.random import seed, rand\n"
        "from numpy import sqrt, float32\nimport numpy\n"
        "seed(3)\nprint(type(rand(2)).__module__, type(numpy.random.rand(2)).__module__, type(sqrt(4.0)).__name__,"
        " float32.__module__, la.__name__, numpy.linalg is la)\n")
    out = run(['-m', 'arrvm', 's.py'], tmp_path).stdout.split()
    assert out == ['arrvm', 'arrvm', 'float64', 'numpy', 'numpy.linalg', 'True'], out


def test_usage_errors():
    p = subprocess.run([sys.executable, '-m', 'arrvm', '-c'], env=env(), capture_output=True, text=True,
                       timeout=120)
    assert p.returncode == 2 and 'needs an argument' in p.stderr
