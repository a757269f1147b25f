"""`pip install` of the built package (build/python, whose pyproject.toml CMake
writes) into a fresh virtual environment with the system's site packages
(NumPy from Debian): the installed arrvm imports and computes from outside
the source and build trees, with no PYTHONPATH."""
import os
import subprocess
import sys

import arrvm


def test_pip_install_of_the_built_package(tmp_path):
    built = os.path.dirname(os.path.dirname(os.path.abspath(arrvm.__file__)))
    assert os.path.exists(os.path.join(built, 'pyproject.toml')), built
    env_dir = tmp_path / 'venv'
    subprocess.run([sys.executable, '-m', 'venv', '--system-site-packages', str(env_dir)], check=True)
    py = str(env_dir / 'bin' / 'python')
    env = {k: v for k, v in os.environ.items() if k != 'PYTHONPATH'}
    env['PIP_NO_INDEX'] = '1'  # nothing from the network: setuptools and NumPy are the system's
    p = subprocess.run([py, '-m', 'pip', 'install', '--no-build-isolation', '--no-deps', built],
                       env=env, capture_output=True, text=True, timeout=600, cwd=str(tmp_path))
    assert p.returncode == 0, p.stdout[-2000:] + p.stderr[-2000:]
    code = ("import arrvm; a = arrvm.arange(10.0); "
            "print(arrvm.__file__); print(float((a[1:] - a[:-1]).sum()))")
    r = subprocess.run([py, '-c', code], env=env, capture_output=True, text=True, timeout=300, cwd=str(tmp_path))
    assert r.returncode == 0, r.stderr[-2000:]
    where, value = r.stdout.splitlines()[:2]
    assert where.startswith(str(env_dir)), where  # the installed copy, not the build tree
    assert value.split()[0] == '9.0'
