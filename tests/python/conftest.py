"""pytest setup for the arrvm package tests: the package from the build tree
(PYTHONPATH=build/python, set by CTest), and the reference interpreter as the
backend of the in-process tests unless ARRVM_BACKEND says otherwise (the
sweeps below issue thousands of distinct small kernels; the drop-in and
temporaries tests run the cpu backend in subprocesses)."""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
os.environ.setdefault('ARRVM_BACKEND', 'ref')
build_python = os.path.join(ROOT, 'build', 'python')
if 'arrvm' not in sys.modules and os.path.isdir(build_python) and build_python not in sys.path and \
        not os.environ.get('PYTHONPATH'):
    sys.path.insert(0, build_python)
